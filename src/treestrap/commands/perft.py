"""``treestrap perft``: count the leaves of the legal move tree, or check a perft suite.

The chess core is imported inside the handler so that building the CLI stays instant.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "perft",
        help="count the leaves of the legal move tree (move generator check and speed)",
        description="Count leaf nodes of the legal move tree. With --epd, check every "
        "';Dn count' of a perft suite and print 'N passed, M failed'.",
    )
    src = p.add_mutually_exclusive_group()
    src.add_argument("--fen", help="position (default: the start position)")
    src.add_argument("--epd", metavar="FILE", help="perft suite: FEN ;D1 n ;D2 n ... per line")
    p.add_argument("--depth", type=int, help="depth in plies (with --epd: the deepest to check)")
    p.add_argument("--divide", action="store_true", help="print the count below each root move")
    p.add_argument(
        "--no-bulk",
        action="store_true",
        help="make and unmake every leaf move instead of counting the last ply's moves",
    )
    p.add_argument(
        "--max-nodes", type=int, metavar="N", help="with --epd: skip counts larger than N"
    )
    p.add_argument("-v", "--verbose", action="store_true", help="with --epd: print every check")
    p.set_defaults(func=run_perft)


def run_perft(args: argparse.Namespace) -> int:
    # Imported here so that ``treestrap --help`` stays instant.
    from treestrap.core.move import move_to_uci
    from treestrap.core.notation import STARTING_FEN, parse_fen
    from treestrap.core.perft import divide, perft

    bulk = not args.no_bulk
    if args.epd:
        return _perft_suite(args, bulk)
    if args.depth is None:
        print("error: --depth is required (with --fen or the start position)", file=sys.stderr)
        return 2
    try:
        # An empty --fen is a mistake (an unset shell variable), not the start position.
        pos = parse_fen(STARTING_FEN if args.fen is None else args.fen)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    try:
        if args.divide:
            rows = divide(pos, args.depth, bulk)
            for move, count in sorted(rows, key=lambda r: move_to_uci(r[0])):
                print(f"{move_to_uci(move)}: {count}")
            nodes = sum(count for _, count in rows)
        else:
            nodes = perft(pos, args.depth, bulk)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    elapsed = time.perf_counter() - start
    nps = nodes / elapsed if elapsed > 0 else float("inf")
    print(f"depth {args.depth}: {nodes} nodes in {elapsed:.3f} s ({nps / 1e6:.2f} M nodes/s)")
    return 0


def _perft_suite(args: argparse.Namespace, bulk: bool) -> int:
    from treestrap.core.epd import EpdError, read_epd
    from treestrap.core.notation import parse_fen
    from treestrap.core.perft import MAX_PERFT_DEPTH, perft

    try:
        records = read_epd(args.epd)
        if not records:
            raise EpdError(f"{args.epd}: no positions in it (an empty suite checks nothing)")
        for rec in records:
            deep = [d for d in rec.perft if not 0 <= d <= MAX_PERFT_DEPTH]
            if deep:
                raise EpdError(
                    f"{args.epd}: line {rec.line_number}: D{deep[0]}: perft depth must be "
                    f"in 0..{MAX_PERFT_DEPTH}"
                )
    except EpdError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    passed = failed = 0
    total_nodes = 0
    start = time.perf_counter()
    for rec in records:
        try:
            pos = parse_fen(rec.fen)
        except ValueError as exc:
            failed += 1
            print(f"FAIL line {rec.line_number}: {exc}")
            continue
        for depth, expected in sorted(rec.perft.items()):
            if args.depth is not None and depth > args.depth:
                continue
            if args.max_nodes is not None and expected > args.max_nodes:
                continue
            t0 = time.perf_counter()
            got = perft(pos, depth, bulk)
            dt = time.perf_counter() - t0
            total_nodes += got
            ok = got == expected
            passed += ok
            failed += not ok
            if not ok or args.verbose:
                verdict = "ok  " if ok else "FAIL"
                print(
                    f"{verdict} line {rec.line_number} D{depth}: got {got}, expected {expected}"
                    f" ({dt:.3f} s)  {rec.fen}"
                )
    elapsed = time.perf_counter() - start
    nps = total_nodes / elapsed if elapsed > 0 else float("inf")
    print(f"{total_nodes} nodes in {elapsed:.2f} s ({nps / 1e6:.2f} M nodes/s)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0
