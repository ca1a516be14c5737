"""``treestrap reproduce veness2009 | serban2014``: a paper's experiment in one command.

Heavy modules are imported inside the handler so that building the CLI stays instant.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from treestrap.commands.arguments import (
    add_backend_arguments,
    check_backend_arguments,
    int_at_least,
)


def _positive_int(text: str) -> int:
    return int_at_least(1, text)


BUDGET_NAMES = ("quick", "standard", "paper")
#: The options only serban2014 reads, and their defaults.
SERBAN_OPTIONS = {"pgn": None, "openings": None, "no_finish": False}
#: The options only veness2009 --game connect4 reads, and their defaults.
CONNECT4_OPTIONS = {"positions": None}
#: The solved reference positions that ship with the repository, from its root.
DEFAULT_POSITIONS = "reference/connect4/solved-1000.txt"


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "reproduce",
        help="reproduce a paper's experiment end to end (veness2009, serban2014)",
        description="veness2009: train TD-Leaf, RootStrap(alpha-beta), TreeStrap(minimax) "
        "and TreeStrap(alpha-beta) by self-play from the same random start, rate their "
        "checkpoints in one tournament with the untrained player at 250 Elo, and write "
        "Table 2 (table.txt) and Figure 2 (curve.png). Budgets: quick (~10 minutes on 2 "
        "cores: 250 games each at depth 3), standard (under 2 hours: 300 games at depth 3), "
        "paper (days: 10000 games at 1m+1s). serban2014 (Serban 2014, chapter 7): "
        "supervised logistic regression and MLP(20) starting points learned from --pgn, "
        "Algorithm 7 self-play from each, two gauntlets with games unfinished after 200 "
        "plies played out by Stockfish, the best RL LogReg at 250 Elo; table.txt, "
        "fig7_1.png, fig7_2.png. Budgets: quick (about 11 minutes on 2 cores), standard "
        "(a few hours). veness2009 --game connect4: the same comparison on Connect Four, "
        "with each algorithm's share of best moves on the solved positions in the table; "
        "budgets quick (a few minutes: 1000 games each at depth 4) and standard (5000). "
        "Every stage resumes: run the same command again after an interruption.",
    )
    p.add_argument("experiment", choices=["veness2009", "serban2014"], help="which experiment")
    p.add_argument(
        "--budget",
        choices=BUDGET_NAMES,
        default="quick",
        help="(default quick; serban2014 has quick and standard)",
    )
    p.add_argument(
        "--out", metavar="OUT_DIR", help="output directory (default runs/EXPERIMENT-BUDGET)"
    )
    p.add_argument("--seed", type=int, default=1, help="seed of the start weights and openings")
    p.add_argument(
        "--workers",
        type=_positive_int,
        default=2,
        help="processes in parallel (default 2; with --backend ray: actors per training "
        "run, and tournament games at once)",
    )
    add_backend_arguments(p, "training actors and tournament games (veness2009)")
    p.add_argument(
        "--game",
        default="chess",  # the registry's first game; read at once, without compiling
        metavar="GAME",
        help="veness2009: chess (default) or connect4",
    )
    p.add_argument(
        "--positions",
        metavar="FILE",
        help=f"veness2009 --game connect4: the solved positions the final weights are "
        f"measured on (default {DEFAULT_POSITIONS})",
    )
    p.add_argument(
        "--pgn",
        metavar="GAMES.pgn",
        help="serban2014: the game collection of the supervised starting points (e.g. "
        "twic0920.pgn); needed until its dataset is built",
    )
    p.add_argument(
        "--openings",
        metavar="FILE",
        help="serban2014: opening book of self-play and tournament games (.pgn, .tsv, "
        ".epd or .bin; Serban: ECO, eco.pgn); default the built-in book",
    )
    p.add_argument(
        "--no-finish",
        action="store_true",
        help="serban2014: score games unfinished after 200 plies as draws instead of "
        "having Stockfish play them out (which needs stockfish installed)",
    )
    p.add_argument(
        "--tensorboard",
        metavar="DIR",
        help="also log every training run's games as TensorBoard scalars, one TensorBoard "
        "run per trained run: DIR/ALGORITHM (veness2009; its checkpoints' ratings in "
        "DIR/ALGORITHM/ratings) or DIR/RUN (serban2014's self-play runs: rl-logreg, "
        "mlp-a, ...)",
    )
    p.set_defaults(func=run_reproduce_command)


def _given(args: argparse.Namespace, options: dict[str, object]) -> str:
    """The flags of ``options`` that ``args`` sets, joined, or ''."""
    given = [name for name, default in options.items() if getattr(args, name) != default]
    return ", ".join("--" + name.replace("_", "-") for name in given)


def _error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def run_reproduce_command(args: argparse.Namespace) -> int:
    from treestrap.games.registry import game_facts, game_names

    if args.game not in game_names():
        return _error(f"unknown game {args.game!r} (known: {', '.join(game_names())})")
    engines = game_facts(args.game).engine_tournament  # chess's reproductions
    if not engines and args.experiment != "veness2009":
        return _error(f"--game {args.game}: {args.experiment} is chess only")
    if engines and _given(args, CONNECT4_OPTIONS):
        return _error(f"{_given(args, CONNECT4_OPTIONS)}: options of --game connect4")
    if args.experiment == "serban2014":
        return _run_serban(args)
    flags = _given(args, SERBAN_OPTIONS)
    if flags:
        return _error(f"{flags}: options of serban2014, not of {args.experiment}")
    if not engines:
        return _run_veness_connect4(args)
    return _run_veness(args)


def _run_serban(args: argparse.Namespace) -> int:
    from treestrap.reproduce.serban2014 import BUDGETS, reproduce
    from treestrap.reproduce.stages import pick_budget

    if args.backend != "local" or args.address:
        print("error: serban2014 runs on the local backend (no --backend ray)", file=sys.stderr)
        return 2
    try:
        pick_budget(args.budget, BUDGETS, "serban2014")  # before the output directory
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = args.out or f"runs/{args.experiment}-{args.budget}"
    return _run_and_report(
        out,
        lambda: reproduce(
            out,
            args.budget,
            pgn=args.pgn,
            openings=args.openings,
            seed=args.seed,
            workers=args.workers,
            finish=not args.no_finish,
            report=lambda line: print(line, flush=True),
            tensorboard=args.tensorboard,
        ),
        f"plots: {out}/fig7_1.png, {out}/fig7_2.png; ratings: {out}/ratings.txt",
    )


def _run_veness(args: argparse.Namespace) -> int:
    from treestrap.reproduce.veness2009 import reproduce

    problem = check_backend_arguments(args)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    out = args.out or f"runs/{args.experiment}-{args.budget}"
    return _run_and_report(
        out,
        lambda: reproduce(
            out,
            args.budget,
            seed=args.seed,
            workers=args.workers,
            backend=args.backend,
            address=args.address,
            tensorboard=args.tensorboard,
        ),
        f"plot: {out}/curve.png; ratings: {out}/ratings.txt; games: {out}/tournament/",
    )


def _run_veness_connect4(args: argparse.Namespace) -> int:
    from treestrap.reproduce.stages import pick_budget
    from treestrap.reproduce.veness2009_connect4 import BUDGETS, EXPERIMENT, reproduce_connect4

    if args.backend != "local" or args.address:
        return _error("--game connect4 runs on the local backend (no --backend ray)")
    try:
        pick_budget(args.budget, BUDGETS, EXPERIMENT)  # before the output directory
    except ValueError as exc:
        return _error(str(exc))
    out = args.out or f"runs/{args.experiment}-connect4-{args.budget}"
    return _run_and_report(
        out,
        lambda: reproduce_connect4(
            out,
            args.budget,
            positions=args.positions or DEFAULT_POSITIONS,
            seed=args.seed,
            workers=args.workers,
            tensorboard=args.tensorboard,
        ),
        f"plot: {out}/curve.png; ratings: {out}/ratings.txt; games: {out}/tournament/",
    )


def _run_and_report(out: str, run: Callable[[], object], files: str) -> int:
    """Run a reproduction into ``out``: an ``error:`` line (exit 2) for bad input, a
    hint to continue when interrupted (130), else its table and where its files are."""
    print(f"output directory: {out}", flush=True)
    try:
        run()
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"interrupted: run the same command again to continue ({out})", file=sys.stderr)
        return 130
    print()
    print((Path(out) / "table.txt").read_text(), end="")
    print(f"\n{files}")
    return 0
