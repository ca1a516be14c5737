"""Argument types shared by the subcommands: numbers with bounds, refused with the
same messages everywhere."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T", int, float)


def int_at_least(minimum: int, text: str) -> int:
    """``int(text)``, refused below ``minimum``."""
    value = int(text)
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
    return value


def number(text: str, convert: Callable[[str], T], expected: str) -> T:
    """``convert(text)``, or a usage error that says what was ``expected``."""
    try:
        return convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None


def add_backend_arguments(parser: argparse.ArgumentParser, what: str) -> None:
    """``--backend local|ray`` and ``--address ADDR``, shared by the commands that
    spread work over processes or a Ray cluster (``what`` names that work)."""
    parser.add_argument(
        "--backend",
        choices=["local", "ray"],
        default="local",
        help=f"where {what} run: local processes (default) or a Ray cluster "
        "(needs the 'ray' extra)",
    )
    parser.add_argument(
        "--address",
        metavar="ADDR",
        help="the Ray cluster to join (HOST:PORT from 'ray start --head'); default: "
        "start a local one",
    )


def check_backend_arguments(args: argparse.Namespace) -> str | None:
    """The ``error: ...`` text for a backend that cannot run here, or None."""
    from treestrap.distributed.ray_support import check_backend

    try:
        check_backend(args.backend, args.address)
    except ValueError as exc:
        return str(exc)
    return None
