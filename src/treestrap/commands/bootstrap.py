"""``treestrap bootstrap``: from random weights to the best network by rounds of
self-play data, an offline fit and a gate (:mod:`treestrap.bootstrap.pipeline`).

Only argparse at import time; the pipeline is imported when the command runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from treestrap.commands.arguments import add_backend_arguments, check_backend_arguments
from treestrap.commands.interrupts import terminate_as_interrupt
from treestrap.evaluation.preset_names import BOOTSTRAP_PRESETS
from treestrap.games.registry import DEFAULT_GAME, game_facts, game_names

#: The budgets by name (each game's provider holds their settings; the n-tuple ones are
#: Connect Four's alone).
BUDGET_NAMES = ("smoke", "standard", "ntuple", "ntuple-mean", "ntuple-smoke")


def _games() -> list[str]:
    """The games with a bootstrap pipeline."""
    return [name for name in game_names() if game_facts(name).bootstrap]


def _minutes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of minutes: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value


def _actors(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 1, got {text!r}")
    return int(text)


def add_parser(sub: Any) -> None:
    """Add ``bootstrap`` to the ``treestrap`` subcommands."""
    p = sub.add_parser(
        "bootstrap",
        help="learn a network from random weights by rounds of self-play, fit and gate",
        description="Round 0 learns linear weights from random ones by TreeStrap self-play; "
        "each later round plays self-play games with the best player so far, recording "
        "the search score of the positions it searched and the game's result, fits a "
        "candidate to them (chess: a perspective network; Connect Four: linear weights) "
        "and keeps it only if it passes an SPRT against the best. The same command "
        "resumes a stopped run. RUN/report.md, RUN/curve.png and RUN/tensorboard show "
        "the rounds; the best player is the last accepted round's candidate.npz.",
    )
    p.add_argument(
        "--game",
        default=DEFAULT_GAME,
        help=f"the game ({', '.join(_games())}; default %(default)s)",
    )
    p.add_argument("--out", required=True, metavar="RUN", help="the run directory")
    p.add_argument(
        "--budget",
        choices=BUDGET_NAMES,
        default="standard",
        help="smoke: minutes on two cores, a tiny round 0 and two small network rounds; "
        "standard (default): the run behind the shipped network; Connect Four also has "
        "ntuple (round 0 only: an n-tuple evaluation by TD(lambda) self-play, the run "
        "behind connect4-ntuple), ntuple-mean (the mean of four such runs) and ntuple-smoke",
    )
    p.add_argument("--seed", type=int, default=0, help="round 0's weights and the openings")
    p.add_argument(
        "--from",
        dest="start",
        metavar="WEIGHTS",
        help="start a new run from an earlier run's best player instead of round 0: its "
        "RUN/best.npz or a preset made by treestrap bootstrap (chess: "
        f"{', '.join(BOOTSTRAP_PRESETS)}); the CPU hours and Elo it recorded carry on, and "
        "so does its provenance chain",
    )
    p.add_argument(
        "--minutes", type=_minutes, help="stop after the step running when they are spent"
    )
    p.add_argument(
        "--actors", type=_actors, default=1, metavar="N", help="self-play processes (default 1)"
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        dest="settings",
        help="change a setting of the run's budget from the first round whose step it "
        "changes has not begun, recorded in RUN/bootstrap.json (for example --set "
        "gate.max_games=800 --set selfplay.games=6000); repeatable",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    add_backend_arguments(p, "the self-play chunks")
    p.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    """Handler: 0 when the run finished or stopped at ``--minutes``; 2 for bad input."""
    problem = check_backend_arguments(args)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    from treestrap.bootstrap.budget_changes import parse_setting
    from treestrap.bootstrap.pipeline import SETTINGS_FILE, RunOptions, bootstrap
    from treestrap.bootstrap.provider import bootstrap_provider
    from treestrap.bootstrap.report import rounds_table
    from treestrap.evaluation.provenance import command_line

    try:
        provider = bootstrap_provider(args.game)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    run = Path(args.out)
    if args.budget not in provider.budgets:
        names = ", ".join(provider.budgets)
        print(f"error: --game {args.game} has no budget {args.budget} ({names})", file=sys.stderr)
        return 2
    budget = provider.budgets[args.budget]
    options = RunOptions(
        actors=args.actors,
        backend=args.backend,
        address=args.address,
        minutes=args.minutes,
        progress=not args.quiet,
        bench_depth=3 if budget.name.endswith("smoke") else 6,
    )
    try:
        changes = [parse_setting(text) for text in args.settings]
        with terminate_as_interrupt():  # a kill stops the actors too, as Ctrl-C does
            records = bootstrap(
                run, budget, args.seed, command_line(), options, args.game, changes, args.start
            )
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"interrupted: the same command resumes {run}", file=sys.stderr)
        return 130
    print(rounds_table(records))
    rounds = len(records) - 1
    planned = json.loads((run / SETTINGS_FILE).read_text())["budget"]["rounds"]  # with --set
    if rounds >= planned:
        print(f"done: {rounds} network rounds; report in {run / 'report.md'}")
    else:
        print(f"stopped after round {rounds}: the same command carries on")
    return 0
