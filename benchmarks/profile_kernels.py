"""Compiled timing loops of ``profile_search.py``: each repeats one component of the
search over the calls a shadow run sampled (``profile_shadow.py``) and returns a checksum,
so the work cannot be optimised away.

A sampled position is loaded into a small working position first (board, state and the
keys before it); that load is timed alone by :func:`loop_load` and taken off. Every
call gets another position, as in a search; the caches are those of a loop (the
positions' own arrays stay hot), the transposition table is the real one of the search.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from treestrap.core.bitboard import lsb, pop_lsb, popcount
from treestrap.core.jit import njit
from treestrap.core.makemove import make_move, make_null_move, unmake_move, unmake_null_move
from treestrap.core.movegen import generate_captures, generate_moves
from treestrap.core.piece import BISHOP, KNIGHT, NO_PIECE, QUEEN, ROOK
from treestrap.core.position import (
    H_NB,
    OCC_WHITE,
    ST_FROM_NULL,
    ST_NB,
    ST_PLY,
    Position,
    core_tables,
    in_check,
)
from treestrap.core.status import is_insufficient_material, is_repetition
from treestrap.evaluation.feature_sets.dispatch import feature_gradient
from treestrap.evaluation.feature_sets.meep import (
    MATERIAL,
    PSQT,
    PSQT_SIZE,
    _king_features,
    _pawn_features,
    _pressure,
)
from treestrap.evaluation.model import Evaluator, evaluate_gradient, lazy_estimate
from treestrap.search.context import SearchContext, cached_static_value, static_value
from treestrap.search.exchange import exchange_at_least
from treestrap.search.ordering import pick_next, score_moves, update_quiet_cutoff
from treestrap.search.quiet import is_quiet
from treestrap.search.tournament import EngineOptions
from treestrap.search.tt import (
    TranspositionTable,
    tt_checked_cutoff,
    tt_probe,
    tt_store_result,
)
from treestrap.search.value import MAX_PLY


class Positions(NamedTuple):
    """Sampled positions, one per row; ``keys[i, -1]`` is position ``i``'s own key."""

    bb: np.ndarray  # uint64[N, 14]
    board: np.ndarray  # int8[N, 64]
    st: np.ndarray  # int64[N, ST_NB]
    keys: np.ndarray  # uint64[N, W + 1]
    rep_keys: np.ndarray  # uint64[N, W + 1]


def pack(snapshots: list[tuple[np.ndarray, ...]]) -> Positions:
    columns = zip(*snapshots, strict=True)
    return Positions(*(np.ascontiguousarray(np.stack(column)) for column in columns))


def work_position(window: int) -> Position:
    """A position with room for ``window`` keys of history and a search on top."""
    size = window + MAX_PLY + 2
    return Position(
        bb=np.zeros(14, dtype=np.uint64),
        board=np.full(64, NO_PIECE, dtype=np.int8),
        st=np.zeros(ST_NB, dtype=np.int64),
        keys=np.zeros(size + 1, dtype=np.uint64),
        rep_keys=np.zeros(size + 1, dtype=np.uint64),
        hist=np.zeros((size, H_NB), dtype=np.int32),
        tables=core_tables(),
    )


@njit(inline="always")
def load(pos: Position, s: Positions, i: int) -> None:
    """Sample ``i`` into ``pos``, element by element (a slice copy costs several times
    more in numba: it builds views)."""
    for j in range(14):
        pos.bb[j] = s.bb[i, j]
    for j in range(64):
        pos.board[j] = s.board[i, j]
    for j in range(ST_NB):
        pos.st[j] = s.st[i, j]
    w = s.keys.shape[1] - 1
    for j in range(w + 1):
        pos.keys[j] = s.keys[i, j]
        pos.rep_keys[j] = s.rep_keys[i, j]
    pos.st[ST_PLY] = w
    if pos.st[ST_FROM_NULL] > w:
        pos.st[ST_FROM_NULL] = w  # the history kept ends there


# --- one position at a time --------------------------------------------------------


@njit
def loop_load(pos: Position, s: Positions, passes: int) -> int:
    acc = 0
    for _ in range(passes):
        for i in range(s.bb.shape[0]):
            load(pos, s, i)
            acc += pos.st[0]
    return acc


@njit
def loop_generate_moves(pos: Position, s: Positions, moves: np.ndarray, passes: int) -> int:
    acc = 0
    for _ in range(passes):
        for i in range(s.bb.shape[0]):
            load(pos, s, i)
            acc += generate_moves(pos, moves)
    return acc


@njit
def loop_generate_captures(pos: Position, s: Positions, moves: np.ndarray, passes: int) -> int:
    acc = 0
    for _ in range(passes):
        for i in range(s.bb.shape[0]):
            load(pos, s, i)
            acc += generate_captures(pos, moves)
    return acc


@njit
def loop_in_check(pos: Position, s: Positions, passes: int) -> int:
    acc = 0
    for _ in range(passes):
        for i in range(s.bb.shape[0]):
            load(pos, s, i)
            acc += in_check(pos)
    return acc


@njit
def loop_is_repetition(pos: Position, s: Positions, passes: int) -> int:
    acc = 0
    for _ in range(passes):
        for i in range(s.bb.shape[0]):
            load(pos, s, i)
            acc += is_repetition(pos)
    return acc


@njit
def loop_insufficient(pos: Position, s: Positions, passes: int) -> int:
    acc = 0
    for _ in range(passes):
        for i in range(s.bb.shape[0]):
            load(pos, s, i)
            acc += is_insufficient_material(pos)
    return acc


@njit
def loop_null_move(pos: Position, s: Positions, passes: int) -> int:
    acc = 0
    for _ in range(passes):
        for i in range(s.bb.shape[0]):
            load(pos, s, i)
            make_null_move(pos)
            unmake_null_move(pos)
            acc += pos.st[ST_PLY]
    return acc


@njit
def loop_make_unmake(pos: Position, s: Positions, moves: np.ndarray, passes: int) -> int:
    acc = 0
    for _ in range(passes):
        for i in range(s.bb.shape[0]):
            load(pos, s, i)
            make_move(pos, moves[i])
            unmake_move(pos)
            acc += pos.st[ST_PLY]
    return acc


@njit
def loop_static_value(pos: Position, s: Positions, ev: Evaluator, passes: int) -> float:
    acc = 0.0
    for _ in range(passes):
        for i in range(s.bb.shape[0]):
            load(pos, s, i)
            acc += static_value(pos, ev)
    return acc


@njit
def loop_lazy_estimate(pos: Position, s: Positions, ev: Evaluator, passes: int) -> float:
    acc = 0.0
    for _ in range(passes):
        for i in range(s.bb.shape[0]):
            load(pos, s, i)
            acc += lazy_estimate(pos, ev)[0]
    return acc


@njit
def loop_cache_fill(
    pos: Position, s: Positions, ev: Evaluator, ctx: SearchContext, keys: np.ndarray, passes: int
) -> float:
    """Each sampled position through the evaluation cache (a fresh one misses)."""
    acc = 0.0
    for _ in range(passes):
        for i in range(s.bb.shape[0]):
            load(pos, s, i)
            acc += cached_static_value(pos, ev, ctx, keys[i])
    return acc


@njit
def loop_cache_hits(
    pos: Position, ev: Evaluator, ctx: SearchContext, keys: np.ndarray, passes: int
) -> float:
    """Reads of keys the cache holds: no position is loaded, as a hit reads none."""
    acc = 0.0
    for _ in range(passes):
        for i in range(keys.shape[0]):
            acc += cached_static_value(pos, ev, ctx, keys[i])
    return acc


@njit
def loop_exchange(
    pos: Position, s: Positions, moves: np.ndarray, thresholds: np.ndarray, passes: int
) -> int:
    acc = 0
    for _ in range(passes):
        for i in range(s.bb.shape[0]):
            load(pos, s, i)
            acc += exchange_at_least(pos, moves[i], thresholds[i])
    return acc


@njit
def loop_features(pos: Position, s: Positions, ev: Evaluator, passes: int) -> int:
    acc = 0
    for _ in range(passes):
        for i in range(s.bb.shape[0]):
            load(pos, s, i)
            acc += feature_gradient(pos, ev.feature_set, ev.idx, ev.val)
    return acc


@njit
def loop_evaluate_gradient(pos: Position, s: Positions, ev: Evaluator, passes: int) -> float:
    acc = 0.0
    for _ in range(passes):
        for i in range(s.bb.shape[0]):
            load(pos, s, i)
            acc += evaluate_gradient(pos, ev)[0]
    return acc


@njit
def loop_is_quiet(pos: Position, s: Positions, moves: np.ndarray, passes: int) -> int:
    acc = 0
    for _ in range(passes):
        for i in range(s.bb.shape[0]):
            load(pos, s, i)
            acc += is_quiet(pos, moves)
    return acc


# --- parts of the meep features (each side's, as meep_features calls them) -----------


@njit
def _phase(pos: Position) -> int:
    bb = pos.bb
    npm = (
        popcount(bb[KNIGHT] | bb[6 + KNIGHT] | bb[BISHOP] | bb[6 + BISHOP])
        + 2 * popcount(bb[ROOK] | bb[6 + ROOK])
        + 4 * popcount(bb[QUEEN] | bb[6 + QUEEN])
    )
    return 0 if npm >= 17 else (1 if npm >= 9 else 2)


@njit
def loop_pressure(pos: Position, s: Positions, passes: int) -> np.uint64:
    acc = np.uint64(0)
    for _ in range(passes):
        for i in range(s.bb.shape[0]):
            load(pos, s, i)
            occ = pos.bb[OCC_WHITE] | pos.bb[OCC_WHITE + 1]
            for c in range(2):
                attacked, count, weight = _pressure(pos, c, occ)
                acc ^= attacked + np.uint64(count + weight)  # every output used
    return acc


@njit
def loop_pawn_features(pos: Position, s: Positions, ev: Evaluator, passes: int) -> int:
    acc = 0
    for _ in range(passes):
        for i in range(s.bb.shape[0]):
            load(pos, s, i)
            p = _phase(pos)
            for c in range(2):
                acc += _pawn_features(pos, c, p, 1.0, ev.idx, ev.val, 0)
    return acc


@njit
def loop_king_features(pos: Position, s: Positions, ev: Evaluator, passes: int) -> int:
    acc = 0
    for _ in range(passes):
        for i in range(s.bb.shape[0]):
            load(pos, s, i)
            p = _phase(pos)
            for c in range(2):
                acc += _king_features(pos, c, p, 1.0, 1, 2, ev.idx, ev.val, 0)
    return acc


@njit
def _material_psqt(pos: Position, p: int, idx: np.ndarray, val: np.ndarray) -> int:
    """The material and piece-square pairs alone, written as meep writes them: the part
    of the features an incremental update on make/unmake would keep."""
    n = 0
    bb = pos.bb
    us = pos.st[0]
    for c in range(2):
        sign = 1.0 if c == us else -1.0
        for t in range(5):
            cnt = popcount(bb[c * 6 + t])
            if cnt:
                idx[n] = MATERIAL + t
                val[n] = sign * cnt
                n += 1
        mirror = 0 if c == 0 else 56
        for t in range(6):
            pieces = bb[c * 6 + t]
            while pieces:
                sq = lsb(pieces)
                pieces = pop_lsb(pieces)
                idx[n] = PSQT + p * PSQT_SIZE + t * 64 + (sq ^ mirror)
                val[n] = sign
                n += 1
    return n


@njit
def loop_material_psqt(pos: Position, s: Positions, ev: Evaluator, passes: int) -> int:
    acc = 0
    for _ in range(passes):
        for i in range(s.bb.shape[0]):
            load(pos, s, i)
            acc += _material_psqt(pos, _phase(pos), ev.idx, ev.val)
    return acc


# --- the transposition table ----------------------------------------------------------


@njit
def loop_tt_probe(tt: TranspositionTable, keys: np.ndarray, passes: int) -> int:
    acc = 0
    for _ in range(passes):
        for i in range(keys.shape[0]):
            acc += tt_probe(tt, keys[i])
    return acc


@njit
def loop_tt_checked_cutoff(
    tt: TranspositionTable,
    keys: np.ndarray,
    depths: np.ndarray,
    plies: np.ndarray,
    alphas: np.ndarray,
    betas: np.ndarray,
    passes: int,
) -> float:
    acc = 0.0
    for _ in range(passes):
        for i in range(keys.shape[0]):
            acc += tt_checked_cutoff(tt, keys[i], depths[i], plies[i], alphas[i], betas[i])[1]
    return acc


@njit
def loop_tt_store(
    tt: TranspositionTable,
    keys: np.ndarray,
    ints: np.ndarray,
    floats: np.ndarray,
    passes: int,
) -> int:
    """``ints``: depth, ply, move; ``floats``: best, alpha, beta (one row per call)."""
    for _ in range(passes):
        for i in range(keys.shape[0]):
            tt_store_result(
                tt,
                keys[i],
                ints[i, 0],
                ints[i, 1],
                floats[i, 0],
                floats[i, 1],
                floats[i, 2],
                ints[i, 2],
            )
    return tt.meta[0]


# --- move ordering --------------------------------------------------------------------


@njit
def loop_ordering(
    pos: Position,
    s: Positions,
    ctx: SearchContext,
    lists: np.ndarray,
    ints: np.ndarray,
    score: bool,
    passes: int,
) -> int:
    """Per node: the move list copied into place, then (``score``) scored and picked as
    often as the search picked. ``ints``: n, ply, TT move, picks."""
    acc = 0
    for _ in range(passes):
        for i in range(s.bb.shape[0]):
            load(pos, s, i)
            n, ply = ints[i, 0], ints[i, 1]
            for j in range(n):  # a slice copy may allocate, which the kernels' flags forbid
                ctx.moves[ply, j] = lists[i, j]
            if score:
                score_moves(pos, ctx, ply, n, ints[i, 2])
                for k in range(ints[i, 3]):
                    acc += pick_next(ctx, ply, k, n)
    return acc


@njit
def loop_quiet_cutoff(pos: Position, ctx: SearchContext, ints: np.ndarray, passes: int) -> int:
    """``ints``: side, ply, move, depth, killers, history."""
    for _ in range(passes):
        for i in range(ints.shape[0]):
            pos.st[0] = ints[i, 0]
            update_quiet_cutoff(
                pos, ctx, ints[i, 1], ints[i, 2], ints[i, 3], ints[i, 4] != 0, ints[i, 5] != 0
            )
    return ctx.killers[0, 0]


# --- the recursive call itself ---------------------------------------------------------
# Not cached: a cached kernel that calls a recursive one crashes when loaded back
# (treestrap.core.jit).


@njit(cache=False)
def _recurse_tournament(
    pos: Position,
    ev: Evaluator,
    ctx: SearchContext,
    tt: TranspositionTable,
    opts: EngineOptions,
    stop: np.ndarray,
    depth: int,
    ply: int,
    alpha: float,
    beta: float,
    can_null: bool,
) -> float:
    """Calls itself ``depth`` times with ``pvs``'s arguments, doing nothing else."""
    if depth <= 0:
        return alpha + pos.st[0]
    ctx.pv_len[ply] = 0
    return -_recurse_tournament(
        pos, ev, ctx, tt, opts, stop, depth - 1, ply + 1, -beta, -alpha, can_null
    )


#: Calls in one chain of the loops below.
CHAIN = 64


@njit(cache=False)
def loop_recursion_tournament(
    pos: Position,
    ev: Evaluator,
    ctx: SearchContext,
    tt: TranspositionTable,
    opts: EngineOptions,
    stop: np.ndarray,
    can_null: bool,
    passes: int,
) -> float:
    acc = 0.0
    for _ in range(passes):
        acc += _recurse_tournament(pos, ev, ctx, tt, opts, stop, CHAIN, 0, -1.0, 1.0, can_null)
    return acc


# --- timing ---------------------------------------------------------------------------


def seconds_per_pass(loop: Callable[..., Any], args: tuple[Any, ...], target: float) -> float:
    """Fastest of three timings (CPU time) of ``loop(*args, passes)``, per pass;
    ``passes`` is set so that a timing lasts about ``target`` seconds (compiled and
    warmed first)."""
    loop(*args, 1)
    start = time.process_time()
    loop(*args, 1)
    once = time.process_time() - start
    passes = max(1, int(target / max(once, 1e-4)))
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        loop(*args, passes)
        best = min(best, time.process_time() - start)
    return best / passes
