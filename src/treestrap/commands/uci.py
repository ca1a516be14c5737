"""``treestrap uci``: speak the Universal Chess Interface on stdin/stdout.

The engine is imported inside the handler so that building the CLI stays instant.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from treestrap.evaluation.preset_names import DEFAULT_PRESET, DEFAULT_PRESET_WHY, PRESET_NAMES


def add_parser(sub: Any) -> None:
    u = sub.add_parser(
        "uci",
        help="play as a UCI engine on stdin/stdout (for GUIs and match runners)",
        description="Speak the Universal Chess Interface on stdin/stdout, with the "
        f"{DEFAULT_PRESET} preset's weights ({DEFAULT_PRESET_WHY}), or --preset's, or "
        "the Preset option's, unless --weights or the Weights option names a weight "
        "file. Extra commands: 'd' shows the position, 'bench [depth]' runs the bench "
        "(with the hand-set weights, whatever the preset: its node count is a fixed "
        "signature).",
    )
    u.add_argument("--weights", metavar="FILE", help="weight file (.npz) to play with")
    u.add_argument(
        "--preset",
        choices=list(PRESET_NAMES),
        help=f"play with a preset's weights (default {DEFAULT_PRESET}, {DEFAULT_PRESET_WHY}; "
        "learned: the shipped TreeStrap weights; hand-set: textbook values)",
    )
    u.add_argument(
        "--search-option",
        action="append",
        default=[],
        metavar="NAME=on|off",
        help="turn one feature of the tournament search on or off, for ablations "
        "(repeatable; the first six are on by default, the rest off, see "
        "docs/reports/search-features.md): " + ", ".join(SEARCH_FEATURES),
    )
    u.set_defaults(func=run_uci)


#: The tournament search's features that ``--search-option`` switches (the boolean
#: fields of ``treestrap.search.tournament.EngineOptions``, named here so that building
#: the CLI does not import the search).
SEARCH_FEATURES = (
    "null_move",
    "lmr",
    "delta_pruning",
    "exchange_pruning",
    "futility",
    "late_move_pruning",
    "history_malus",
    "lmr_history",
    "improving",
    "adaptive_null_move",
    "iir",
    "see_pruning",
    "razoring",
)
_SWITCH = {"on": True, "true": True, "1": True, "off": False, "false": False, "0": False}


def parse_search_options(items: list[str]) -> dict[str, bool]:
    """``["iir=off", ...]`` as ``{"iir": False, ...}``; ValueError for a bad item."""
    switches: dict[str, bool] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or name not in SEARCH_FEATURES or value.strip().lower() not in _SWITCH:
            raise ValueError(
                f"--search-option {item!r}: expected NAME=on|off with NAME one of "
                + ", ".join(SEARCH_FEATURES)
            )
        switches[name] = _SWITCH[value.strip().lower()]
    return switches


def run_uci(args: argparse.Namespace) -> int:
    if args.weights and args.preset:
        print("error: give --weights or --preset, not both", file=sys.stderr)
        return 2
    try:
        switches = parse_search_options(args.search_option)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from treestrap.engine.uci import main as uci_main
    from treestrap.search.tournament import EngineOptions

    options = EngineOptions()._replace(**switches)
    return uci_main(weights=args.weights, preset=args.preset, search_options=options)
