"""A fitted ratings table: each player's Elo with its 95% interval, the draw Elo and
White's advantage, and the covariance that gives the likelihood of superiority (LOS);
shown as text, written as CSV or JSON. :func:`treestrap.rating.ratings.fit_ratings`
makes one.

The LOS of ``a`` over ``b`` is ``Phi((r_a - r_b) / sqrt(var_a + var_b - 2 cov_ab))``.
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from treestrap.rating.elo import Z95


@dataclass
class PlayerRating:
    name: str
    elo: float
    lower: float  # 95% bounds
    upper: float
    games: int
    score: float  # fraction of the points, 0..1
    draws: float  # fraction of the games drawn


@dataclass
class RatingTable:
    players: list[PlayerRating]  # best first
    draw_elo: float
    draw_elo_sd: float  # 0 when fixed
    advantage: float
    advantage_sd: float  # 0 when fixed
    names: list[str]  # the order of the covariance rows: the same as ``players``
    covariance: np.ndarray
    prior: float = 2.0
    anchor: tuple[str, float] | None = None
    draw_elo_fixed: bool = False
    advantage_fixed: bool = False

    def _index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(f"no player {name!r} in the table") from None

    def rating(self, name: str) -> PlayerRating:
        return self.players[self._index(name)]

    def los(self, a: str, b: str) -> float:
        """Likelihood that ``a`` is stronger than ``b`` (normal approximation)."""
        i, j = self._index(a), self._index(b)
        diff = self.players[i].elo - self.players[j].elo
        cov = self.covariance
        var = cov[i, i] + cov[j, j] - 2.0 * cov[i, j]
        if var <= 0.0:  # the same player, or no uncertainty at all
            return 0.5 if diff == 0 else float(diff > 0)
        return 0.5 * (1.0 + math.erf(diff / math.sqrt(2.0 * var)))

    def los_matrix(self) -> list[list[float]]:
        """``[i][j]`` = LOS of player ``i`` over player ``j``, in ``players`` order."""
        return [[self.los(a, b) for b in self.names] for a in self.names]

    def format_table(self) -> str:
        width = max(4, *(len(p.name) for p in self.players))
        lines = [f"Rank {'Name':<{width}}    Elo     +     -  Games  Score  Draws"]
        for rank, p in enumerate(self.players, 1):
            lines.append(
                f"{rank:>4} {p.name:<{width}} {p.elo:>6.0f} {p.upper - p.elo:>5.0f} "
                f"{p.elo - p.lower:>5.0f} {p.games:>6} {100 * p.score:>5.1f}% "
                f"{100 * p.draws:>5.1f}%"
            )
        draw = _with_sd(self.draw_elo, self.draw_elo_sd, self.draw_elo_fixed)
        adv = _with_sd(self.advantage, self.advantage_sd, self.advantage_fixed)
        note = f"prior {self.prior:g} virtual draws per pair"
        if self.anchor is not None:
            note += f", anchored at {self.anchor[0]} = {self.anchor[1]:g}"
        else:
            note += ", mean 0"
        lines.append(f"draw Elo {draw}, white advantage {adv} ({note}; +/- are 95%)")
        return "\n".join(lines)

    def format_los(self) -> str:
        """LOS matrix in percent; columns are named by rank to stay narrow."""
        width = max(4, *(len(n) for n in self.names)) + 4
        matrix = self.los_matrix()
        head = f"{'LOS %':<{width}}" + "".join(f"{k:>4}" for k in range(1, len(self.names) + 1))
        lines = [head]
        for i, name in enumerate(self.names):
            cells = "".join(
                "   -" if i == j else f"{round(100 * v):>4}" for j, v in enumerate(matrix[i])
            )
            lines.append(f"{f'{i + 1:>3} {name}':<{width}}{cells}")
        return "\n".join(lines)

    def to_csv(self, path: str | Path) -> None:
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["rank", "name", "elo", "lower", "upper", "games", "score", "draws"])
            for rank, p in enumerate(self.players, 1):
                bounds = [f"{p.elo:.2f}", f"{p.lower:.2f}", f"{p.upper:.2f}"]
                writer.writerow(
                    [rank, p.name, *bounds, p.games, f"{p.score:.4f}", f"{p.draws:.4f}"]
                )

    def to_json(self, path: str | Path) -> None:
        data = {
            "players": [vars(p) for p in self.players],
            "draw_elo": self.draw_elo,
            "draw_elo_sd": self.draw_elo_sd,
            "advantage": self.advantage,
            "advantage_sd": self.advantage_sd,
            "prior": self.prior,
            "anchor": list(self.anchor) if self.anchor else None,
            "names": self.names,
            "los": self.los_matrix(),
            "covariance": self.covariance.tolist(),
        }
        Path(path).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def _with_sd(value: float, sd: float, fixed: bool) -> str:
    return f"{value:.1f} (fixed)" if fixed else f"{value:.1f} +/- {Z95 * sd:.1f}"
