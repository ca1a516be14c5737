"""Tic-tac-toe's compiled kernels: the board, its evaluators (linear and a network) and
what the search family calls as ``game.name`` (:mod:`treestrap.search.family`).

A game registered by the test suite alone (:mod:`tictactoe_game`), to show that a game
is one registration. Cells are numbered 0-8 row by row from the top left; a position
is two 9-bit masks (the first player's, X, and the second's, O), the cells played and
the ply. The key is the two masks mixed by a bijection, so no two positions share one.
"""

from __future__ import annotations

import math
import sys
from typing import NamedTuple

import numpy as np

from treestrap.core.jit import njit
from treestrap.core.search_tree import SearchTree, new_tree
from treestrap.search.plain_kernels import PlainContext, instantiate_plain, new_plain_context
from treestrap.search.scratch import reset_counters
from treestrap.search.value import MAX_PLY, mated_in

CELLS = 9
LINES = np.array([0o7, 0o70, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124], dtype=np.int64)
#: ``terminal_value`` for the side to move, and while the game goes on.
LOSS, DRAW, NOT_TERMINAL = -1, 0, 2
#: What the search family reads: no move, the deepest search.
NO_MOVE = -1
MAX_DEPTH = CELLS
reset_context = reset_counters


class Position(NamedTuple):
    marks: np.ndarray  # int64[2]: the first player's cells, the second's, as bits
    moves: np.ndarray  # int64[CELLS]: the cell of each ply played
    ply: np.ndarray  # int64[1]


def new_position() -> Position:
    z = np.zeros
    return Position(z(2, dtype=np.int64), z(CELLS, dtype=np.int64), z(1, dtype=np.int64))


def copy_position(pos: Position) -> Position:
    return Position(*(a.copy() for a in pos))


def plies_left(pos: Position) -> int:
    return CELLS - int(pos.ply[0])


@njit(inline="always")
def side_to_move(pos: Position) -> int:
    return pos.ply[0] & 1


@njit(inline="always")
def position_key(pos: Position) -> np.uint64:
    """The masks as 18 bits, times an odd constant, xor-shifted: a bijection."""
    k = np.uint64(pos.marks[0] | (pos.marks[1] << 9)) * np.uint64(0x9E3779B97F4A7C15)
    return k ^ (k >> np.uint64(29))


@njit
def legal_moves(pos: Position, buffer: np.ndarray) -> int:
    taken, n = pos.marks[0] | pos.marks[1], 0
    for cell in range(CELLS):
        if not (taken >> cell) & 1:
            buffer[n] = cell
            n += 1
    return n


@njit
def make_move(pos: Position, move: int) -> None:
    ply = pos.ply[0]
    pos.marks[ply & 1] |= 1 << move
    pos.moves[ply] = move
    pos.ply[0] = ply + 1


@njit
def unmake_move(pos: Position) -> None:
    ply = pos.ply[0] - 1
    pos.marks[ply & 1] &= ~(1 << pos.moves[ply])
    pos.ply[0] = ply


@njit(inline="always")
def terminal_value(pos: Position) -> int:
    """LOSS once the player who just moved has three in a row; DRAW on a full board."""
    last = pos.marks[1 - (pos.ply[0] & 1)]
    for line in LINES:
        if last & line == line:
            return LOSS
    return DRAW if pos.ply[0] == CELLS else NOT_TERMINAL


# --- evaluation: linear weights over a few features, or a tanh network -------------

#: The features, for the side to move: marks on the centre, corners and edges (own,
#: then the opponent's), lines held by one side with one or two marks, and the move.
FEATURE_NAMES = [
    *(f"{side}.{kind}" for side in ("own", "opp") for kind in ("centre", "corners", "edges")),
    *(f"{side}.lines{k}" for side in ("own", "opp") for k in (1, 2)),
    "to-move",
]
SIZE = len(FEATURE_NAMES)
KIND_MASKS = np.array([0o020, 0o505, 0o252], dtype=np.int64)
#: The network's inputs: X's cells, O's cells, and 1 when X is to move.
INPUT_NB = 2 * CELLS + 1
MAX_ACTIVE = max(SIZE, CELLS + 1)
#: A network's output ``z`` is this many value units for the first player.
UNITS_PER_LOGIT = 400.0 / math.log(10.0)


class Evaluator(NamedTuple):
    weights: np.ndarray  # float64: linear weights (shared with the model) or parameters
    sizes: np.ndarray  # int64: a network's layer sizes; empty for linear weights
    act: np.ndarray  # float64[2 * widest layer]: a network's activations
    idx: np.ndarray  # int32[MAX_ACTIVE]: the gradient's (a network's: active inputs)
    val: np.ndarray  # float64[MAX_ACTIVE]


def make_evaluator(weights: np.ndarray, sizes: list[int] | None = None) -> Evaluator:
    """Linear ``weights`` (shared, not copied), or with ``sizes`` a network's flat
    parameters (:mod:`treestrap.evaluation.torch_network`'s order)."""
    widest = max(sizes or [0])
    return Evaluator(
        np.asarray(weights, dtype=np.float64),
        np.array(sizes or [], dtype=np.int64),
        np.zeros(2 * widest),
        np.zeros(MAX_ACTIVE, dtype=np.int32),
        np.zeros(MAX_ACTIVE),
    )


@njit(inline="always")
def _popcount(b: int) -> int:
    n = 0
    while b:
        b &= b - 1
        n += 1
    return n


@njit(inline="always")
def _put(idx: np.ndarray, val: np.ndarray, n: int, index: int, value: float) -> int:
    """Append a nonzero pair; returns the new count."""
    if value:
        idx[n], val[n] = index, value
        n += 1
    return n


@njit
def extract(pos: Position, idx: np.ndarray, val: np.ndarray) -> int:
    """The nonzero features into ``idx``, ``val``; returns their count."""
    own, opp = pos.marks[pos.ply[0] & 1], pos.marks[1 - (pos.ply[0] & 1)]
    n = 0
    for side in range(2):
        marks = own if side == 0 else opp
        for kind in range(3):
            n = _put(idx, val, n, 3 * side + kind, _popcount(marks & KIND_MASKS[kind]))
    for k in range(4):  # lines one side holds alone with 1 or 2 marks: own, then opp
        holder, other = (own, opp) if k < 2 else (opp, own)
        held = 0
        for line in LINES:
            held += _popcount(holder & line) == 1 + k % 2 and not other & line
        n = _put(idx, val, n, 6 + k, held)
    return _put(idx, val, n, SIZE - 1, 1.0)


@njit
def active_inputs(pos: Position, idx: np.ndarray) -> int:
    """The network's inputs that are 1, ascending; returns their count."""
    n = 0
    for player in range(2):
        for cell in range(CELLS):
            if (pos.marks[player] >> cell) & 1:
                idx[n] = player * CELLS + cell
                n += 1
    if pos.ply[0] & 1 == 0:
        idx[n] = INPUT_NB - 1
        n += 1
    return n


@njit
def network_value(pos: Position, ev: Evaluator) -> tuple[float, int]:
    """``(H(s), n)``: ``UNITS_PER_LOGIT * z`` for the side to move, its ``n`` active
    inputs left in ``ev.idx`` with ``ev.val`` 1."""
    n = active_inputs(pos, ev.idx)
    w, a, half = ev.weights, ev.act, ev.act.shape[0] // 2
    size = ev.sizes[0]
    bias = INPUT_NB * size  # layer 0 is input-major: one row per input
    for i in range(n):
        ev.val[i] = 1.0
    for j in range(size):
        a[j] = w[bias + j]
        for i in range(n):
            a[j] += w[ev.idx[i] * size + j]
    at, fan_in, src = bias + size, size, 0
    for layer in range(1, ev.sizes.shape[0]):
        size, dst = ev.sizes[layer], half - src
        for j in range(fan_in):
            a[src + j] = math.tanh(a[src + j])
        bias = at + size * fan_in  # the others out-major
        for o in range(size):
            total = w[bias + o]
            for j in range(fan_in):
                total += w[at + o * fan_in + j] * a[src + j]
            a[dst + o] = total
        at, fan_in, src = bias + size, size, dst
    v = UNITS_PER_LOGIT * a[src]
    return (v if pos.ply[0] & 1 == 0 else -v), n


@njit
def evaluate_gradient(pos: Position, ev: Evaluator) -> tuple[float, int]:
    """``(H(s), n)`` for the side to move, the gradient's pairs in ``ev.idx``, ``ev.val``."""
    if ev.sizes.shape[0]:
        return network_value(pos, ev)
    n = extract(pos, ev.idx, ev.val)
    total = 0.0
    for i in range(n):
        total += ev.weights[ev.idx[i]] * ev.val[i]
    return total, n


@njit
def evaluate(pos: Position, ev: Evaluator) -> float:
    return evaluate_gradient(pos, ev)[0]


def new_record(capacity: int) -> SearchTree:
    return new_tree(capacity, MAX_ACTIVE, MAX_ACTIVE)


# --- the search family's kernels: a game without captures (search/plain_kernels.py) ---

ordered_moves = legal_moves  # in cell order


def new_context() -> PlainContext:
    return new_plain_context(MAX_PLY, CELLS)


@njit(inline="always")
def end_value(pos: Position, ply: int) -> tuple[bool, float]:
    t = terminal_value(pos)
    if t == NOT_TERMINAL:
        return False, 0.0
    return True, mated_in(ply) if t == LOSS else 0.0


instantiate_plain(sys.modules[__name__])
