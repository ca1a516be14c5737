"""The transposition table: two bounds per position, as TreeStrap(alpha-beta) needs.

Each slot holds the full 64-bit key, the depth searched, a lower and an upper bound on
the position's value at that depth (``-inf``/``+inf`` when unknown; equal when exact),
and the best move found. Values are stored node-relative (mate distances counted from
the stored position, see :func:`treestrap.search.value.value_to_node`).

Replacement: one slot per key (index ``key & (size - 1)``); a deeper or equal-depth
result replaces a different position, and so does any result once the slot's entry is
from an earlier search (``age``; the tournament engine keeps its table across moves
and calls :func:`new_search`). Results for the same position at the same depth are
intersected. The ``visit`` column is scratch for walks over the table.

Shared by threads. The tournament engine's search threads (Lazy SMP) read and write one
table with no lock, so two threads may write one slot at once and leave it *torn*: some
columns from one entry, some from another. A check word makes a torn slot harmless:
each store writes ``key ^ entry_hash(depth, lower, upper, move)`` beside the key (in
the same cache line: ``keys[i, CHECK]``). The tournament search takes bounds only from
:func:`tt_read`, which copies the entry's fields and keeps them only if they hash back
to the key: a slot mixed from two stores fails that check (but for a chance of about
2**-64) and reads as empty. A store merges bounds with the slot's only after the same
check, so no torn entry is ever stored again under a valid check. With one thread no
slot is ever torn and every check passes: the table behaves as one without it. Moves
need no check: the searches only order the moves they generate by the table's move,
never play it.

Game-neutral: a move is any int32, and the table keeps its game's number for "no
move" (chess's null move 0; Connect Four's -1, column 0 being a move): a store of that
number keeps the move the slot holds.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from treestrap.core.jit import njit
from treestrap.search.value import INFINITE, value_from_node, value_to_node

EMPTY_DEPTH = -1
# Columns of ``keys``.
KEY = 0
CHECK = 1
# Slots of ``meta``.
STORES = 0
VISIT_STAMP = 1
GENERATION = 2
FILLED = 3
NO_MOVE = 4
#: Default size: 2**18 slots (12 MiB) holds the main-search nodes of a training search
#: of a few hundred thousand nodes, and clears in about a millisecond.
DEFAULT_TT_BITS = 18


class TranspositionTable(NamedTuple):
    keys: np.ndarray  # uint64[size, 2]: the key, and the check (key ^ entry_hash)
    depth: np.ndarray  # int32[size], EMPTY_DEPTH when unused
    lower: np.ndarray  # float64[size]
    upper: np.ndarray  # float64[size]
    move: np.ndarray  # int32[size]
    visit: np.ndarray  # int32[size] scratch for table walks
    age: np.ndarray  # int32[size] search generation that wrote the slot
    filled: np.ndarray  # int32[size] slots filled since the last clear, in order
    meta: np.ndarray  # int64[5]: stores, visit stamp, generation, slots filled, no move


def new_tt(bits: int = DEFAULT_TT_BITS, no_move: int = 0) -> TranspositionTable:
    """An empty table of ``2**bits`` slots for a game whose "no move" is ``no_move``."""
    if not 4 <= bits <= 30:
        raise ValueError(f"transposition table bits must be in 4..30, got {bits}")
    size = 1 << bits
    tt = TranspositionTable(
        keys=np.zeros((size, 2), dtype=np.uint64),
        depth=np.full(size, EMPTY_DEPTH, dtype=np.int32),
        lower=np.full(size, -INFINITE),
        upper=np.full(size, INFINITE),
        move=np.full(size, no_move, dtype=np.int32),
        visit=np.zeros(size, dtype=np.int32),
        age=np.zeros(size, dtype=np.int32),
        filled=np.zeros(size, dtype=np.int32),
        meta=np.zeros(5, dtype=np.int64),
    )
    tt.meta[NO_MOVE] = no_move
    return tt


@njit
def clear_tt(tt: TranspositionTable) -> None:
    """Empty every slot. A training search fills a few thousand of its 2**18 slots, so
    only the slots filled since the last clear are reset when they are few: the same
    table as a full clear, without writing 12 MiB before every search."""
    filled = tt.meta[FILLED]
    no_move = tt.meta[NO_MOVE]
    if filled * 8 < tt.keys.shape[0]:
        for j in range(filled):
            i = tt.filled[j]
            tt.depth[i] = EMPTY_DEPTH
            tt.lower[i] = -INFINITE
            tt.upper[i] = INFINITE
            tt.move[i] = no_move
            tt.keys[i, KEY] = 0
            tt.keys[i, CHECK] = 0
    else:
        tt.depth[:] = EMPTY_DEPTH
        tt.lower[:] = -INFINITE
        tt.upper[:] = INFINITE
        tt.move[:] = no_move
        tt.keys[:, :] = 0
    tt.meta[STORES] = 0
    tt.meta[FILLED] = 0


#: Odd multipliers (a bijection modulo 2**64): fields that differ hash apart.
_MIX_DEPTH = np.uint64(0x9E3779B97F4A7C15)
_MIX_LOWER = np.uint64(0xC2B2AE3D27D4EB4F)
_MIX_UPPER = np.uint64(0x165667B19E3779F9)
_MIX_MOVE = np.uint64(0xD6E8FEB86659FD93)


@njit(inline="always")
def entry_hash(depth: int, lower: float, upper: float, move: int) -> np.uint64:
    """A hash of an entry's fields: the check word holds the key xor this."""
    h = np.uint64(np.int64(depth)) * _MIX_DEPTH
    h ^= np.float64(lower).view(np.uint64) * _MIX_LOWER  # the float's bits, exactly
    h ^= np.float64(upper).view(np.uint64) * _MIX_UPPER
    h ^= np.uint64(np.int64(move)) * _MIX_MOVE
    return h ^ (h >> np.uint64(29))


@njit(inline="always")
def tt_slot(tt: TranspositionTable, key: np.uint64) -> int:
    return np.int64(key & np.uint64(tt.keys.shape[0] - 1))


@njit
def tt_probe(tt: TranspositionTable, key: np.uint64) -> int:
    """Slot holding ``key``, or -1."""
    i = tt_slot(tt, key)
    if tt.depth[i] != EMPTY_DEPTH and tt.keys[i, KEY] == key:
        return i
    return -1


@njit(inline="always")
def tt_read(tt: TranspositionTable, key: np.uint64) -> tuple[bool, int, float, float, int]:
    """The entry of ``key`` as one consistent copy: ``(found, depth, lower, upper,
    move)``; not found when the slot holds another position or is torn (see the module
    docstring). A search that shares the table with other threads takes bounds from
    this alone."""
    i = tt_slot(tt, key)
    if tt.keys[i, KEY] != key:  # a cheap first test: most probes miss
        return False, 0, 0.0, 0.0, 0
    depth = tt.depth[i]
    lower = tt.lower[i]
    upper = tt.upper[i]
    move = tt.move[i]
    # The check decides: it holds only if the four fields and the key were written by
    # one store.
    if depth == EMPTY_DEPTH or tt.keys[i, CHECK] != key ^ entry_hash(depth, lower, upper, move):
        return False, 0, 0.0, 0.0, 0
    return True, depth, lower, upper, move


@njit
def tt_store(
    tt: TranspositionTable, key: np.uint64, depth: int, lower: float, upper: float, move: int
) -> None:
    """Record bounds ``lower <= value <= upper`` of a depth-``depth`` search."""
    i = tt_slot(tt, key)
    tt.meta[STORES] += 1
    old_depth = tt.depth[i]
    if old_depth != EMPTY_DEPTH and tt.keys[i, KEY] == key:
        if depth < old_depth:
            return  # (a torn slot's depth may skip a store: nothing wrong is kept)
        if depth == old_depth:
            # Merged only with an entry checked whole; a torn one is replaced.
            same, _, old_lower, old_upper, old_move = tt_read(tt, key)
            if same:
                new_lower = max(lower, old_lower)
                new_upper = min(upper, old_upper)
                if new_lower <= new_upper:  # the two searches agree: keep the intersection
                    lower, upper = new_lower, new_upper
                if move == tt.meta[NO_MOVE]:
                    move = old_move
    elif old_depth != EMPTY_DEPTH and depth < old_depth and tt.age[i] == tt.meta[GENERATION]:
        return
    if old_depth == EMPTY_DEPTH:
        # Each slot once, so the list never overflows; threads filling one slot at once
        # could list it twice, hence the bound.
        n = tt.meta[FILLED]
        if n < tt.filled.shape[0]:
            tt.filled[n] = i
            tt.meta[FILLED] = n + 1
    tt.keys[i, KEY] = key
    tt.depth[i] = depth
    tt.lower[i] = lower
    tt.upper[i] = upper
    tt.move[i] = move
    tt.age[i] = tt.meta[GENERATION]
    tt.keys[i, CHECK] = key ^ entry_hash(depth, lower, upper, move)


@njit(inline="always")
def tt_cutoff(
    tt: TranspositionTable, slot: int, ply: int, alpha: float, beta: float
) -> tuple[bool, float]:
    """Whether the bounds stored in ``slot`` settle a node at ``ply`` searched with the
    window (alpha, beta), and the value to return if they do (fail-soft)."""
    return bounds_cutoff(tt.lower[slot], tt.upper[slot], ply, alpha, beta)


@njit(inline="always")
def tt_checked_cutoff(
    tt: TranspositionTable, key: np.uint64, depth: int, ply: int, alpha: float, beta: float
) -> tuple[bool, float]:
    """:func:`tt_cutoff` for a table other threads may be writing: the bounds of
    ``key``'s entry from a copy checked whole (:func:`tt_read`), if it is at least
    ``depth`` deep; no cut-off from a torn slot."""
    found, stored_depth, lower, upper, _ = tt_read(tt, key)
    if not found or stored_depth < depth:
        return False, 0.0
    return bounds_cutoff(lower, upper, ply, alpha, beta)


@njit(inline="always")
def bounds_cutoff(
    stored_lower: float, stored_upper: float, ply: int, alpha: float, beta: float
) -> tuple[bool, float]:
    """:func:`tt_cutoff` of bounds read already."""
    lower = value_from_node(stored_lower, ply)
    upper = value_from_node(stored_upper, ply)
    if lower >= beta:
        return True, lower
    if upper <= alpha:
        return True, upper
    if lower == upper:
        return True, lower
    return False, 0.0


@njit(inline="always")
def tt_store_result(
    tt: TranspositionTable,
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
    tt_store(tt, key, depth, value_to_node(lower, ply), value_to_node(upper, ply), move)


def new_search(tt: TranspositionTable) -> None:
    """Start a new search generation: older entries stay usable but yield their slot."""
    tt.meta[GENERATION] += 1


def tt_usage(tt: TranspositionTable) -> int:
    """Number of occupied slots."""
    return int(np.count_nonzero(tt.depth != EMPTY_DEPTH))
