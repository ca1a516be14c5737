"""Sequential probability ratio test (SPRT) for A/B matches, in the BayesElo model.

After each game we compare two hypotheses about the Elo difference of a player over its
opponent: H0 ``elo = elo0`` and H1 ``elo = elo1``. Draws carry information, so, as
common engine testers do, the test uses the trinomial model of BayesElo (see
``ratings.py``) with no colour advantage, where ``f(x) = 1 / (1 + 10^(-x/400))``::

    p_win = f(elo - d),   p_loss = f(-elo - d),   p_draw = 1 - p_win - p_loss

The draw Elo ``d`` is estimated from the match itself. Solving the two equations above
for the observed win and loss frequencies ``w`` and ``l`` gives::

    d = 200 log10((1 - l)/l * (1 - w)/w)

where half a game of pseudo-count is added to each outcome so that ``w`` and ``l`` stay
inside (0, 1) with no wins or no losses yet (then ``w + l < 1`` and ``d > 0``).

With ``W``, ``D``, ``L`` games won, drawn, lost and the probabilities under each
hypothesis (same ``d``), the log-likelihood ratio is::

    LLR = W log(pw1/pw0) + D log(pd1/pd0) + L log(pl1/pl0)

Wald's bounds for false-positive rate ``alpha`` and false-negative rate ``beta`` are
``lower = log(beta / (1 - alpha))`` and ``upper = log((1 - beta) / alpha)``: accept H1 once
``LLR >= upper``, accept H0 once ``LLR <= lower``, otherwise play on.

``elo0`` and ``elo1`` are BayesElo-model differences by default. cutechess instead reads
them as logistic Elo and divides by ``4 x / (1 + x)^2`` with ``x = 10^(-d/400)`` first;
``logistic=True`` does the same.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from treestrap.rating.ratings import expected
from treestrap.rating.results import GameResult

_PSEUDO = 0.5  # games added to each outcome when estimating the draw Elo


@dataclass(frozen=True)
class SprtResult:
    wins: int
    draws: int
    losses: int
    llr: float
    lower: float
    upper: float
    elo0: float
    elo1: float
    alpha: float
    beta: float

    @property
    def decision(self) -> str:
        """``"H1"`` (stronger by elo1), ``"H0"`` (not stronger than elo0) or ``"continue"``."""
        if self.llr >= self.upper:
            return "H1"
        if self.llr <= self.lower:
            return "H0"
        return "continue"

    def describe(self) -> str:
        return (
            f"SPRT elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} "
            f"beta={self.beta:g}: LLR {self.llr:.2f} [{self.lower:.2f}, {self.upper:.2f}] "
            f"-> {self.decision}"
        )


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) LLR bounds."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def estimate_draw_elo(wins: int, draws: int, losses: int) -> float:
    """Draw Elo that matches the observed win and loss rates (with pseudo-counts)."""
    n = wins + draws + losses + 3 * _PSEUDO
    w = (wins + _PSEUDO) / n
    l = (losses + _PSEUDO) / n  # noqa: E741 - the usual name for the loss rate
    return 200.0 * math.log10((1.0 - l) / l * (1.0 - w) / w)


def _probabilities(elo: float, draw_elo: float) -> tuple[float, float, float]:
    win = expected(elo - draw_elo)
    loss = expected(-elo - draw_elo)
    return win, 1.0 - win - loss, loss


@dataclass(frozen=True)
class SprtTest:
    """An SPRT's settings: H0 ``elo = elo0`` against H1 ``elo = elo1`` with error rates
    ``alpha`` and ``beta``; ``logistic`` reads the Elo values as cutechess does."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    logistic: bool = False

    def __post_init__(self) -> None:
        if not (0 < self.alpha < 1 and 0 < self.beta < 1):
            raise ValueError(f"alpha and beta must be in (0, 1), got {self.alpha}, {self.beta}")
        if self.elo0 >= self.elo1:
            raise ValueError(f"elo0 must be below elo1, got {self.elo0}, {self.elo1}")

    def result(self, wins: int, draws: int, losses: int) -> SprtResult:
        """The test's state after ``wins``/``draws``/``losses`` (see the module docstring)."""
        if min(wins, draws, losses) < 0:
            raise ValueError("game counts must be >= 0")
        lower, upper = sprt_bounds(self.alpha, self.beta)
        d = estimate_draw_elo(wins, draws, losses)
        scale = 1.0
        if self.logistic:
            x = 10.0 ** (-d / 400.0)
            scale = 4.0 * x / (1.0 + x) ** 2
        pw0, pd0, pl0 = _probabilities(self.elo0 / scale, d)
        pw1, pd1, pl1 = _probabilities(self.elo1 / scale, d)
        llr = (
            wins * math.log(pw1 / pw0) + draws * math.log(pd1 / pd0) + losses * math.log(pl1 / pl0)
        )
        return SprtResult(
            wins, draws, losses, llr, lower, upper, self.elo0, self.elo1, self.alpha, self.beta
        )


def sprt(
    wins: int,
    draws: int,
    losses: int,
    elo0: float,
    elo1: float,
    alpha: float = 0.05,
    beta: float = 0.05,
    logistic: bool = False,
) -> SprtResult:
    """The SPRT state after ``wins``/``draws``/``losses``: :meth:`SprtTest.result`."""
    return SprtTest(elo0, elo1, alpha, beta, logistic).result(wins, draws, losses)


def count_results(games: Sequence[GameResult], player: str, opponent: str) -> tuple[int, int, int]:
    """Wins, draws and losses of ``player`` in its games against ``opponent``."""
    if player == opponent:
        raise ValueError("player and opponent must differ")
    wins = draws = losses = 0
    for white, black, result in games:
        if {white, black} != {player, opponent} or result not in ("1-0", "0-1", "1/2-1/2"):
            continue
        if result == "1/2-1/2":
            draws += 1
        elif (result == "1-0") == (white == player):
            wins += 1
        else:
            losses += 1
    return wins, draws, losses


def sprt_from_games(
    games: Sequence[GameResult], player: str, opponent: str, test: SprtTest
) -> SprtResult:
    """The SPRT ``test`` of ``player`` against ``opponent`` from the games between them."""
    return test.result(*count_results(games, player, opponent))
