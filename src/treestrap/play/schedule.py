"""The schedule every tournament keeps, engines' or in-process players'.

A round robin pairs everyone, a gauntlet the first player with each of the others, and
every pair plays each opening twice, colours reversed. A game's id is its index in the
schedule, a pure function of the config, so a resumed run plays exactly the ids its
results lack.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

ROUND_ROBIN, GAUNTLET = "round-robin", "gauntlet"
FORMATS = (ROUND_ROBIN, GAUNTLET)

Opening = TypeVar("Opening")


@dataclass(frozen=True)
class Pairing(Generic[Opening]):
    """One game of the schedule: the players' indexes and the opening."""

    first: int  # index into the players: White
    second: int
    opening: Opening
    round: int  # the opening's number, 1 up


def check_schedule(players: int, format: str, games_per_pair: int) -> None:
    """``ValueError`` for a tournament that cannot be scheduled."""
    if players < 2:
        raise ValueError("a tournament needs at least two players")
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r} (expected {' or '.join(FORMATS)})")
    if games_per_pair < 2 or games_per_pair % 2:
        raise ValueError(f"games per pair must be even and >= 2, got {games_per_pair}")


def schedule(format: str, players: int, openings: Sequence[Opening]) -> list[Pairing[Opening]]:
    """Every game for ``players`` players and ``openings`` (``games_per_pair / 2`` of
    them), in id order."""
    if format == ROUND_ROBIN:
        pairs = [(i, j) for i in range(players) for j in range(i + 1, players)]
    else:
        pairs = [(0, j) for j in range(1, players)]
    return [
        Pairing(a, b, opening, number)
        for number, opening in enumerate(openings, start=1)
        for i, j in pairs
        for a, b in ((i, j), (j, i))
    ]
