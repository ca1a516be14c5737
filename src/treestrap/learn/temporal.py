"""What the temporal-difference rules share: squashing, outcomes and lambda-returns.

KnightCap (Baxter, Tridgell, Weaver) squashes values into (-1, 1) with
``tanh(beta * H)``, beta chosen so that one pawn (100) maps to 0.25, and learns
towards the game outcome +1 / 0 / -1. Without squashing, values stay in the search's
units and the outcome is +-9900 / 0.

The lambda-return of a sequence of next values ``q`` with final value ``z`` is
``G_t = q_{t+1} + lambda * (G_{t+1} - q_{t+1})``, ``G_{N-1} = z``: lambda = 0 is the
one-step target, lambda = 1 the outcome.
"""

from __future__ import annotations

import math

import numpy as np

from treestrap.search.value import VALUE_CLIP

#: tanh(BETA * 100) = 0.25: one pawn is a quarter of the way to a win (KnightCap).
BETA = math.atanh(0.25) / 100.0


def squash(x: float, on: bool) -> float:
    return math.tanh(BETA * x) if on else x


def squash_slope(x: float, on: bool) -> float:
    """d squash(x) / dx."""
    if not on:
        return 1.0
    t = math.tanh(BETA * x)
    return BETA * (1.0 - t * t)


def outcome_value(z: float, on: bool) -> float:
    """Game result for the learner (+1, 0, -1) in the value scale in use."""
    return z if on else z * VALUE_CLIP


def lambda_returns(next_values: list[float], final: float, lam: float) -> np.ndarray:
    """``G_t`` for ``t = 0..N-1`` where ``next_values[t]`` is ``q_{t+1}`` (its last
    entry is ignored: the last step's target is ``final``)."""
    n = len(next_values)
    g = np.zeros(n)
    nxt = final
    for t in range(n - 1, -1, -1):
        if t == n - 1:
            g[t] = final
        else:
            q = next_values[t]
            g[t] = q + lam * (nxt - q)
        nxt = g[t]
    return g


def discounted_sums(d: np.ndarray, lam: float) -> np.ndarray:
    """``sum_{j >= t} lam^(j - t) d_j`` for every t (KnightCap's TD-Leaf update)."""
    out = np.zeros_like(d)
    acc = 0.0
    for t in range(d.shape[0] - 1, -1, -1):
        acc = d[t] + lam * acc
        out[t] = acc
    return out
