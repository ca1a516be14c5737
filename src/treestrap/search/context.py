"""Per-search scratch: move lists, ordering tables, the principal variation, counters.

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
from treestrap.evaluation.model import Evaluator, evaluate_after_estimate
from treestrap.search.value import MAX_PLY, clip_value, static_value

# Slots of ``stats``.
NODES = 0  # main-search nodes (depth >= 1)
QNODES = 1  # quiescence nodes
STOPPED = 2  # 1 once a limit stopped the search
SELDEPTH = 3  # deepest ply reached
EVAL_HITS = 4  # static values read back from the evaluation cache
#: Nodes of NODES + QNODES that Stockfish's rule (one node per move made) leaves out:
#: the root of each search call, the position after a null move, and a move's child
#: entered again by a re-search (LMR at full depth, PVS with the full window).
REVISITS = 5
STATS_NB = 6
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
    )


@njit
def reset_context(ctx: SearchContext) -> None:
    ctx.killers[:, :] = 0
    ctx.history[:, :, :] = 0
    ctx.pv_len[:] = 0
    ctx.stats[:] = 0
    ctx.eval_keys[:] = 0  # the evaluator may have changed since the last search


@njit(inline="always")
def update_pv(ctx: SearchContext, ply: int, move: int) -> None:
    """The PV at ``ply`` becomes ``move`` followed by the child's PV."""
    ctx.pv[ply, 0] = move
    child_len = ctx.pv_len[ply + 1] if ply + 1 <= MAX_PLY else 0
    for j in range(child_len):
        ctx.pv[ply, j + 1] = ctx.pv[ply + 1, j]
    ctx.pv_len[ply] = child_len + 1


@njit(inline="always")
def count_node(ctx: SearchContext, ply: int, quiescence: bool) -> None:
    """Count a node of the main search or of quiescence, and the deepest ply reached."""
    ctx.stats[QNODES if quiescence else NODES] += 1
    if ply > ctx.stats[SELDEPTH]:
        ctx.stats[SELDEPTH] = ply


@njit(inline="always")
def searched_nodes(ctx: SearchContext) -> int:
    """Nodes so far, main search and quiescence together."""
    return ctx.stats[NODES] + ctx.stats[QNODES]


@njit(inline="always")
def count_revisit(ctx: SearchContext, nodes_before: int) -> None:
    """Count a call of the search that entered no new position by a move, given the
    nodes before the call: a call stopped at its entry counted no node, so it counts no
    revisit either."""
    if searched_nodes(ctx) > nodes_before:
        ctx.stats[REVISITS] += 1


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
    """:func:`~treestrap.search.value.static_value` of ``pos`` (whose key is ``key``),
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
