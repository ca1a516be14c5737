"""Elo from match results, with a 95% confidence interval.

For a match of ``W`` wins, ``D`` draws and ``L`` losses the score is
``p = (W + D/2) / N`` and the Elo difference ``-400 log10(1/p - 1)``. The interval comes
from the standard error of the mean per-game score (the trinomial variance
``(W (1-p)^2 + D (1/2-p)^2 + L p^2) / N``, divided by ``N``), mapped through the same
curve: the method of common engine-testing tools for a two-player match.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Two-sided 95% quantile of the normal distribution.
Z95 = 1.959963984540054


def elo_from_score(p: float) -> float:
    """Elo difference that gives an expected score ``p`` (clamped away from 0 and 1)."""
    p = min(max(p, 1e-6), 1 - 1e-6)
    return -400.0 * math.log10(1.0 / p - 1.0) + 0.0  # + 0.0: no "-0" for an even score


@dataclass(frozen=True)
class MatchScore:
    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.5

    @property
    def elo(self) -> float:
        return elo_from_score(self.score)

    def elo_interval(self) -> tuple[float, float]:
        """95% confidence interval of the Elo difference. A clean sweep has no spread
        to estimate from; its bound is the exact one of a binomial: winning all ``n``
        games has chance at most 2.5% once the per-game score is below
        ``0.025 ** (1 / n)``."""
        n = self.games
        if n == 0:
            return (-math.inf, math.inf)
        if self.wins == n:
            return (elo_from_score(0.025 ** (1 / n)), math.inf)
        if self.losses == n:
            return (-math.inf, elo_from_score(1 - 0.025 ** (1 / n)))
        p = self.score
        var = (self.wins * (1 - p) ** 2 + self.draws * (0.5 - p) ** 2 + self.losses * p**2) / n
        se = math.sqrt(var / n)
        lo, hi = p - Z95 * se, p + Z95 * se
        return (
            elo_from_score(lo) if lo > 0 else -math.inf,
            elo_from_score(hi) if hi < 1 else math.inf,
        )

    def describe(self) -> str:
        lo, hi = self.elo_interval()
        if self.wins == self.games or self.losses == self.games:
            bound = f"above {lo:+.0f}" if math.isinf(hi) else f"below {hi:+.0f}"
            return (
                f"+{self.wins} ={self.draws} -{self.losses} ({self.games} games), score "
                f"{100 * self.score:.1f}%, Elo {bound} (95% confidence)"
            )
        return (
            f"+{self.wins} ={self.draws} -{self.losses} ({self.games} games), score "
            f"{100 * self.score:.1f}%, Elo {self.elo:+.0f} [95% CI {lo:+.0f}, {hi:+.0f}]"
        )
