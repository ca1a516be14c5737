"""``treestrap curve``: rate the checkpoints of training runs in one tournament and plot
Elo against training games on a log axis (Veness et al. 2009, Figure 2).

Heavy modules are imported inside the handler so that building the CLI stays instant.
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from treestrap.commands.arguments import int_at_least, number


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
        help="rate training checkpoints in one pool and plot Elo against training games",
        description="Pick a few checkpoints of each training run (evenly spaced on a log "
        "axis), play them and the runs' common untrained start in one round robin, fit "
        "BayesElo-model ratings with the untrained player anchored, and write "
        "ratings.txt/.csv/.json, curve.csv and curve.png into OUT_DIR. Run it again to "
        "resume an interrupted tournament.",
    )
    p.add_argument("runs", nargs="+", metavar="RUN_DIR", help="training run directories")
    p.add_argument("--out", required=True, metavar="OUT_DIR", help="output directory")
    p.add_argument(
        "--points", type=_positive_int, default=4, help="checkpoints per run (default 4)"
    )
    p.add_argument("--tc", default="depth=3", help="BASE+INC, depth=N or nodes=N (default depth=3)")
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
        default=250.0,
        help="the untrained player's rating (default 250, as in the paper)",
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
    from treestrap.training.curve import CurveSettings, run_curve

    settings = CurveSettings(
        points_per_run=args.points,
        tc=args.tc,
        games_per_pair=args.games_per_pair,
        workers=args.workers,
        seed=args.seed,
        anchor_elo=args.anchor_elo,
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
