"""How long a player may think: a Fischer clock, or a fixed depth or node count per move.

Written ``BASE+INC`` (seconds, e.g. ``10+0.1``; ``60`` alone means no increment),
``depth=N`` or ``nodes=N``, which is also the form a tournament stores in its config.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class TimeControl:
    """Fischer clock (seconds), or fixed depth / nodes per move."""

    base: float | None = None
    increment: float = 0.0
    depth: int | None = None
    nodes: int | None = None

    def __post_init__(self) -> None:
        given = [v is not None for v in (self.base, self.depth, self.nodes)]
        if sum(given) != 1:
            raise ValueError("a time control is exactly one of a clock, a depth or a node count")
        if self.base is not None and not (
            0 < self.base < math.inf and 0 <= self.increment < math.inf
        ):
            raise ValueError(f"clock must be positive with a non-negative increment: {self}")
        if (self.depth is not None and self.depth < 1) or (
            self.nodes is not None and self.nodes < 1
        ):
            raise ValueError("depth and node limits must be at least 1")

    @property
    def is_clock(self) -> bool:
        return self.base is not None

    def describe(self) -> str:
        if self.base is not None:
            return f"{self.base:g}+{self.increment:g}"
        if self.depth is not None:
            return f"depth {self.depth}"
        return f"nodes {self.nodes}"

    def pgn_tag(self) -> str:
        """The PGN ``TimeControl`` value: ``-`` when no clock is kept."""
        if self.base is not None:
            return f"{self.base:g}+{self.increment:g}"
        return "-"

    def text(self) -> str:
        """The ``--tc`` form; :func:`parse_time_control` reads it back."""
        if self.base is not None:
            return f"{self.base!r}+{self.increment!r}"
        if self.depth is not None:
            return f"depth={self.depth}"
        return f"nodes={self.nodes}"


def parse_time_control(text: str) -> TimeControl:
    """``BASE+INC``, ``BASE``, ``depth=N`` or ``nodes=N``; ``ValueError`` otherwise."""
    spec = text.strip()
    try:
        if spec.startswith("depth="):
            return TimeControl(depth=int(spec[6:]))
        if spec.startswith("nodes="):
            return TimeControl(nodes=int(spec[6:]))
        base, _, inc = spec.partition("+")
        return TimeControl(base=float(base), increment=float(inc or 0))
    except ValueError:
        raise ValueError(
            f"bad time control {text!r} (expected BASE+INC seconds, depth=N or nodes=N)"
        ) from None
