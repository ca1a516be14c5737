"""``treestrap dataset``: being built (issue 13)."""

from __future__ import annotations

from typing import Any


def add_parser(sub: Any) -> None:
    p = sub.add_parser("dataset", help="(being built)")
    p.set_defaults(func=lambda args: 2)
