"""Connect Four's kernels for the search family (:mod:`treestrap.search.family`): what
the training alpha-beta, the table walk and the full-tree minimax call as ``game.name``.

Connect Four has no captures, so no quiescence search: a node at the horizon takes its
static value, clipped to the heuristic range (:mod:`treestrap.search.value`). A
finished game scores as a loss for the side to move (``-(9999 - ply)``) or a draw; the
alpha-beta stores it in the table (exact), so the walk reaches it and flags it
``TERMINAL`` (the learning rules leave such nodes out: they have no heuristic value in
search). Moves come in the threat-aware order of
:func:`treestrap.connect4.board.order_moves`, the table's move first.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from treestrap.connect4 import board
from treestrap.connect4.bits import CELLS, WIDTH
from treestrap.connect4.board import (
    LOSS,
    NOT_TERMINAL,
    ST_PLY,
    Position,
    legal_moves,
    make_move,
    position_key,
    terminal_value,
    unmake_move,
)
from treestrap.connect4.evaluator import Connect4Evaluator, add_node, evaluate
from treestrap.core.jit import njit
from treestrap.core.search_tree import TERMINAL
from treestrap.search.scratch import STATS_NB, STOPPED, reset_counters
from treestrap.search.tt import tt_store
from treestrap.search.value import MAX_PLY, clip_value, mated_in, value_to_node

# What the family's searches call as game.name, whether or not this module does.
__all__ = ["add_node", "legal_moves", "make_move", "position_key", "unmake_move"]

#: Column 0 is a move: -1 is none.
NO_MOVE = -1
#: Nodes at depth 0 are the horizon.
HAS_QUIESCENCE = False
#: The deepest search asked for: the board is full after 42 discs.
MAX_DEPTH = CELLS

reset_context = reset_counters


class Connect4Context(NamedTuple):
    """A search's scratch (:mod:`treestrap.search.scratch` says what each field holds)."""

    moves: np.ndarray  # int64[MAX_PLY + 1, WIDTH] move lists by ply
    pv: np.ndarray  # int32[MAX_PLY + 1, MAX_PLY + 1] triangular PV table
    pv_len: np.ndarray  # int32[MAX_PLY + 1]
    stats: np.ndarray  # int64[STATS_NB]


def new_context() -> Connect4Context:
    return Connect4Context(
        moves=np.zeros((MAX_PLY + 1, WIDTH), dtype=np.int64),
        pv=np.zeros((MAX_PLY + 1, MAX_PLY + 1), dtype=np.int32),
        pv_len=np.zeros(MAX_PLY + 1, dtype=np.int32),
        stats=np.zeros(STATS_NB, dtype=np.int64),
    )


def plies_left(pos: Position) -> int:
    """The plies to a full board: no search goes deeper."""
    return CELLS - int(pos.st[ST_PLY])


@njit(inline="always")
def _end_value(pos: Position, ply: int) -> tuple:
    """Whether the game is over, and its value for the side to move at ``ply``."""
    t = terminal_value(pos)
    if t == NOT_TERMINAL:
        return False, 0.0
    return True, mated_in(ply) if t == LOSS else 0.0


@njit(inline="always")
def settled(
    pos: Position, ev: Connect4Evaluator, tt: Any, opts: Any, depth: int, ply: int
) -> tuple:
    """A finished game (stored in the table, exact) or the horizon's static value."""
    over, v = _end_value(pos, ply)
    if over:
        if opts.use_tt and depth > 0:
            node_value = value_to_node(v, ply)
            tt_store(tt, position_key(pos), depth, node_value, node_value, NO_MOVE)
        return True, v
    if depth <= 0:
        return True, clip_value(evaluate(pos, ev))
    return False, 0.0


@njit(inline="always")
def expand(pos: Position, ctx: Connect4Context, ply: int) -> tuple:
    """The moves in the threat-aware order (a game that goes on has one)."""
    return False, 0.0, board.order_moves(pos, ctx.moves[ply])


@njit(inline="always")
def order(pos: Position, ctx: Connect4Context, ply: int, n: int, tt_move: int) -> None:
    """The table's move first, the rest in their order."""
    if tt_move == NO_MOVE:
        return
    moves = ctx.moves[ply]
    for i in range(1, n):
        if moves[i] == tt_move:
            for j in range(i, 0, -1):
                moves[j] = moves[j - 1]
            moves[0] = tt_move
            return


@njit(inline="always")
def next_move(ctx: Connect4Context, ply: int, i: int, n: int) -> int:
    return ctx.moves[ply, i]


# What Connect Four does without: a quiescence search, extensions, killers and history.


@njit(inline="always")
def quiescence_moves(
    pos: Position, ev: Any, ctx: Any, key: Any, ply: int, alpha: float, beta: float
) -> tuple:
    """Never called (no ``HAS_QUIESCENCE``)."""
    return True, 0.0, alpha, 0


@njit(inline="always")
def extension(pos: Position, opts: Any) -> int:
    return 0


@njit(inline="always")
def credit_cutoff(pos: Position, ctx: Any, ply: int, m: int, depth: int, opts: Any) -> None:
    return None


@njit(inline="always")
def walked_flags(pos: Position, ctx: Connect4Context, ply: int) -> tuple:
    """A finished game is flagged ``TERMINAL``, and the walk stops there."""
    over = terminal_value(pos) != NOT_TERMINAL
    return (TERMINAL if over else 0), over


@njit(inline="always")
def node_kind(pos: Position, ctx: Any, lim: Any, ply: int, quiet: bool) -> int:
    return 0


@njit(inline="always")
def minimax_moves(
    pos: Position, ctx: Any, lim: Any, depth: int, ply: int, quiet: bool, h: float, leaf_q: Any
) -> tuple:
    """A minimax node's ``(flags, value, n)``: a finished game (``TERMINAL``), a leaf's
    clipped static value at the horizon or once the search stopped, else its moves."""
    over, value = _end_value(pos, ply)
    if over:
        return TERMINAL, value, -1
    if depth <= 0 or ctx.stats[STOPPED]:
        return 0, clip_value(h), -1
    return 0, -np.inf, board.order_moves(pos, ctx.moves[ply])


@njit(inline="always")
def minimax_extension(pos: Position, lim: Any) -> int:
    return 0
