"""``treestrap curve``: rate the checkpoints of training runs in one tournament and plot
Elo against training games on a log axis (Veness et al. 2009, Figure 2); with
``--bootstrap RUN`` or ``--presets``, rate a bootstrap chain's accepted players the same
way and plot their measured Elo against the chain's CPU hours
(:mod:`treestrap.bootstrap.report`), where the run's own curve sums gate estimates.

Heavy modules are imported inside the handler so that building the CLI stays instant.
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from treestrap.bootstrap.measured_curve import MEASURED_TC  # light: the curve's code loads lazily
from treestrap.commands.arguments import int_at_least, number
from treestrap.evaluation.preset_names import BOOTSTRAP_PRESETS


def _positive_int(text: str) -> int:
    return int_at_least(1, text)


def _finite(text: str) -> float:
    value = number(text, float, "a number")
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "curve",
        help="rate training checkpoints (or a bootstrap chain's players) in one pool and "
        "plot their Elo",
        description="Pick a few checkpoints of each training run (evenly spaced on a log "
        "axis), play them and the runs' common untrained start in one round robin, fit "
        "BayesElo-model ratings with the untrained player anchored, and write "
        "ratings.txt/.csv/.json, curve.csv and curve.png into OUT_DIR. With --bootstrap "
        "or --presets, the players are a bootstrap chain's accepted rounds instead, the "
        "first anchored at 0, and the curve is their measured Elo against the chain's "
        "CPU hours, beside the sum of gate estimates (which an SPRT stopped at H1 "
        "overstates). Run it again to resume an interrupted tournament.",
    )
    p.add_argument("runs", nargs="*", metavar="RUN_DIR", help="training run directories")
    chain = p.add_mutually_exclusive_group()
    chain.add_argument(
        "--bootstrap",
        metavar="RUN",
        help="a treestrap bootstrap run folder (chess): play its round 0 (or the file it "
        "started --from) and every accepted round",
    )
    chain.add_argument(
        "--presets",
        nargs="+",
        metavar="PRESET",
        help=f"shipped presets made by treestrap bootstrap ({', '.join(BOOTSTRAP_PRESETS)}), "
        "oldest first; each at the CPU hours its file records",
    )
    p.add_argument("--out", required=True, metavar="OUT_DIR", help="output directory")
    p.add_argument(
        "--points", type=_positive_int, default=None, help="checkpoints per run (default 4)"
    )
    p.add_argument(
        "--tc",
        default=None,
        help="BASE+INC, depth=N or nodes=N (default depth=3; with --bootstrap or "
        f"--presets {MEASURED_TC})",
    )
    p.add_argument(
        "--openings",
        metavar="FILE",
        help="with --bootstrap or --presets: the book, .pgn/.tsv/.epd/.bin (default: built-in)",
    )
    p.add_argument(
        "--games-per-pair",
        type=_positive_int,
        default=2,
        help="games per pair of players (even, default 2)",
    )
    p.add_argument("--workers", type=_positive_int, default=2, help="games in parallel (default 2)")
    p.add_argument("--seed", type=int, default=1, help="seed of the opening choice")
    p.add_argument(
        "--anchor-elo",
        type=_finite,
        default=None,
        help="the untrained player's rating (default 250, as in the paper; with "
        "--bootstrap or --presets the first player is at 0)",
    )
    p.add_argument(
        "--tensorboard",
        metavar="DIR",
        help="also log each run's checkpoint ratings as TensorBoard scalars in "
        "DIR/LABEL/ratings (LABEL: the run's algorithm, or its directory name if two runs "
        "share one), at step = training games, next to the games of a run trained with "
        "--tensorboard DIR/LABEL; each fit replaces the last",
    )
    p.set_defaults(func=run_curve_command)


def run_curve_command(args: argparse.Namespace) -> int:
    chain = args.bootstrap is not None or args.presets is not None
    problem = _misused(args, chain)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if chain:
        return _run_chain(args)
    from treestrap.training.curve import CurveSettings, run_curve

    settings = CurveSettings(
        points_per_run=4 if args.points is None else args.points,
        tc=args.tc or "depth=3",
        games_per_pair=args.games_per_pair,
        workers=args.workers,
        seed=args.seed,
        anchor_elo=250.0 if args.anchor_elo is None else args.anchor_elo,
    )
    try:
        result = run_curve(args.runs, args.out, settings, tensorboard=args.tensorboard)
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(result.table.format_table())
    for note in result.notes:
        print(f"note: {note}")
    print()
    print(result.format_summary())
    print(f"\nplot: {args.out}/curve.png; ratings: {args.out}/ratings.csv")
    return 0


def _misused(args: argparse.Namespace, chain: bool) -> str | None:
    """Options of the other kind of curve, or no players at all."""
    if not chain:
        if not args.runs:
            return "give training run directories, --bootstrap RUN or --presets NAME ..."
        if args.openings:
            return "--openings is for --bootstrap and --presets"
        return None
    if args.runs:
        return "training run directories do not go with --bootstrap or --presets"
    for option, value in (
        ("--points", args.points),
        ("--anchor-elo", args.anchor_elo),
        ("--tensorboard", args.tensorboard),
    ):
        if value is not None:
            return f"{option} is for training runs: a chain's first player is at 0"
    return None


def _run_chain(args: argparse.Namespace) -> int:
    """``--bootstrap RUN`` or ``--presets ...``: the chain's measured curve."""
    from pathlib import Path

    from treestrap.bootstrap.measured_curve import (
        ChainSettings,
        measure_chain,
        preset_players,
        run_players,
    )

    settings = ChainSettings(
        tc=args.tc or MEASURED_TC,
        games_per_pair=args.games_per_pair,
        workers=args.workers,
        seed=args.seed,
        openings=args.openings,
    )
    out = Path(args.out)
    try:
        if args.bootstrap is not None:
            players = run_players(Path(args.bootstrap))
        else:
            players = preset_players(list(args.presets))
        curve = measure_chain(players, out, settings)
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # the games stored stay: say how to go on
        print(f"interrupted: the same command resumes {out / 'tournament'}", file=sys.stderr)
        return 130
    print(curve.table.format_table())
    for note in curve.notes:
        print(f"note: {note}")
    print()
    print(curve.format_table())
    print(
        f"\nplot: {out / 'curve.png'}; ratings: {out / 'ratings.csv'}; points: {out / 'curve.csv'}"
    )
    return 0
