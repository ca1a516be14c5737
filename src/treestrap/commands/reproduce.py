"""``treestrap reproduce veness2009``: the paper's self-play comparison in one command.

Heavy modules are imported inside the handler so that building the CLI stays instant.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from treestrap.commands.arguments import (
    add_backend_arguments,
    check_backend_arguments,
    int_at_least,
)


def _positive_int(text: str) -> int:
    return int_at_least(1, text)


BUDGET_NAMES = ("quick", "standard", "paper")


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "reproduce",
        help="reproduce a paper's experiment end to end (veness2009)",
        description="veness2009: train TD-Leaf, RootStrap(alpha-beta), TreeStrap(minimax) "
        "and TreeStrap(alpha-beta) by self-play from the same random start, rate their "
        "checkpoints in one tournament with the untrained player at 250 Elo, and write "
        "Table 2 (table.txt) and Figure 2 (curve.png). Budgets: quick (~10 minutes on 2 "
        "cores: 250 games each at depth 3), standard (under 2 hours: 300 games at depth 3), "
        "paper (days: 10000 games at 1m+1s). Every stage resumes: run the same command "
        "again after an interruption.",
    )
    p.add_argument("experiment", choices=["veness2009"], help="which experiment")
    p.add_argument("--budget", choices=BUDGET_NAMES, default="quick", help="(default quick)")
    p.add_argument(
        "--out", metavar="OUT_DIR", help="output directory (default runs/veness2009-BUDGET)"
    )
    p.add_argument("--seed", type=int, default=1, help="seed of the start weights and openings")
    p.add_argument(
        "--workers",
        type=_positive_int,
        default=2,
        help="processes in parallel (default 2; with --backend ray: actors per training "
        "run, and tournament games at once)",
    )
    add_backend_arguments(p, "training actors and tournament games")
    p.set_defaults(func=run_reproduce_command)


def run_reproduce_command(args: argparse.Namespace) -> int:
    from pathlib import Path

    from treestrap.reproduce.veness2009 import reproduce

    problem = check_backend_arguments(args)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    out = args.out or f"runs/{args.experiment}-{args.budget}"
    print(f"output directory: {out}", flush=True)
    try:
        reproduce(
            out,
            args.budget,
            seed=args.seed,
            workers=args.workers,
            backend=args.backend,
            address=args.address,
        )
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"interrupted: run the same command again to continue ({out})", file=sys.stderr)
        return 130
    print()
    print((Path(out) / "table.txt").read_text(), end="")
    print(f"\nplot: {out}/curve.png; ratings: {out}/ratings.txt; games: {out}/tournament/")
    return 0
