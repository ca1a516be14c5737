"""Compiled entry points that reach any registered feature set by its id, generated from
the registry: a new feature set is picked up here without an edit.

The branches ``if feature_set_id == k: return function_k(pos, idx, val)`` are built at
import time, one small compiled closure per registered set, each falling through to the
next. They are inlined into the entry points below, which numba compiles to one switch
of direct, inlinable calls (the cost of a hand-written ``if`` chain) and caches on disk
like any kernel. Two alternatives were measured and dropped: passing the extractor as an
argument (numba specialises on it, but a function typed on a compiled function is
compiled afresh in every process, never loaded from the cache), and ``literal_unroll``
over a tuple of the functions (same machine code, but numba types the tuple as
experimental first-class functions and warns at every compilation).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from treestrap.core.jit import njit
from treestrap.core.position import Position
from treestrap.evaluation.feature_sets import all_feature_sets

_FEATURE_SETS = all_feature_sets()

#: Buffer length that fits the active features of every registered set.
MAX_ACTIVE = max(fs.max_active for fs in _FEATURE_SETS)


@njit(inline="always")
def _no_feature_set(feature_set_id: int, pos: Position, idx: np.ndarray, val: np.ndarray) -> int:
    return 0  # past the last id: nothing is written


def _branch(entry: int, function: Any, otherwise: Any) -> Any:
    """Compiled ``(feature_set_id, pos, idx, val) -> n``: ``function`` for id ``entry``,
    ``otherwise`` for any other."""

    # A closure is not cached itself: it is inlined into the cached entry points.
    @njit(inline="always", cache=False)
    def branch(feature_set_id: int, pos: Position, idx: np.ndarray, val: np.ndarray) -> int:
        if feature_set_id == entry:
            return function(pos, idx, val)
        return otherwise(feature_set_id, pos, idx, val)

    return branch


def _dispatch_over(functions: tuple[Any, ...]) -> Any:
    """Compiled ``(feature_set_id, pos, idx, val) -> n`` calling ``functions[id]``."""
    dispatch = _no_feature_set
    for entry in reversed(range(len(functions))):
        dispatch = _branch(entry, functions[entry], dispatch)
    return dispatch


def _score_over_pairs(gradient: Any) -> Any:
    """Compiled ``(pos, weights, idx, val) -> float``: the dot product over
    ``gradient``'s pairs, for a set without a fused score."""

    @njit(inline="always", cache=False)
    def score(pos: Position, weights: np.ndarray, idx: np.ndarray, val: np.ndarray) -> float:
        n = gradient(pos, idx, val)
        total = 0.0
        for i in range(n):
            total += weights[idx[i]] * val[i]
        return total

    return score


def _fused_score(score: Any) -> Any:
    """A set's own ``(pos, weights) -> float`` in the signature of the others."""

    @njit(inline="always", cache=False)
    def fused(pos: Position, weights: np.ndarray, idx: np.ndarray, val: np.ndarray) -> float:
        return score(pos, weights)

    return fused


@njit(inline="always")
def _no_score(
    feature_set_id: int, pos: Position, weights: np.ndarray, idx: np.ndarray, val: np.ndarray
) -> float:
    return 0.0  # past the last id


def _score_branch(entry: int, function: Any, otherwise: Any) -> Any:
    @njit(inline="always", cache=False)
    def branch(
        feature_set_id: int, pos: Position, weights: np.ndarray, idx: np.ndarray, val: np.ndarray
    ) -> float:
        if feature_set_id == entry:
            return function(pos, weights, idx, val)
        return otherwise(feature_set_id, pos, weights, idx, val)

    return branch


def _score_dispatch() -> Any:
    dispatch = _no_score
    for entry in reversed(range(len(_FEATURE_SETS))):
        fs = _FEATURE_SETS[entry]
        function = _score_over_pairs(fs.gradient) if fs.score is None else _fused_score(fs.score)
        dispatch = _score_branch(entry, function, dispatch)
    return dispatch


_extract_by_id = _dispatch_over(tuple(fs.extract for fs in _FEATURE_SETS))
_gradient_by_id = _dispatch_over(tuple(fs.gradient for fs in _FEATURE_SETS))
_score_by_id = _score_dispatch()


@njit
def extract_features(pos: Position, feature_set_id: int, idx: np.ndarray, val: np.ndarray) -> int:
    """phi(s) of the set with this id as (index, value) pairs; returns the count."""
    return _extract_by_id(feature_set_id, pos, idx, val)


@njit
def feature_gradient(pos: Position, feature_set_id: int, idx: np.ndarray, val: np.ndarray) -> int:
    """A linear model's gradient over the set with this id (``sign * phi(s)``, see
    :mod:`treestrap.evaluation.feature_sets.feature_set`); returns the count."""
    return _gradient_by_id(feature_set_id, pos, idx, val)


@njit
def feature_score(
    pos: Position, feature_set_id: int, weights: np.ndarray, idx: np.ndarray, val: np.ndarray
) -> float:
    """A linear model's side-to-move score ``theta . gradient`` over the set with this
    id, equal bit for bit to the sum over :func:`feature_gradient`'s pairs in their
    order. ``idx``/``val`` are scratch for sets without a fused score: their contents
    are undefined afterwards."""
    return _score_by_id(feature_set_id, pos, weights, idx, val)
