"""``treestrap connect4 measure``: Connect Four players measured against perfect play.

Only argparse at import time; the solver, searches and models load when it runs.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

DEFAULT_DEPTHS = "2,4"
DEFAULT_P = "0,0.1,0.25,0.5"
DEFAULT_GAMES = 20
#: The reference file beside the checkout, from the repository root.
DEFAULT_POSITIONS = "../shared/data/connect4/solved-1000.txt"


def add_parser(sub: Any) -> None:
    """Add ``connect4`` (with ``measure``) to the ``treestrap`` subcommands."""
    c4 = sub.add_parser(
        "connect4",
        help="Connect Four: measure players against perfect play",
        description="Connect Four tools (tournaments and ratings: treestrap tournament "
        "--game connect4, treestrap rate --game connect4).",
    )
    actions = c4.add_subparsers(dest="action", metavar="ACTION", required=True)
    m = actions.add_parser(
        "measure",
        help="best-move share on solved positions, games against the exact solver",
        description="For each player (a search over a model at each depth): the share of "
        "the reference positions where its move is a best move and where it keeps the "
        "game-theoretic result, with 95% intervals; and games against the exact solver "
        "and weakened ones (a random move with probability P), each random opening "
        "played with both colours. Prints a table; with --out writes measure.json and "
        "measure.csv.",
    )
    m.add_argument(
        "players",
        nargs="+",
        metavar="PLAYER",
        help="WEIGHTS.npz[:depth=N], hand-set, random-weights[:seed=S], perfect[:p=P], "
        "random; a search player without depth= is measured at each of --depths",
    )
    m.add_argument(
        "--depths", default=DEFAULT_DEPTHS, help=f"search depths (default {DEFAULT_DEPTHS})"
    )
    m.add_argument(
        "--games",
        default=str(DEFAULT_GAMES),
        metavar="N",
        help=f"games against each opponent, even: N/2 openings x 2 colours (default "
        f"{DEFAULT_GAMES}; 0: positions only)",
    )
    m.add_argument("--p", default=DEFAULT_P, help=f"the opponents' P (default {DEFAULT_P})")
    m.add_argument(
        "--positions",
        default=DEFAULT_POSITIONS,
        metavar="FILE",
        help=f"scored positions (default {DEFAULT_POSITIONS})",
    )
    m.add_argument(
        "--every", default="1", metavar="K", help="only every K-th position (default 1: all)"
    )
    m.add_argument("--opening-plies", default=None, metavar="N", help="random plies (default 8)")
    m.add_argument("--seed", default="1", help="openings and random moves (default 1)")
    m.add_argument(
        "--references",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also measure hand-set and random-weights where not given (default: yes)",
    )
    m.add_argument("--out", metavar="DIR", help="write measure.json and measure.csv here")
    m.add_argument("--quiet", action="store_true", help="no progress bars")
    m.set_defaults(func=run_measure)


def _whole(text: str, what: str, low: int, high: int | None = None) -> int:
    try:
        value = int(text)
    except ValueError:
        value = low - 1
    if value < low or (high is not None and value > high):
        top = f"-{high}" if high is not None else " or more"
        raise ValueError(f"{what} must be a whole number {low}{top}, got {text!r}")
    return value


def _depths(text: str) -> list[int]:
    from treestrap.play.connect4.players import MAX_DEPTH

    depths = [_whole(d.strip(), "--depths: a depth", 1, MAX_DEPTH) for d in text.split(",")]
    return sorted(set(depths))


def _probabilities(text: str) -> list[float]:
    found = []
    for word in text.split(","):
        try:
            p = float(word)
        except ValueError:
            p = -1.0
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"--p: each must be a probability 0-1, got {word!r}")
        found.append(p)
    return found


def run_measure(args: argparse.Namespace) -> int:
    try:
        return _measure(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _measure(args: argparse.Namespace) -> int:
    from treestrap.connect4.solver import Solver
    from treestrap.play.connect4.game import random_openings
    from treestrap.play.connect4.measure import (
        DEFAULT_OPENING_PLIES,
        measure_player,
        opening_results,
    )
    from treestrap.play.connect4.players import (
        HAND_SET,
        RANDOM_WEIGHTS,
        SEARCH,
        make_player,
        parse_connect4_player,
        parse_connect4_players,
    )
    from treestrap.play.connect4.reference import load_reference
    from treestrap.play.connect4.report import format_table, write_reports
    from treestrap.play.connect4.tournament import MAX_OPENING_PLIES

    depths = _depths(args.depths)
    ps = _probabilities(args.p)
    games = _whole(args.games, "--games", 0)
    if games % 2:
        raise ValueError(f"--games must be even (each opening with both colours), got {games}")
    every = _whole(args.every, "--every", 1)
    seed = _whole(args.seed, "--seed", 0)
    plies_text = args.opening_plies or str(DEFAULT_OPENING_PLIES)
    plies = _whole(plies_text, "--opening-plies", 0, MAX_OPENING_PLIES)
    specs = parse_connect4_players(args.players)
    if args.references:  # the hand-written evaluation and the random start beside them
        given = {s.model for s in specs}
        specs += [parse_connect4_player(r) for r in (HAND_SET, RANDOM_WEIGHTS) if r not in given]
    positions = load_reference(args.positions)[::every]
    runs = [s.with_depth(d) for s in specs for d in (depths if s.kind == SEARCH else [0])]
    runs = list({s.name: s for s in runs}.values())  # a fixed depth is measured once
    solver = Solver()
    openings = random_openings(games // 2, plies, seed)
    values = opening_results(openings, solver)
    measures = []
    for spec in runs:
        player = make_player(spec, solver)
        opponents = ps if games else []
        measures.append(
            measure_player(
                player,
                spec.model or spec.kind,
                spec.depth,
                positions,
                openings,
                values,
                opponents,
                solver,
                seed,
                progress=not args.quiet,
            )
        )
    print(format_table(measures))
    if args.out:
        setup = {
            "players": list(args.players),
            "depths": depths,
            "positions_file": str(args.positions),
            "positions": len(positions),
            "every": every,
            "games_per_opponent": games,
            "opening_plies": plies,
            "seed": seed,
            "opponents_p": ps,
            "openings": openings,
        }
        for path in write_reports(args.out, measures, setup):
            print(f"wrote {path}")
    return 0
