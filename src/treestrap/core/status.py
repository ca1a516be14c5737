"""Game status: checkmate, stalemate and the draw rules.

Repetitions are found from the key history: a position can only repeat one found an
even number of plies earlier, with no capture, pawn move or null move in between
(``min(halfmove clock, plies since null/set-up)`` bounds the look-back).
"""

from __future__ import annotations

import numpy as np

from treestrap.core.bitboard import DARK_SQUARES, EMPTY, popcount
from treestrap.core.jit import njit
from treestrap.core.move import MAX_MOVES
from treestrap.core.movegen import generate_moves
from treestrap.core.piece import BISHOP, KING, KNIGHT, PAWN, QUEEN, ROOK
from treestrap.core.position import (
    OCC_WHITE,
    ST_FROM_NULL,
    ST_HALFMOVE,
    ST_PLY,
    Position,
    in_check,
)

ONGOING = 0
CHECKMATE = 1
STALEMATE = 2
INSUFFICIENT_MATERIAL = 3
FIFTY_MOVES = 4
THREEFOLD_REPETITION = 5

STATUS_NAMES = (
    "ongoing",
    "checkmate",
    "stalemate",
    "insufficient material",
    "fifty-move rule",
    "threefold repetition",
)


@njit
def repetition_count(pos: Position) -> int:
    """How many times the current position has occurred (1 if it is new)."""
    ply = pos.st[ST_PLY]
    key = pos.rep_keys[ply]
    horizon = min(pos.st[ST_HALFMOVE], pos.st[ST_FROM_NULL])
    count = 1
    # Two plies back never matches: each side would have to undo its move in one move.
    for back in range(4, horizon + 1, 2):
        if pos.rep_keys[ply - back] == key:
            count += 1
    return count


@njit
def is_repetition(pos: Position) -> bool:
    """Whether the current position occurred before (the search's draw test)."""
    ply = pos.st[ST_PLY]
    key = pos.rep_keys[ply]
    horizon = min(pos.st[ST_HALFMOVE], pos.st[ST_FROM_NULL])
    for back in range(4, horizon + 1, 2):
        if pos.rep_keys[ply - back] == key:
            return True
    return False


@njit
def _side_insufficient(pos: Position, color: int) -> bool:
    """Whether ``color`` can never mate, whatever the opponent does (FIDE's dead
    position, judged from material and bishop square colours as python-chess does)."""
    bb = pos.bb
    own = bb[OCC_WHITE + color]
    them = 1 - color
    pawns = bb[PAWN] | bb[6 + PAWN]
    if own & (bb[color * 6 + PAWN] | bb[color * 6 + ROOK] | bb[color * 6 + QUEEN]):
        return False
    if own & bb[color * 6 + KNIGHT]:
        # A lone knight, and no enemy piece that could block its own king into mate.
        other = bb[OCC_WHITE + them] & ~(bb[them * 6 + KING] | bb[them * 6 + QUEEN])
        return popcount(own) <= 2 and other == EMPTY
    if own & bb[color * 6 + BISHOP]:
        bishops = bb[BISHOP] | bb[6 + BISHOP]
        same_colour = (bishops & DARK_SQUARES) == EMPTY or (bishops & ~DARK_SQUARES) == EMPTY
        return same_colour and pawns == EMPTY and (bb[KNIGHT] | bb[6 + KNIGHT]) == EMPTY
    return True


@njit
def is_insufficient_material(pos: Position) -> bool:
    return _side_insufficient(pos, 0) and _side_insufficient(pos, 1)


@njit
def game_status(pos: Position, moves: np.ndarray) -> int:
    """One of ``ONGOING, CHECKMATE, STALEMATE, INSUFFICIENT_MATERIAL, FIFTY_MOVES,
    THREEFOLD_REPETITION``; ``moves`` is scratch space of ``MAX_MOVES``.

    Mate and stalemate come first (a mate on the 100th half-move stands); draws by
    rule are those a player may claim (50 moves, threefold), as engines and match
    runners apply them.
    """
    if generate_moves(pos, moves) == 0:
        return CHECKMATE if in_check(pos) else STALEMATE
    if is_insufficient_material(pos):
        return INSUFFICIENT_MATERIAL
    if pos.st[ST_HALFMOVE] >= 100:
        return FIFTY_MOVES
    if repetition_count(pos) >= 3:
        return THREEFOLD_REPETITION
    return ONGOING


def new_move_buffer() -> np.ndarray:
    return np.zeros(MAX_MOVES, dtype=np.int32)
