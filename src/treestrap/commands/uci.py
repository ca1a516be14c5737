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
    u.set_defaults(func=run_uci)


def run_uci(args: argparse.Namespace) -> int:
    from treestrap.engine.uci import main as uci_main

    if args.weights and args.preset:
        print("error: give --weights or --preset, not both", file=sys.stderr)
        return 2
    return uci_main(weights=args.weights, preset=args.preset)
