"""The ``treestrap`` command line: thin parsing, then calls into the package."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from importlib import import_module

from treestrap import __version__


def _cmd_perft(args: argparse.Namespace) -> int:
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
        pos = parse_fen(args.fen or STARTING_FEN)
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
    from treestrap.core.notation import parse_fen
    from treestrap.core.perft import perft
    from treestrap.epd import read_epd

    try:
        records = read_epd(args.epd)
    except (OSError, ValueError) as exc:
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


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def _cmd_weights_show(args: argparse.Namespace) -> int:
    from treestrap.evaluation.weights import WeightFileError, load_weights
    from treestrap.reports.weights import plot_piece_square_tables, summarize

    try:
        model = load_weights(args.file)
    except WeightFileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        print(summarize(model, top=args.top, group=args.group))
        if args.plot:
            written = plot_piece_square_tables(model, args.plot, title=str(args.file))
            print(f"\nwrote {written}")
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def _cmd_weights_preset(args: argparse.Namespace) -> int:
    from treestrap.evaluation.presets import hand_set_model, random_model
    from treestrap.evaluation.weights import save_weights

    if args.name == "hand-set":
        if args.seed is not None:
            print("error: --seed only applies to the random preset", file=sys.stderr)
            return 2
        model = hand_set_model(args.feature_set)
    else:
        model = random_model(args.feature_set, seed=args.seed or 0)
    try:
        save_weights(model, args.out)
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    fs = model.feature_set
    print(f"wrote {args.name} {fs.name} weights ({fs.size}, layout {fs.layout_hash}) to {args.out}")
    return 0


def _cmd_train(args: argparse.Namespace) -> int:
    import dataclasses

    from tqdm import tqdm

    from treestrap.training.config import TrainConfig, apply_preset
    from treestrap.training.run import train

    if args.resume:
        run_dir = args.resume
        config = TrainConfig(games=args.games or 0)
    else:
        config = TrainConfig()
        stamp = time.strftime("%Y%m%d-%H%M%S")
        run_dir = args.out or f"runs/{args.algorithm or config.algorithm}-{stamp}"
        print(f"run directory: {run_dir}")
        if args.preset:
            config = apply_preset(config, args.preset)
        overrides = {
            name: getattr(args, name)
            for name in (
                "algorithm",
                "games",
                "feature_set",
                "init",
                "seed",
                "step_size",
                "lam",
                "min_depth",
                "depth",
                "nodes",
                "clock",
                "increment",
                "minimax_nodes",
                "minimax_qnodes",
                "opponent",
                "opponent_depth",
                "ladder",
                "openings",
                "max_plies",
                "checkpoint_every",
                "freeze",
            )
            if getattr(args, name) is not None
        }
        if "freeze" in overrides:
            overrides["freeze"] = [f for f in overrides["freeze"] if f != "none"]
        if "nodes" in overrides or "clock" in overrides:
            overrides.setdefault("depth", None)
        config = dataclasses.replace(config, **overrides)
    bar = tqdm(total=config.games or None, unit="game", dynamic_ncols=True)

    def on_game(summary, state) -> None:  # type: ignore[no-untyped-def]
        bar.total = max(bar.total or 0, state.games)
        bar.n = state.games
        nps = summary.nodes / summary.seconds if summary.seconds else 0
        bar.set_postfix_str(
            f"+{state.wins} ={state.draws} -{state.losses} |delta| "
            f"{summary.mean_abs_delta:.1f} {nps / 1000:.0f}k nps"
        )
        bar.refresh()

    try:
        limit = args.minutes * 60 if args.minutes is not None else None
        state = train(config, run_dir, resume=bool(args.resume), on_game=on_game, time_limit=limit)
    except (ValueError, OSError) as exc:
        bar.close()
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        bar.close()
        print(f"interrupted: resume with  treestrap train --resume {run_dir}", file=sys.stderr)
        return 130
    bar.close()
    print(
        f"{state.games} games: +{state.wins} ={state.draws} -{state.losses}; weights in "
        f"{run_dir}/weights.npz"
    )
    return 0


def _add_train_parser(sub) -> None:  # type: ignore[no-untyped-def]
    from treestrap.training.presets import ALGORITHM_NAMES, PRESETS

    preset_help = "; ".join(
        f"{name}: " + ", ".join(f"{k}={v}" for k, v in values.items())
        for name, values in PRESETS.items()
    )
    t = sub.add_parser(
        "train",
        help="learn weights from self-play (or an opponent) with TD/RootStrap/TreeStrap",
        description="Play training games and update the weights from every search. "
        "Defaults: treestrap-ab, meep features, random small initial weights, depth 3, "
        "self-play, the built-in opening book.",
    )
    t.add_argument("--algorithm", choices=list(ALGORITHM_NAMES))
    t.add_argument("--games", type=int, help="games to play in total (default 20)")
    t.add_argument(
        "--out", metavar="RUN_DIR", help="new run directory (default: runs/ALGORITHM-TIME)"
    )
    t.add_argument("--resume", metavar="RUN_DIR", help="continue a stopped run")
    t.add_argument("--preset", choices=list(PRESETS), help=preset_help)
    t.add_argument("--feature-set", dest="feature_set", choices=["meep", "bitboard"])
    t.add_argument("--init", help="'random' (default), 'hand-set' or a weight file")
    t.add_argument("--seed", type=int, help="seed of the random weights and openings")
    t.add_argument(
        "--step-size",
        dest="step_size",
        type=float,
        help="default: the paper's value for the algorithm",
    )
    t.add_argument("--lambda", dest="lam", type=float, help="TD lambda (default 0.7)")
    t.add_argument("--min-depth", dest="min_depth", type=int, help="TreeStrap d (default 1)")
    t.add_argument("--depth", type=int, help="fixed alpha-beta search depth (default 3)")
    t.add_argument("--nodes", type=int, help="node budget per move instead of a depth")
    t.add_argument("--clock", type=float, help="Fischer clock base in seconds")
    t.add_argument("--increment", type=float, help="Fischer increment in seconds")
    t.add_argument(
        "--minimax-nodes",
        dest="minimax_nodes",
        type=int,
        help="minimax tree node budget (default 5000)",
    )
    t.add_argument(
        "--minimax-qnodes",
        dest="minimax_qnodes",
        type=int,
        help="minimax quiescence nodes per leaf (default 500)",
    )
    t.add_argument(
        "--opponent", help="'self' (default), 'stockfish[:ELO]', 'uci:CMD' or a weight file"
    )
    t.add_argument("--opponent-depth", dest="opponent_depth", type=int)
    t.add_argument(
        "--ladder",
        action="store_true",
        default=None,
        help="raise/lower the opponent's UCI_Elo with the learner's score",
    )
    t.add_argument("--openings", help="opening lines: .tsv/.pgn/.epd (default: built-in)")
    t.add_argument("--max-plies", dest="max_plies", type=int)
    t.add_argument("--checkpoint-every", dest="checkpoint_every", type=int)
    t.add_argument(
        "--freeze",
        action="append",
        metavar="PREFIX",
        help="keep the weights of features named PREFIX... at their initial values "
        "(repeatable; default: tempo; 'none' learns every weight)",
    )
    t.add_argument(
        "--minutes",
        type=float,
        help="stop after the game that ends past this many minutes (resume carries on)",
    )
    t.set_defaults(func=_cmd_train)


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _cmd_uci(args: argparse.Namespace) -> int:
    from treestrap.uci import main as uci_main

    return uci_main(weights=args.weights)


def _cmd_bench(args: argparse.Namespace) -> int:
    from treestrap.bench import format_bench_line, format_bench_total, run_bench

    def report(i: int, row) -> None:  # type: ignore[no-untyped-def]
        print(format_bench_line(i, row), flush=True)

    result = run_bench(depth=args.depth, report=report)
    print(format_bench_total(result))
    return 0


def _add_engine_parsers(sub) -> None:  # type: ignore[no-untyped-def]
    from treestrap.bench import DEFAULT_DEPTH

    u = sub.add_parser(
        "uci",
        help="play as a UCI engine on stdin/stdout (for GUIs and match runners)",
        description="Speak the Universal Chess Interface on stdin/stdout, with the "
        "hand-set weights (or the Preset option's) unless --weights or the Weights "
        "option names a weight file. Extra commands: 'd' shows the position, "
        "'bench [depth]' runs the bench.",
    )
    u.add_argument("--weights", metavar="FILE", help="weight file (.npz) to play with")
    u.set_defaults(func=_cmd_uci)
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
    b.set_defaults(func=_cmd_bench)


#: Subcommands with a module of their own in ``treestrap.commands`` (light to import).
_COMMAND_MODULES = ("tournament", "rate", "curve", "reproduce")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="treestrap",
        description="Learn a chess evaluation function from game-tree search.",
    )
    parser.add_argument("--version", action="version", version=f"treestrap {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

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
    p.set_defaults(func=_cmd_perft)

    w = sub.add_parser(
        "weights",
        help="inspect weight files and write preset ones",
        description="Inspect a weight file (largest weights, per-block summary, "
        "piece-square table plots) or write a preset one to start from.",
    )
    wsub = w.add_subparsers(dest="weights_command", metavar="ACTION", required=True)
    show = wsub.add_parser(
        "show",
        help="print a weight file's largest weights and per-block summary",
        description="Print the header and metadata, the material weights (meep), the N "
        "weights of largest magnitude and per-block statistics of a weight file.",
    )
    show.add_argument("file", metavar="FILE", help="weight file (.npz)")
    show.add_argument(
        "--top",
        type=_non_negative_int,
        default=25,
        metavar="N",
        help="how many of the largest weights to list (default 25)",
    )
    show.add_argument(
        "--group",
        metavar="PREFIX",
        help="list only weights whose name starts with PREFIX (e.g. material/, psqt/endgame/)",
    )
    show.add_argument(
        "--plot", metavar="OUT.png", help="also save the piece-square tables as 8x8 boards"
    )
    show.set_defaults(func=_cmd_weights_show)
    preset = wsub.add_parser(
        "preset",
        help="write the hand-set or a random weight file",
        description="Write a preset weight file: the hand-set baseline (textbook values, "
        "pawn = 100) or small random weights.",
    )
    preset.add_argument("name", choices=["hand-set", "random"], help="which preset")
    preset.add_argument("out", metavar="OUT", help="weight file to write (.npz)")
    preset.add_argument(
        "--feature-set", choices=["meep", "bitboard"], default="meep", help="(default meep)"
    )
    preset.add_argument("--seed", type=int, help="random preset: seed (default 0)")
    preset.set_defaults(func=_cmd_weights_preset)
    _add_train_parser(sub)
    _add_engine_parsers(sub)
    for command in _COMMAND_MODULES:
        import_module(f"treestrap.commands.{command}").add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    if getattr(args, "depth", None) is not None and args.depth < 0:
        parser.error("--depth must be >= 0")
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
