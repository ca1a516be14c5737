"""Models: from sparse features to a score, compiled, for any registered feature set.

A model reaches compiled code as an :class:`Evaluator`, a named tuple of plain values
and arrays (numba caches functions over it). Today the only kind is ``LINEAR``:
``H(s) = sign(s) * theta . phi(s)``, where ``sign`` turns a white-relative feature
set's score into the side to move's. Scores are floats from the side to move's point
of view and are not clipped here (searches clip to +-9900).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from treestrap.core.jit import njit
from treestrap.core.position import Position
from treestrap.evaluation.features import MAX_ACTIVE, extract_features, perspective_sign

LINEAR = 0


class Evaluator(NamedTuple):
    """What compiled code needs to evaluate a position."""

    kind: int
    feature_set: int
    weights: np.ndarray  # float64[feature set size]
    idx: np.ndarray  # int32[MAX_ACTIVE] scratch: indices of the last extraction
    val: np.ndarray  # float64[MAX_ACTIVE] scratch: d H / d theta at those indices


def make_evaluator(feature_set_id: int, weights: np.ndarray, kind: int = LINEAR) -> Evaluator:
    return Evaluator(
        kind=kind,
        feature_set=feature_set_id,
        weights=np.ascontiguousarray(weights, dtype=np.float64),
        idx=np.zeros(MAX_ACTIVE, dtype=np.int32),
        val=np.zeros(MAX_ACTIVE, dtype=np.float64),
    )


@njit
def evaluate_gradient(pos: Position, ev: Evaluator) -> tuple[float, int]:
    """Score of ``pos`` for the side to move, leaving its gradient with respect to the
    weights in ``ev.idx[:n]``/``ev.val[:n]`` (for a linear model: sign * phi(s));
    returns ``(score, n)``."""
    n = extract_features(pos, ev.feature_set, ev.idx, ev.val)
    sign = perspective_sign(pos, ev.feature_set)
    w = ev.weights
    score = 0.0
    for i in range(n):
        ev.val[i] *= sign
        score += w[ev.idx[i]] * ev.val[i]
    return score, n


@njit
def evaluate(pos: Position, ev: Evaluator) -> float:
    """Score of ``pos`` for the side to move (what searches call)."""
    return evaluate_gradient(pos, ev)[0]
