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
