"""The generalized SPRT of fishtest and fastchess, on game pairs (pentanomial) or games
(trinomial).

A match is summarised by counts ``n_i`` of outcomes with per-game scores ``a_i``: the
trinomial model counts games ``[L, D, W]`` (scores 0, 1/2, 1); the pentanomial model
counts game pairs, one opening played with both colours, by their total
``[LL, LD/DL, DD/WL, WD/DW, WW]`` (pair scores 0, 1/2, 1, 3/2, 2, so per-game scores
0, 1/4, 1/2, 3/4, 1). Pairs share an opening, so their two games are correlated; the
pentanomial model sees that and needs fewer games for the same error rates.

Nothing is assumed about the shape of the outcome distribution (the draw rate, how
openings bias a pair): each hypothesis is the distribution closest to the observed one
that has the hypothesised strength. With ``N = sum n_i`` and observed frequencies
``f_i = n_i / N``, the maximum-likelihood distribution under "the expected score is
``s``" is (Lagrange multipliers; M. Van den Bergh, "Comments on Normalized Elo",
proposition 1.1)::

    p_i = f_i / (1 + theta (a_i - s)),
    theta solving  sum_i f_i (a_i - s) / (1 + theta (a_i - s)) = 0

The left side falls strictly in ``theta`` between the poles ``-1/(max a - s)`` and
``-1/(min a - s)``, so the root is unique and bisection finds it. The log-likelihood ratio
of H1 (score ``s1``) against H0 (score ``s0``) is then ``LLR = sum_i n_i log(p1_i / p0_i)``,
compared with Wald's bounds (:func:`~treestrap.rating.sprt.sprt_bounds`).

Elo bounds are **logistic Elo** by default: the expected score of ``elo`` is
``1 / (1 + 10^(-elo/400))``, the Elo of fishtest's and fastchess's ``logistic`` model
(not the BayesElo-model Elo of :mod:`treestrap.rating.sprt`). ``model="normalized"``
reads them as normalized Elo instead: ``nElo = t 800 / ln 10`` where
``t = (mu - 1/2) / sigma`` is the mean score's distance from even in standard
deviations of one game's score (one pair's, divided by sqrt 2, in the pentanomial model).
Its hypotheses constrain ``t`` rather than the mean; the maximum-likelihood distribution
has no closed form and comes from the fixed-point iteration of the same note (section
4.1): with ``mu``, ``sigma`` of the current estimate ``p``,

    phi_i = a_i - 1/2 - (t sigma / 2) (1 + ((a_i - mu) / sigma)^2),   p_i <- f_i / (1 + theta phi_i)

where ``theta`` solves ``sum_i f_i phi_i / (1 + theta phi_i) = 0``.

An outcome never seen yet counts as ``1e-3`` (as fishtest and fastchess do): without it
a hypothesis could put no weight on an outcome and the ratio would be undefined. Counts
may carry leading batch dimensions (``shape (..., 3)`` or ``(..., 5)``), so many matches
are evaluated at once, as simulations do.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from treestrap.rating.sprt import sprt_bounds

LOGISTIC, NORMALIZED = "logistic", "normalized"
MODELS = (LOGISTIC, NORMALIZED)
#: Normalized Elo of one unit of t: ``800 / ln 10``.
NELO_PER_T = 800.0 / math.log(10.0)
#: The count an outcome not seen yet is given.
UNSEEN = 1e-3
#: Halvings of theta's interval: its width is at most ~1/(s (1 - s)), so 100 reach the
#: float64 resolution for any score not within 1e-12 of 0 or 1.
_BISECTIONS = 100
#: The normalized-model iteration stops when no probability moves more than this.
_FIXED_POINT_TOLERANCE = 1e-12
_MAX_FIXED_POINT_STEPS = 10_000


def score_of_elo(elo: float) -> float:
    """The expected score of a logistic Elo difference."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def outcome_scores(kinds: int) -> NDArray[np.float64]:
    """Per-game scores of the outcomes: ``[0, 1/2, 1]`` for 3, quarters for 5."""
    if kinds not in (3, 5):
        raise ValueError(f"counts must be trinomial (3) or pentanomial (5), got {kinds}")
    return np.linspace(0.0, 1.0, kinds)


def regularized(counts: ArrayLike) -> NDArray[np.float64]:
    """``counts`` as floats with each zero replaced by :data:`UNSEEN`."""
    array = np.asarray(counts, dtype=np.float64)
    if np.any(array < 0):
        raise ValueError("counts must be >= 0")
    return np.where(array == 0, UNSEEN, array)


def _bisect_root(
    freqs: NDArray[np.float64], deviations: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The ``theta`` with ``sum f d / (1 + theta d) = 0`` over the last axis, where each
    row of ``deviations`` has both signs (and every ``f > 0``): the sum then falls from
    +inf to -inf between the poles, so halving keeps the root bracketed."""
    low = -1.0 / deviations.max(axis=-1)
    high = -1.0 / deviations.min(axis=-1)
    for _ in range(_BISECTIONS):
        mid = 0.5 * (low + high)
        value = (freqs * deviations / (1.0 + mid[..., None] * deviations)).sum(axis=-1)
        rising = value > 0  # the root lies above mid
        low = np.where(rising, mid, low)
        high = np.where(rising, high, mid)
    return 0.5 * (low + high)


def mle_with_mean(freqs: ArrayLike, score: float | ArrayLike) -> NDArray[np.float64]:
    """The distribution of most likelihood for observed frequencies ``freqs`` (last axis:
    the outcomes, all > 0) among those whose expected per-game score is ``score``."""
    f = np.asarray(freqs, dtype=np.float64)
    s = np.asarray(score, dtype=np.float64)
    if np.any((s <= 0) | (s >= 1)):
        raise ValueError(f"an expected score must be inside (0, 1), got {score}")
    deviations = outcome_scores(f.shape[-1]) - s[..., None]
    deviations = np.broadcast_to(deviations, f.shape)
    theta = _bisect_root(f, deviations)
    p = f / (1.0 + theta[..., None] * deviations)
    return p / p.sum(axis=-1, keepdims=True)


def mle_with_t(freqs: ArrayLike, t: float) -> NDArray[np.float64]:
    """The distribution of most likelihood for ``freqs`` (last axis, all > 0) among those
    with ``(mu - 1/2) / sigma = t`` (see the module docstring)."""
    f = np.asarray(freqs, dtype=np.float64)
    a = outcome_scores(f.shape[-1])
    p = np.full(f.shape, 1.0 / f.shape[-1])  # the note's starting point: uniform
    for _ in range(_MAX_FIXED_POINT_STEPS):
        mu = (p * a).sum(axis=-1, keepdims=True)
        sigma = np.sqrt((p * (a - mu) ** 2).sum(axis=-1, keepdims=True))
        phi = a - 0.5 - 0.5 * t * sigma * (1.0 + ((a - mu) / sigma) ** 2)
        if np.any((phi.min(axis=-1) >= 0) | (phi.max(axis=-1) <= 0)):
            raise ValueError(f"no distribution of these outcomes has t = {t}")
        theta = _bisect_root(f, phi)
        new = f / (1.0 + theta[..., None] * phi)
        new /= new.sum(axis=-1, keepdims=True)
        moved = np.abs(new - p).max()
        p = new
        if moved < _FIXED_POINT_TOLERANCE:
            return p
    raise ArithmeticError("the normalized-Elo estimate did not settle")


def llr(counts: ArrayLike, elo0: float, elo1: float, model: str = LOGISTIC) -> NDArray[np.float64]:
    """The generalized log-likelihood ratio of H1 ``elo1`` against H0 ``elo0`` for
    trinomial ``[L, D, W]`` or pentanomial ``[LL, LD, DD/WL, WD, WW]`` counts (last axis;
    leading axes are separate matches). A 0-d array for one match."""
    n = regularized(counts)
    freqs = n / n.sum(axis=-1, keepdims=True)
    if model == LOGISTIC:
        p0 = mle_with_mean(freqs, score_of_elo(elo0))
        p1 = mle_with_mean(freqs, score_of_elo(elo1))
    elif model == NORMALIZED:
        # t of a pair's mean score is sqrt 2 times a game's: its variance is half.
        per_pair = math.sqrt(2.0) if n.shape[-1] == 5 else 1.0
        p0 = mle_with_t(freqs, per_pair * elo0 / NELO_PER_T)
        p1 = mle_with_t(freqs, per_pair * elo1 / NELO_PER_T)
    else:
        raise ValueError(f"unknown Elo model {model!r} (expected {' or '.join(MODELS)})")
    return np.asarray((n * np.log(p1 / p0)).sum(axis=-1))


@dataclass(frozen=True)
class Gsprt:
    """A generalized SPRT's settings: H0 ``elo = elo0`` against H1 ``elo = elo1`` in the
    Elo of ``model``, with false-positive rate ``alpha`` and false-negative rate ``beta``."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = LOGISTIC

    def __post_init__(self) -> None:
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            raise ValueError(
                f"alpha and beta must be in (0, 1) with a sum below 1, got {self.alpha}, "
                f"{self.beta}"
            )
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 must be below elo1, got {self.elo0}, {self.elo1}")
        if self.model not in MODELS:
            raise ValueError(f"unknown Elo model {self.model!r} (expected {' or '.join(MODELS)})")
        if self.model == LOGISTIC and max(abs(self.elo0), abs(self.elo1)) >= 2000:
            raise ValueError("logistic Elo bounds must lie within +-2000")

    @property
    def bounds(self) -> tuple[float, float]:
        """Wald's (lower, upper) LLR bounds."""
        return sprt_bounds(self.alpha, self.beta)

    def spec(self) -> str:
        """The settings as ``--sprt`` takes them (:func:`parse_gsprt` reads it back)."""
        text = f"elo0={self.elo0:g},elo1={self.elo1:g},alpha={self.alpha:g},beta={self.beta:g}"
        return text if self.model == LOGISTIC else f"{text},model={self.model}"

    def describe(self) -> str:
        return (
            f"elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} beta={self.beta:g} "
            f"({self.model} Elo)"
        )

    def result(self, counts: Sequence[int]) -> GsprtResult:
        """The test's state after trinomial or pentanomial ``counts``."""
        if len(counts) not in (3, 5) or any(c < 0 or c != int(c) for c in counts):
            raise ValueError(f"counts must be 3 or 5 whole numbers >= 0, got {list(counts)}")
        value = float(llr(counts, self.elo0, self.elo1, self.model))
        return GsprtResult(self, tuple(int(c) for c in counts), value)


@dataclass(frozen=True)
class GsprtResult:
    test: Gsprt
    counts: tuple[int, ...]  # [L, D, W] or [LL, LD, DD/WL, WD, WW]
    llr: float

    @property
    def decision(self) -> str:
        """``"H1"`` (stronger by elo1), ``"H0"`` (not stronger than elo0) or ``"continue"``."""
        lower, upper = self.test.bounds
        if self.llr >= upper:
            return "H1"
        if self.llr <= lower:
            return "H0"
        return "continue"

    @property
    def games(self) -> int:
        return sum(self.counts) * (2 if len(self.counts) == 5 else 1)

    def describe(self) -> str:
        """``LLR 1.23 (-2.94, 2.94) Ptnml(0-2) [..]`` (``WDL`` for trinomial counts)."""
        lower, upper = self.test.bounds
        if len(self.counts) == 5:
            counts = f"Ptnml(0-2) [{', '.join(map(str, self.counts))}]"
        else:
            loss, draw, win = self.counts
            counts = f"W {win} D {draw} L {loss}"
        return f"LLR {self.llr:.2f} ({lower:.2f}, {upper:.2f}) {counts}"


_KEYS = ("elo0", "elo1", "alpha", "beta", "model")


def parse_gsprt(text: str, alpha: float = 0.05, beta: float = 0.05) -> Gsprt:
    """``elo0=E0,elo1=E1[,alpha=A][,beta=B][,model=logistic|normalized]`` (or ``E0,E1``)
    as a :class:`Gsprt`, with ``alpha`` and ``beta`` where the text has none;
    ``ValueError`` naming the problem."""
    parts = [p.strip() for p in text.split(",")]
    if len(parts) == 2 and not any("=" in p for p in parts):
        parts = [f"elo0={parts[0]}", f"elo1={parts[1]}"]
    values: dict[str, str] = {}
    for part in parts:
        key, sep, value = part.partition("=")
        key = key.strip().lower()
        if not sep or key not in _KEYS:
            raise ValueError(f"--sprt wants elo0=E0,elo1=E1[,alpha=A,beta=B], got {text!r}")
        if key in values:
            raise ValueError(f"--sprt names {key} twice in {text!r}")
        values[key] = value.strip()
    if "elo0" not in values or "elo1" not in values:
        raise ValueError(f"--sprt needs elo0 and elo1, got {text!r}")
    try:
        numbers = {k: float(v) for k, v in values.items() if k != "model"}
    except ValueError:
        raise ValueError(f"--sprt wants numbers for elo0, elo1, alpha and beta: {text!r}") from None
    if not all(math.isfinite(v) for v in numbers.values()):
        raise ValueError(f"--sprt wants finite numbers, got {text!r}")
    return Gsprt(
        numbers["elo0"],
        numbers["elo1"],
        numbers.get("alpha", alpha),
        numbers.get("beta", beta),
        values.get("model", LOGISTIC),
    )
