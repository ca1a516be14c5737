"""``treestrap bench``: search fixed positions to a fixed depth; the node count is the
search's signature.

:mod:`treestrap.engine.bench` imports the engine only when it runs, so building the CLI
stays instant.
"""

from __future__ import annotations

import argparse
from typing import Any

from treestrap.commands.arguments import int_at_least, number
from treestrap.engine.bench import DEFAULT_DEPTH


def _positive_int(text: str) -> int:
    return int_at_least(1, text)


def _threads(text: str) -> int:
    from treestrap.engine.lazy_smp import max_threads

    threads = number(text, int, "a whole number")
    if not 1 <= threads <= max_threads():
        raise argparse.ArgumentTypeError(f"must be in 1..{max_threads()}, got {threads}")
    return threads


def add_parser(sub: Any) -> None:
    b = sub.add_parser(
        "bench",
        help="search a fixed set of positions: node count signature and speed",
        description="Search a fixed set of positions to a fixed depth with the hand-set "
        "weights. The total node count (last line) is deterministic: it changes only "
        "when the search or the evaluation does.",
    )
    b.add_argument(
        "--depth",
        type=_positive_int,
        default=DEFAULT_DEPTH,
        metavar="N",
        help=f"plies per position (default {DEFAULT_DEPTH})",
    )
    b.add_argument(
        "--threads",
        type=_threads,
        default=1,
        metavar="N",
        help="search threads, at most the machine's cores (default 1; the node "
        "signature is one thread's)",
    )
    b.set_defaults(func=run_bench_command)


def run_bench_command(args: argparse.Namespace) -> int:
    from treestrap.engine.bench import format_bench_line, format_bench_total, run_bench

    def report(i: int, row) -> None:  # type: ignore[no-untyped-def]
        print(format_bench_line(i, row), flush=True)

    result = run_bench(depth=args.depth, report=report, threads=args.threads)
    print(format_bench_total(result))
    return 0
