"""Whether a position is quiet: what a static evaluation can be fairly asked to predict.

A node where the side to move can win material at once has a search value one capture
above any static value, and a linear model cannot see that capture. Fitting such nodes
teaches the model the average size of the tactics in the tree, not what a position is
worth: the weights that fire in tactical positions (tempo, mobility, threats) grow into
a bonus for the side to move. ``--quiet-only`` leaves them out of TreeStrap updates.

Quiet here: not in check, no promotion, and no capture that a one-move exchange wins
(a victim worth at least its capturer, or an undefended victim).
"""

from __future__ import annotations

import numpy as np

from treestrap.core.bitboard import square_bb
from treestrap.core.jit import njit
from treestrap.core.move import is_promotion, move_from, move_to
from treestrap.core.movegen import generate_captures
from treestrap.core.piece import NO_PIECE
from treestrap.core.position import Position, in_check, is_attacked, occupied, side_to_move

#: Exchange values by piece type (pawn .. king), in pawns.
EXCHANGE_VALUE = np.array([1, 3, 3, 5, 9, 100], dtype=np.int64)


@njit
def is_quiet(pos: Position, moves: np.ndarray) -> bool:
    """Whether ``pos`` is quiet (module docstring); ``moves`` is scratch space for the
    capture list (at least 256 entries)."""
    if in_check(pos):
        return False
    n = generate_captures(pos, moves)
    them = 1 - side_to_move(pos)
    occ = occupied(pos)
    for i in range(n):
        m = moves[i]
        if is_promotion(m):
            return False
        frm = move_from(m)
        to = move_to(m)
        victim = pos.board[to]
        victim_value = EXCHANGE_VALUE[0] if victim == NO_PIECE else EXCHANGE_VALUE[victim % 6]
        if victim_value >= EXCHANGE_VALUE[pos.board[frm] % 6]:
            return False
        if not is_attacked(pos, to, them, occ ^ square_bb(frm)):
            return False
    return True
