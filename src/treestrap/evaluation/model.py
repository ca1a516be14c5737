"""Models: from a position to a score, compiled, behind one seam for every search.

A model reaches compiled code as an :class:`Evaluator`, a named tuple of plain values
and arrays (numba caches functions over it). Every kind has the same fields and field
types, so one compiled search serves all of them and searches never change per kind.
Kinds:

``LINEAR``   ``H(s) = sign(s) * theta . phi(s)`` over any registered feature set, where
             ``sign`` turns a white-relative feature set's score into the side to
             move's: theta (``weights``) times the set's compiled gradient
             ``sign(s) * phi(s)``.
``NETWORK``  logistic regression or an MLP on the ``bitboard`` inputs, its output
             ``z_win - z_loss`` mapped to a score by :mod:`treestrap.evaluation.outcome`.
             ``weights`` is the packed network of :mod:`treestrap.evaluation.network`
             (parameters and first-layer accumulators, kept up to date lazily, so
             searches need no hook in make/unmake). A hybrid network also packs a
             linear part (theta over another feature set, e.g. meep) whose score is
             added to the network's: the network learns what the linear weights miss.
``PERSPECTIVE``  a perspective network (NNUE's ``(768 -> N) x 2 -> 1``) in int16, its
             output the side to move's ``z_win - z_loss``: ``weights`` is the packed
             network of :mod:`treestrap.evaluation.perspective`, its accumulators kept
             the same lazy way.

Scores are floats from the side to move's point of view and are not clipped here
(searches clip to +-9900).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from treestrap.core.jit import njit
from treestrap.core.position import Position
from treestrap.evaluation.feature_sets.bitboard import BITBOARD_SIZE, white_relative_sign
from treestrap.evaluation.feature_sets.bitboard import FEATURE_SET as BITBOARD
from treestrap.evaluation.feature_sets.dispatch import (
    MAX_ACTIVE,
    extract_features,
    feature_gradient,
    feature_score,
)
from treestrap.evaluation.feature_sets.meep import FEATURE_SET as MEEP
from treestrap.evaluation.feature_sets.meep import meep_material_score
from treestrap.evaluation.network import H_LINEAR, H_LINEAR_SET, network_value
from treestrap.evaluation.outcome import score_from_logit
from treestrap.evaluation.perspective import perspective_logit

LINEAR = 0
NETWORK = 1
PERSPECTIVE = 2

_MEEP_ID = MEEP.id  # compiled code reads plain ints, not the registry's objects

#: Most sparse pairs one :func:`evaluate_gradient` leaves in an evaluator's scratch.
MAX_GRADIENT_PAIRS = MAX_ACTIVE
#: The index of the extra pair a hybrid network records after its inputs: its value is
#: the linear part's score (side to move), which learners keep fixed under the network.
LINEAR_PART_INPUT = BITBOARD_SIZE


class Evaluator(NamedTuple):
    """What compiled code needs to evaluate a position."""

    kind: int
    feature_set: int  # the feature set's id (its place in the registry)
    weights: np.ndarray  # float64: theta (linear) or the packed network
    idx: np.ndarray  # int32[MAX_GRADIENT_PAIRS] scratch: indices of the last extraction
    val: np.ndarray  # float64[MAX_GRADIENT_PAIRS] scratch: values at those indices


def make_evaluator(feature_set_id: int, weights: np.ndarray, kind: int = LINEAR) -> Evaluator:
    """An evaluator over ``weights`` (shared when they are float64 already): theta for
    ``LINEAR``, a :func:`~treestrap.evaluation.network.pack_network` array for
    ``NETWORK``, a :func:`~treestrap.evaluation.perspective.pack_perspective` array for
    ``PERSPECTIVE`` (networks' feature set is always ``bitboard``: their inputs)."""
    if kind != LINEAR and feature_set_id != BITBOARD.id:
        raise ValueError("networks read the bitboard feature set")
    return Evaluator(
        kind=kind,
        feature_set=feature_set_id,
        weights=np.ascontiguousarray(weights, dtype=np.float64),
        idx=np.zeros(MAX_GRADIENT_PAIRS, dtype=np.int32),
        val=np.zeros(MAX_GRADIENT_PAIRS, dtype=np.float64),
    )


def thread_copy(ev: Evaluator) -> Evaluator:
    """The same model with its own scratch, for a search on another thread: evaluating
    writes the scratch pairs and, for networks, the accumulator rows and their tags
    packed in ``weights``, so two threads may not share one evaluator. The copy gives
    the same scores (its rows are the original's, tags and all)."""
    return ev._replace(weights=ev.weights.copy(), idx=ev.idx.copy(), val=ev.val.copy())


@njit
def network_score(pos: Position, ev: Evaluator) -> float:
    """A network's own score for the side to move (a hybrid's without its linear part)."""
    logit = network_value(pos, ev.weights)
    return white_relative_sign(pos) * score_from_logit(logit)


@njit(inline="always")
def perspective_score(pos: Position, ev: Evaluator) -> float:
    """A perspective network's score for the side to move."""
    return score_from_logit(perspective_logit(pos, ev.weights))


@njit
def _linear_part(pos: Position, ev: Evaluator) -> float:
    """A hybrid network's linear score for the side to move (0 for a plain network);
    may use the scratch pairs."""
    w = ev.weights
    offset = int(w[H_LINEAR])
    if offset == 0:
        return 0.0
    return feature_score(pos, int(w[H_LINEAR_SET]), w[offset:], ev.idx, ev.val)


@njit
def evaluate_gradient(pos: Position, ev: Evaluator) -> tuple[float, int]:
    """Score of ``pos`` for the side to move, leaving sparse pairs in
    ``ev.idx[:n]``/``ev.val[:n]``; returns ``(score, n)``.

    For a linear model the pairs are the gradient with respect to the weights
    (``sign * phi(s)``). For a network they are its input ``phi(s)`` (the bitboard
    indicators, unsigned): the gradient with respect to its parameters is taken from
    that input by the learner's own autodiff; a hybrid adds one pair
    (:data:`LINEAR_PART_INPUT`, its linear part's score). A perspective network's are
    its ``bitboard`` inputs too, as its torch twin reads them."""
    if ev.kind == PERSPECTIVE:
        n = extract_features(pos, ev.feature_set, ev.idx, ev.val)
        return perspective_score(pos, ev), n
    if ev.kind == NETWORK:
        linear = _linear_part(pos, ev)
        n = extract_features(pos, ev.feature_set, ev.idx, ev.val)
        if ev.weights[H_LINEAR] != 0:
            ev.idx[n] = LINEAR_PART_INPUT
            ev.val[n] = linear
            n += 1
        return network_score(pos, ev) + linear, n
    n = feature_gradient(pos, ev.feature_set, ev.idx, ev.val)
    w = ev.weights
    score = 0.0
    for i in range(n):
        score += w[ev.idx[i]] * ev.val[i]
    return score, n


@njit(inline="always")
def evaluate(pos: Position, ev: Evaluator) -> float:
    """Score of ``pos`` for the side to move (what searches call): the same float as
    :func:`evaluate_gradient`'s, without keeping the pairs (their scratch is left
    undefined)."""
    if ev.kind == NETWORK:
        return network_score(pos, ev) + _linear_part(pos, ev)
    if ev.kind == PERSPECTIVE:
        return perspective_score(pos, ev)
    return feature_score(pos, ev.feature_set, ev.weights, ev.idx, ev.val)


@njit(inline="always")
def is_meep_hybrid(ev: Evaluator) -> bool:
    """Whether ``ev`` is a hybrid network whose linear part is over meep's features."""
    w = ev.weights
    return ev.kind == NETWORK and w[H_LINEAR] != 0 and int(w[H_LINEAR_SET]) == _MEEP_ID


@njit(inline="always")
def hybrid_material(pos: Position, ev: Evaluator) -> float:
    """The material and piece-square part of a meep hybrid's linear part."""
    w = ev.weights
    return meep_material_score(pos, w[int(w[H_LINEAR]) :])


@njit(inline="always")
def evaluate_hybrid(pos: Position, ev: Evaluator, network: float) -> float:
    """:func:`evaluate` of a hybrid whose :func:`network_score` is known already (the
    same float: the network's score plus the linear part's)."""
    return network + _linear_part(pos, ev)


@njit(inline="always")
def lazy_estimate(pos: Position, ev: Evaluator) -> tuple[float, float]:
    """A model's cheap estimate of its score, for searches that may take it for the whole
    when it is far from their window (:func:`material_estimate`), and what of the exact
    score it computed on the way, for :func:`evaluate_after_estimate` to reuse (NaN:
    nothing). An estimate of NaN: the model offers none. The capability of any model: a
    search asks this, never which model it holds."""
    if is_meep_hybrid(ev):
        network = network_score(pos, ev)
        return hybrid_material(pos, ev) + network, network
    return material_estimate(pos, ev), np.nan


@njit(inline="always")
def evaluate_after_estimate(pos: Position, ev: Evaluator, reused: float) -> float:
    """:func:`evaluate`, the same float, reusing what :func:`lazy_estimate` computed
    (a hybrid's network score; NaN: nothing)."""
    if reused == reused:  # not NaN
        return evaluate_hybrid(pos, ev, reused)
    return evaluate(pos, ev)


@njit(inline="always")
def material_estimate(pos: Position, ev: Evaluator) -> float:
    """The material and piece-square part of a linear meep score (what a lazy search
    may take for the whole when it is far from the window); for a hybrid over meep,
    that part of its linear part plus the whole network score (the part left out is
    the same as the linear weights'); NaN for other models."""
    if ev.kind == LINEAR and ev.feature_set == _MEEP_ID:
        return meep_material_score(pos, ev.weights)
    if is_meep_hybrid(ev):
        return hybrid_material(pos, ev) + network_score(pos, ev)
    return np.nan
