"""Tournament standings: points (win 1, draw 1/2), games and W/D/L per player."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass
class Standing:
    name: str
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws


def standings(players: Iterable[str], games: Iterable[tuple[str, str, str]]) -> list[Standing]:
    """Every player (those without a game too) from ``(white, black, result)``,
    best first: by points, then fewer games played, then name."""
    table = {name: Standing(name) for name in players}
    for white, black, result in games:
        w, b = table.setdefault(white, Standing(white)), table.setdefault(black, Standing(black))
        if result == "1-0":
            w.wins, b.losses = w.wins + 1, b.losses + 1
        elif result == "0-1":
            w.losses, b.wins = w.losses + 1, b.wins + 1
        elif result == "1/2-1/2":
            w.draws, b.draws = w.draws + 1, b.draws + 1
        else:
            raise ValueError(f"unknown result {result!r}")
    return sorted(table.values(), key=lambda s: (-s.points, s.games, s.name))


def format_standings(rows: list[Standing]) -> str:
    """A plain-text table, one line per player."""
    width = max([len("player"), *(len(r.name) for r in rows)])
    lines = [
        f"{'#':>3}  {'player':<{width}}  {'points':>7}  {'games':>5}  {'W':>4}  {'D':>4}  {'L':>4}"
    ]
    for rank, r in enumerate(rows, start=1):
        lines.append(
            f"{rank:>3}  {r.name:<{width}}  {r.points:>7.1f}  {r.games:>5}  "
            f"{r.wins:>4}  {r.draws:>4}  {r.losses:>4}"
        )
    return "\n".join(lines)
