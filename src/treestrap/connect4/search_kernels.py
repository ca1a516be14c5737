"""Connect Four's kernels for the search family (:mod:`treestrap.search.family`): what
the training alpha-beta, the table walk and the full-tree minimax call as ``game.name``.

Connect Four has no captures, so no quiescence search: a node at the horizon takes its
static value, clipped to the heuristic range (:mod:`treestrap.search.value`). A
finished game scores as a loss for the side to move (``-(9999 - ply)``) or a draw; the
alpha-beta stores it in the table (exact), so the walk reaches it and flags it
``TERMINAL`` (the learning rules leave such nodes out: they have no heuristic value in
search). Moves come in the threat-aware order of
:func:`treestrap.connect4.board.order_moves`, the table's move first. The kernels of a
game without captures are the family's own (:mod:`treestrap.search.plain_kernels`);
this module gives them Connect Four's end, order and evaluation.
"""

from __future__ import annotations

import sys

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
from treestrap.connect4.evaluator import evaluate, evaluate_gradient
from treestrap.core.jit import njit
from treestrap.search.plain_kernels import PlainContext, instantiate_plain, new_plain_context
from treestrap.search.scratch import reset_counters
from treestrap.search.value import MAX_PLY, mated_in

# What the family's searches call as game.name, whether or not this module does.
__all__ = [
    "evaluate",
    "evaluate_gradient",
    "legal_moves",
    "make_move",
    "position_key",
    "unmake_move",
]

#: Column 0 is a move: -1 is none.
NO_MOVE = -1
#: The deepest search asked for: the board is full after 42 discs.
MAX_DEPTH = CELLS

reset_context = reset_counters
#: Its moves in the threat-aware order.
ordered_moves = board.order_moves


def new_context() -> PlainContext:
    return new_plain_context(MAX_PLY, WIDTH)


def plies_left(pos: Position) -> int:
    """The plies to a full board: no search goes deeper."""
    return CELLS - int(pos.st[ST_PLY])


@njit(inline="always")
def end_value(pos: Position, ply: int) -> tuple:
    """Whether the game is over, and its value for the side to move at ``ply``."""
    t = terminal_value(pos)
    if t == NOT_TERMINAL:
        return False, 0.0
    return True, mated_in(ply) if t == LOSS else 0.0


instantiate_plain(sys.modules[__name__])
