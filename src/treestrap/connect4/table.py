"""The Connect Four searches' transposition table: two bounds per position, as
TreeStrap(alpha-beta) needs (chess's ``search/tt.py`` holds the same rules).

Each slot holds the full 64-bit key, the depth searched, a lower and an upper bound on
the position's value at that depth (``-inf``/``+inf`` when unknown; equal when exact),
and the best move found (-1 when none). Values are stored node-relative (win distances
counted from the stored position). One slot per key (``key & (size - 1)``); a deeper or
equal-depth result replaces a different position, and results for the same position at
the same depth are intersected. The ``visit`` column is scratch for walks.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from treestrap.connect4.value import INFINITE, value_from_node, value_to_node
from treestrap.core.jit import njit

EMPTY_DEPTH = -1
NO_MOVE = -1


class Connect4Table(NamedTuple):
    keys: np.ndarray  # uint64[size]
    depth: np.ndarray  # int32[size], EMPTY_DEPTH when unused
    lower: np.ndarray  # float64[size]
    upper: np.ndarray  # float64[size]
    move: np.ndarray  # int32[size], NO_MOVE when none
    visit: np.ndarray  # int32[size] scratch for table walks
    meta: np.ndarray  # int64[2]: [stores, visit stamp]


def new_table(bits: int) -> Connect4Table:
    """An empty table of ``2**bits`` slots."""
    if not 4 <= bits <= 30:
        raise ValueError(f"transposition table bits must be in 4..30, got {bits}")
    size = 1 << bits
    return Connect4Table(
        keys=np.zeros(size, dtype=np.uint64),
        depth=np.full(size, EMPTY_DEPTH, dtype=np.int32),
        lower=np.full(size, -INFINITE),
        upper=np.full(size, INFINITE),
        move=np.full(size, NO_MOVE, dtype=np.int32),
        visit=np.zeros(size, dtype=np.int32),
        meta=np.zeros(2, dtype=np.int64),
    )


@njit
def clear_table(tt: Connect4Table) -> None:
    tt.depth[:] = EMPTY_DEPTH
    tt.lower[:] = -INFINITE
    tt.upper[:] = INFINITE
    tt.move[:] = NO_MOVE
    tt.keys[:] = 0
    tt.meta[0] = 0


@njit
def probe(tt: Connect4Table, key: np.uint64) -> int:
    """Slot holding ``key``, or -1."""
    i = np.int64(key & np.uint64(tt.keys.shape[0] - 1))
    if tt.depth[i] != EMPTY_DEPTH and tt.keys[i] == key:
        return i
    return -1


@njit
def store(
    tt: Connect4Table, key: np.uint64, depth: int, lower: float, upper: float, move: int
) -> None:
    """Record node-relative bounds ``lower <= value <= upper`` of a depth-``depth`` search."""
    i = np.int64(key & np.uint64(tt.keys.shape[0] - 1))
    tt.meta[0] += 1
    if tt.depth[i] != EMPTY_DEPTH:
        if tt.keys[i] == key:
            if depth < tt.depth[i]:
                return
            if depth == tt.depth[i]:
                new_lower = max(lower, tt.lower[i])
                new_upper = min(upper, tt.upper[i])
                if new_lower <= new_upper:  # the two searches agree: keep the intersection
                    lower, upper = new_lower, new_upper
                if move == NO_MOVE:
                    move = tt.move[i]
        elif depth < tt.depth[i]:
            return
    tt.keys[i] = key
    tt.depth[i] = depth
    tt.lower[i] = lower
    tt.upper[i] = upper
    tt.move[i] = move


@njit(inline="always")
def cutoff(tt: Connect4Table, slot: int, ply: int, alpha: float, beta: float) -> tuple[bool, float]:
    """Whether the bounds in ``slot`` settle a node at ``ply`` searched with the window
    (alpha, beta), and the value to return if they do (fail-soft)."""
    lower = value_from_node(tt.lower[slot], ply)
    upper = value_from_node(tt.upper[slot], ply)
    if lower >= beta:
        return True, lower
    if upper <= alpha:
        return True, upper
    if lower == upper:
        return True, lower
    return False, 0.0


@njit(inline="always")
def store_result(
    tt: Connect4Table,
    key: np.uint64,
    depth: int,
    ply: int,
    best: float,
    alpha: float,
    beta: float,
    move: int,
) -> None:
    """Store the fail-soft result ``best`` of a search with the window (alpha, beta): an
    upper bound if it failed low, a lower bound if it failed high, else exact."""
    if best <= alpha:
        lower, upper = -INFINITE, best
    elif best >= beta:
        lower, upper = best, INFINITE
    else:
        lower, upper = best, best
    store(tt, key, depth, value_to_node(lower, ply), value_to_node(upper, ply), move)
