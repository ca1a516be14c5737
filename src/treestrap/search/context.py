"""A chess search's scratch: move lists, ordering tables, the principal variation,
counters (:mod:`treestrap.search.scratch`), an evaluation cache and quiescence stacks.

Preallocated once and reused; :func:`reset_context` makes every search start from the
same state, so a search is a pure function of the position (with its history), the
evaluator and the limits.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from treestrap.core.jit import njit
from treestrap.core.move import MAX_MOVES
from treestrap.core.position import Position
from treestrap.evaluation.model import Evaluator, evaluate, evaluate_after_estimate
from treestrap.search.scratch import EVAL_HITS, STATS_NB
from treestrap.search.value import MAX_PLY, clip_value

#: Slots of the evaluation cache (a power of two): 2**16 keys and values, 1 MiB.
EVAL_CACHE_SLOTS = 1 << 15


class SearchContext(NamedTuple):
    moves: np.ndarray  # int32[MAX_PLY + 1, MAX_MOVES]
    scores: np.ndarray  # int64[MAX_PLY + 1, MAX_MOVES] move-ordering scores
    killers: np.ndarray  # int32[MAX_PLY + 1, 2]
    history: np.ndarray  # int64[2, 64, 64] by side, from, to
    pv: np.ndarray  # int32[MAX_PLY + 1, MAX_PLY + 1] triangular PV table
    pv_len: np.ndarray  # int32[MAX_PLY + 1]
    stats: np.ndarray  # int64[STATS_NB]
    eval_keys: np.ndarray  # uint64[2 * EVAL_CACHE_SLOTS]: key, value bits, key, ...
    eval_values: np.ndarray  # float64 view of the same memory (one cache line a probe)
    #: scratch stacks of ``search/quiescence.py::quiescence`` (kernels allocate nothing):
    q_bounds: np.ndarray  # float64[3, MAX_PLY + 1]: alpha, beta, best by ply
    q_moves: np.ndarray  # int64[3, MAX_PLY + 1]: move count, next index, move played
    #: root moves the tournament search leaves out, 0-terminated (MultiPV: the moves of
    #: the better lines already found; empty for a plain search)
    root_skip: np.ndarray  # int32[MAX_MOVES + 1]
    #: the root move the tournament search tries first instead of the table's (0: the
    #: table's; MultiPV: the move the line had in the last iteration)
    root_first: np.ndarray  # int32[1]
    #: the tournament search's static value of the node at each ply (-INFINITE in
    #: check): is the side to move improving on its value two plies up?
    static_values: np.ndarray  # float64[MAX_PLY + 1]


def new_context() -> SearchContext:
    cache = np.zeros(2 * EVAL_CACHE_SLOTS, dtype=np.uint64)
    return SearchContext(
        moves=np.zeros((MAX_PLY + 1, MAX_MOVES), dtype=np.int32),
        scores=np.zeros((MAX_PLY + 1, MAX_MOVES), dtype=np.int64),
        killers=np.zeros((MAX_PLY + 1, 2), dtype=np.int32),
        history=np.zeros((2, 64, 64), dtype=np.int64),
        pv=np.zeros((MAX_PLY + 1, MAX_PLY + 1), dtype=np.int32),
        pv_len=np.zeros(MAX_PLY + 1, dtype=np.int32),
        stats=np.zeros(STATS_NB, dtype=np.int64),
        eval_keys=cache,
        eval_values=cache.view(np.float64),
        q_bounds=np.zeros((3, MAX_PLY + 1), dtype=np.float64),
        q_moves=np.zeros((3, MAX_PLY + 1), dtype=np.int64),
        root_skip=np.zeros(MAX_MOVES + 1, dtype=np.int32),
        root_first=np.zeros(1, dtype=np.int32),
        static_values=np.zeros(MAX_PLY + 1, dtype=np.float64),
    )


@njit
def reset_context(ctx: SearchContext) -> None:
    ctx.killers[:, :] = 0
    ctx.history[:, :, :] = 0
    ctx.pv_len[:] = 0
    ctx.stats[:] = 0
    ctx.eval_keys[:] = 0  # the evaluator may have changed since the last search
    ctx.root_skip[:] = 0
    ctx.root_first[0] = 0


@njit(inline="always")
def static_value(pos: Position, ev: Evaluator) -> float:
    """The heuristic value of ``pos`` for the side to move, clipped as searches use it."""
    return clip_value(evaluate(pos, ev))


@njit(inline="always")
def _cached_value(ctx: SearchContext, key: np.uint64) -> tuple[bool, float]:
    """Whether this search has evaluated the position of ``key`` before, and its value."""
    slot = 2 * np.int64(key & np.uint64(EVAL_CACHE_SLOTS - 1))
    if ctx.eval_keys[slot] == key:
        ctx.stats[EVAL_HITS] += 1
        return True, ctx.eval_values[slot + 1]
    return False, 0.0


@njit(inline="always")
def _cache_value(ctx: SearchContext, key: np.uint64, v: float) -> float:
    slot = 2 * np.int64(key & np.uint64(EVAL_CACHE_SLOTS - 1))
    ctx.eval_keys[slot] = key
    ctx.eval_values[slot + 1] = v
    return v


@njit(inline="always")
def cached_static_value(pos: Position, ev: Evaluator, ctx: SearchContext, key: np.uint64) -> float:
    """:func:`static_value` of ``pos`` (whose key is ``key``),
    read back when this search has evaluated the position before: a static value
    depends on the position alone, so the tree searched is the same either way."""
    hit, v = _cached_value(ctx, key)
    if hit:
        return v
    return _cache_value(ctx, key, static_value(pos, ev))


@njit(inline="always")
def cached_value_after_estimate(
    pos: Position, ev: Evaluator, ctx: SearchContext, key: np.uint64, reused: float
) -> float:
    """:func:`cached_static_value`, reusing what a lazy estimate computed of it (a
    hybrid's network score, :func:`~treestrap.evaluation.model.lazy_estimate`): the
    same value, without computing a network's hidden layers twice."""
    hit, v = _cached_value(ctx, key)
    if hit:
        return v
    return _cache_value(ctx, key, clip_value(evaluate_after_estimate(pos, ev, reused)))
