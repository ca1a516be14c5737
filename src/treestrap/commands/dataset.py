"""``treestrap dataset build|generate|show``: game collections -> labelled positions.

Building the parser imports nothing heavy; the dataset package (numba kernels, numpy,
python-chess) is imported inside the handlers. Option values are checked by the
handlers, so that every bad input ends as one ``error: ...`` line and exit code 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(sub: Any) -> None:
    d = sub.add_parser(
        "dataset",
        help="build datasets of labelled positions from PGN (Serban 2014)",
        description="Turn PGN game collections into datasets of positions labelled with "
        "the game's winner, for the supervised models; or generate more games by engine "
        "self-play.",
    )
    dsub = d.add_subparsers(dest="dataset_command", metavar="ACTION", required=True)
    _add_build(dsub)
    _add_generate(dsub)
    show = dsub.add_parser(
        "show",
        help="print a dataset's manifest summary",
        description="Print the counts per split and class, the skipped games by reason, "
        "the options and the sources of a dataset.",
    )
    show.add_argument("data_dir", metavar="DATA_DIR")
    show.set_defaults(func=run_show)


def _add_build(dsub: Any) -> None:
    b = dsub.add_parser(
        "build",
        help="PGN collections -> a dataset directory (parallel, resumable)",
        description="Read PGN files (plain, .gz, .bz2, .xz, .zst), keep the games that pass "
        "the filters, label every position with its game's result, split by game into "
        "train/validation/test and store compressed shards with a manifest. Malformed "
        "games are skipped and counted by reason.",
    )
    b.add_argument("games", nargs="+", metavar="GAMES.pgn", help="PGN collections")
    b.add_argument("--out", required=True, metavar="DATA_DIR", help="dataset directory")
    b.add_argument("--min-elo", metavar="N", help="keep games where both players are rated >= N")
    b.add_argument("--event", metavar="REGEX", help="keep games whose Event tag matches")
    b.add_argument("--time-control", metavar="REGEX", help="keep games whose TimeControl matches")
    b.add_argument("--min-plies", metavar="N", default="0", help="keep games of >= N plies")
    b.add_argument(
        "--undecided",
        default="drop",
        metavar="drop|keep",
        help="games without a 1-0, 0-1 or 1/2-1/2 result: drop them (default) or keep "
        "them labelled as draws",
    )
    b.add_argument("--seed", default="0", metavar="S", help="seed of the split (default 0)")
    b.add_argument(
        "--split",
        default="6:2:2",
        metavar="T:V:E",
        help="train:validation:test weights, by game (default 6:2:2, Serban 6.7)",
    )
    b.add_argument(
        "--test-pgn",
        metavar="HELD_OUT.pgn",
        help="its games are the test set; the others split train:validation",
    )
    b.add_argument(
        "--rollout",
        metavar="stockfish:depth=N",
        help="play games that did not end on the board to the end with Stockfish (Serban "
        "6.6; 'stockfish' alone: depth 14); their positions take the rollout's result",
    )
    b.add_argument(
        "--stockfish-score",
        metavar="depth=N",
        help="store Stockfish's depth-N score of every position (the benchmark feature)",
    )
    b.add_argument("--jobs", metavar="N", help="worker processes (default: the cores)")
    b.add_argument(
        "--resume",
        action="store_true",
        help="continue an interrupted build, or extend the dataset with more PGN files",
    )
    b.add_argument("--no-progress", action="store_true", help="no progress bar")
    b.set_defaults(func=run_build)


def _add_generate(dsub: Any) -> None:
    g = dsub.add_parser(
        "generate",
        help="engine self-play games as more PGN (parallel, resumable)",
        description="Play engine games from varied openings (a book plus random legal "
        "plies) and append them to a PGN file game by game; run again to continue up to "
        "--games. The file feeds dataset build.",
    )
    g.add_argument("--engine", default="stockfish", help="stockfish[:ELO] or uci:COMMAND")
    g.add_argument("--games", required=True, metavar="N", help="games the file should hold")
    g.add_argument("--nodes", required=True, metavar="K", help="nodes per move")
    g.add_argument("--out", required=True, metavar="GAMES.pgn", help="PGN file to append to")
    g.add_argument(
        "--openings",
        metavar="FILE",
        help="opening lines: .pgn (e.g. eco.pgn), .tsv (lichess), .epd or a Polyglot .bin "
        "(default: the built-in book)",
    )
    g.add_argument(
        "--random-plies",
        default="4",
        metavar="R",
        help="random legal plies after the book line (default 4)",
    )
    g.add_argument("--jobs", metavar="N", help="games in parallel (default: the cores)")
    g.add_argument("--seed", default="0", metavar="S", help="seed of openings and random plies")
    g.add_argument("--no-progress", action="store_true", help="no progress bar")
    g.set_defaults(func=run_generate)


def _error(message: object) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def run_build(args: argparse.Namespace) -> int:
    from treestrap.supervised.dataset.build import build_dataset, default_jobs
    from treestrap.supervised.dataset.errors import DatasetError
    from treestrap.supervised.dataset.options import (
        UNDECIDED_CHOICES,
        BuildOptions,
        parse_depth,
        parse_int,
        parse_rollout,
        parse_split,
    )
    from treestrap.supervised.dataset.summary import format_manifest

    try:
        if args.undecided not in UNDECIDED_CHOICES:
            raise DatasetError(f"--undecided: expected drop or keep, got {args.undecided!r}")
        options = BuildOptions(
            min_elo=parse_int(args.min_elo, "--min-elo", 0),
            event=args.event,
            time_control=args.time_control,
            min_plies=parse_int(args.min_plies, "--min-plies", 0) or 0,
            undecided=args.undecided,
            seed=parse_int(args.seed, "--seed", 0) or 0,
            split=parse_split(args.split),
            rollout_depth=parse_rollout(args.rollout) if args.rollout else None,
            score_depth=parse_depth(args.stockfish_score, "--stockfish-score")
            if args.stockfish_score
            else None,
        )
        _check_patterns(options)
        jobs = parse_int(args.jobs, "--jobs", 1) or default_jobs()
        report = build_dataset(
            args.games,
            args.out,
            options,
            test_pgn=args.test_pgn,
            jobs=jobs,
            resume=args.resume,
            progress=not args.no_progress,
        )
    except DatasetError as exc:
        return _error(exc)
    except OSError as exc:
        return _error(exc)
    print(format_manifest(report.manifest))
    kept = f", {report.chunks_kept} chunks kept from before" if report.chunks_kept else ""
    print(
        f"speed: {report.positions:,} positions in {report.seconds:.1f} s, "
        f"{report.positions_per_second:,.0f} positions/s with {jobs} jobs{kept}"
    )
    print(f"wrote {args.out}")
    return 0


def _check_patterns(options: Any) -> None:
    from treestrap.supervised.dataset.errors import DatasetError
    from treestrap.supervised.dataset.filters import GameFilter

    try:
        GameFilter(options.min_elo, options.event, options.time_control)
    except ValueError as exc:
        raise DatasetError(str(exc)) from None


def run_generate(args: argparse.Namespace) -> int:
    from treestrap.supervised.dataset.build import default_jobs
    from treestrap.supervised.dataset.errors import DatasetError
    from treestrap.supervised.dataset.generate import GenerateSettings, generate_games
    from treestrap.supervised.dataset.options import parse_int

    try:
        settings = GenerateSettings.from_text(
            engine=args.engine,
            nodes=parse_int(args.nodes, "--nodes", 1) or 1,
            openings=args.openings,
            random_plies=parse_int(args.random_plies, "--random-plies", 0) or 0,
            seed=parse_int(args.seed, "--seed", 0) or 0,
        )
        games = parse_int(args.games, "--games", 1) or 1
        jobs = parse_int(args.jobs, "--jobs", 1) or default_jobs()
        report = generate_games(settings, games, args.out, jobs, progress=not args.no_progress)
    except (DatasetError, OSError) as exc:
        return _error(exc)
    print(report.summary())
    return 0


def run_show(args: argparse.Namespace) -> int:
    from treestrap.supervised.dataset.errors import DatasetError
    from treestrap.supervised.dataset.store import load_manifest
    from treestrap.supervised.dataset.summary import format_manifest, format_options

    try:
        manifest = load_manifest(args.data_dir)
    except DatasetError as exc:
        return _error(exc)
    print(f"dataset {args.data_dir}")
    print(format_options(manifest))
    print(format_manifest(manifest))
    return 0
