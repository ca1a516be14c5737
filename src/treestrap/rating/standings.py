"""Tournament standings: points (win 1, draw 1/2), games and W/D/L per player, and
each pair's head-to-head score with its Elo difference and 95% interval."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from treestrap.rating.elo import MatchScore
from treestrap.rating.sprt import count_results


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


def head_to_head(
    players: Iterable[str], games: Iterable[tuple[str, str, str]]
) -> list[tuple[str, str, MatchScore]]:
    """Every pair that met, as (a, b, score of a against b); ``a`` comes first in
    ``players`` (in a gauntlet: the gauntlet runner against each opponent)."""
    played = list(games)
    order = {name: i for i, name in enumerate(players)}

    def rank(name: str) -> tuple[int, str]:
        return (order.get(name, len(order)), name)

    pairs = sorted(
        {tuple(sorted((w, b), key=rank)) for w, b, _ in played},
        key=lambda p: (rank(p[0]), rank(p[1])),
    )
    return [(a, b, MatchScore(*count_results(played, a, b))) for a, b in pairs]


def format_head_to_head(rows: list[tuple[str, str, MatchScore]]) -> str:
    """One line per pair: ``a - b: +W =D -L (N games), score, Elo [95% CI]``."""
    return "\n".join(f"{a} - {b}: {score.describe()}" for a, b, score in rows)
