"""``treestrap uci``: speak the Universal Chess Interface on stdin/stdout.

The engine is imported inside the handler so that building the CLI stays instant.
"""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(sub: Any) -> None:
    u = sub.add_parser(
        "uci",
        help="play as a UCI engine on stdin/stdout (for GUIs and match runners)",
        description="Speak the Universal Chess Interface on stdin/stdout, with the "
        "hand-set weights (or the Preset option's) unless --weights or the Weights "
        "option names a weight file. Extra commands: 'd' shows the position, "
        "'bench [depth]' runs the bench.",
    )
    u.add_argument("--weights", metavar="FILE", help="weight file (.npz) to play with")
    u.set_defaults(func=run_uci)


def run_uci(args: argparse.Namespace) -> int:
    from treestrap.uci import main as uci_main

    return uci_main(weights=args.weights)
