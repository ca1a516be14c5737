"""``treestrap measure --game GAME ...``: a game's players measured against what is known
of the game (Connect Four: perfect play).

A game offers a measurement by its own command module, ``treestrap.commands.GAME``,
with ``MEASURE_DESCRIPTION``, ``add_measure_arguments(parser)`` and
``run_measure(args)``; this command lists the games that do. Only argparse at import
time.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from types import ModuleType
from typing import Any

from treestrap.games.registry import game_names


def measurements() -> dict[str, ModuleType]:
    """The games that offer a measurement, with their command modules."""
    found = {}
    for game in game_names():
        name = f"treestrap.commands.{game}"  # the game's own commands, if it has any
        if importlib.util.find_spec(name) is None:
            continue
        module = importlib.import_module(name)
        if hasattr(module, "add_measure_arguments"):
            found[game] = module
    return found


def add_parser(sub: Any) -> None:
    games = measurements()
    m = sub.add_parser(
        "measure",
        help="measure players against what is known of a game (Connect Four: perfect play)",
        description=" ".join(f"--game {g}: {mod.MEASURE_DESCRIPTION}" for g, mod in games.items()),
    )
    m.add_argument(
        "--game",
        required=True,
        choices=list(games),
        help="the game whose players are measured",
    )
    for module in games.values():
        module.add_measure_arguments(m)
    m.set_defaults(func=run_measure)


def run_measure(args: argparse.Namespace) -> int:
    games = measurements()
    if args.game not in games:
        print(f"error: no measurement for {args.game}", file=sys.stderr)
        return 2
    return int(games[args.game].run_measure(args))
