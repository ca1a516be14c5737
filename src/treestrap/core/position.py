"""The position: plain arrays, plus the queries every other kernel needs.

A :class:`Position` is a named tuple of NumPy arrays, which numba passes to kernels
(and caches) like any tuple; it is mutated in place by ``make_move``/``unmake_move``.

========  ==================  ===============================================
field     dtype, shape        meaning
========  ==================  ===============================================
bb        uint64[14]          bitboard per piece code 0..11, then white (12)
                              and black (13) occupancy
board     int8[64]            piece code per square, ``NO_PIECE`` if empty
st        int64[ST_NB]        scalars, indexed by the ``ST_*`` constants
keys      uint64[HIST+1]      Zobrist key after each ply; current is keys[ply]
rep_keys  uint64[HIST+1]      the key used to find repetitions (see below)
hist      int32[HIST, H_NB]   undo record of each ply made, ``H_*`` columns
tables    uint64[...]         shared lookup tables (:mod:`tables`), read only
========  ==================  ===============================================

Castling rights are four bits: ``WHITE_OO = 1, WHITE_OOO = 2, BLACK_OO = 4,
BLACK_OOO = 8`` (Polyglot's order). The en-passant square is stored only when a pawn
of the side to move stands beside the pushed pawn (Polyglot's rule), else ``-1``.
Because that rule counts an en-passant capture that is illegal (a pinned pawn), the
Polyglot key can tell apart positions that the repetition rule treats as the same;
``rep_keys`` holds the key without the en-passant file in that case.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from treestrap.core.attacks import (
    BISHOP_MAGICS,
    ROOK_MAGICS,
    between,
    bishop_attacks,
    fill_attack_tables,
    king_attacks,
    knight_attacks,
    pawn_attacks,
    rook_attacks,
)
from treestrap.core.bitboard import EMPTY, lsb, pop_lsb, square_bb
from treestrap.core.jit import njit
from treestrap.core.piece import BISHOP, BLACK, KING, KNIGHT, NO_PIECE, PAWN, QUEEN, ROOK, WHITE
from treestrap.core.tables import TABLES_SIZE
from treestrap.core.zobrist import castling_key, ep_key, fill_zobrist, piece_key, side_key

# Scalar slots of ``st``.
ST_SIDE = 0  # colour to move
ST_CASTLING = 1  # castling rights, 4 bits
ST_EP = 2  # en-passant square or -1
ST_HALFMOVE = 3  # plies since the last capture or pawn move (50-move rule)
ST_FULLMOVE = 4  # full move number, starts at 1, increments after black moves
ST_PLY = 5  # plies made since the position was set up (index into keys/hist)
ST_FROM_NULL = 6  # plies since the last null move or set-up (repetition horizon)
ST_NB = 8

# Columns of ``hist``: the state a move destroys, restored by unmake.
H_MOVE = 0
H_CAPTURED = 1
H_CASTLING = 2
H_EP = 3
H_HALFMOVE = 4
H_FULLMOVE = 5
H_FROM_NULL = 6
H_MOVED = 7  # the piece that moved (a pawn for a promotion): what a network's lazy
# accumulator walks back through without a copy of the board
H_NB = 8

#: Plies a position can hold: a game plus a search on top. The longest decisive game
#: on record is under 600 moves (1,200 plies); 4,096 leaves room for a deep search.
MAX_HISTORY = 4096

WHITE_OO = 1
WHITE_OOO = 2
BLACK_OO = 4
BLACK_OOO = 8
ALL_CASTLING = 15

OCC_WHITE = 12
OCC_BLACK = 13


class Position(NamedTuple):
    bb: np.ndarray
    board: np.ndarray
    st: np.ndarray
    keys: np.ndarray
    rep_keys: np.ndarray
    hist: np.ndarray
    tables: np.ndarray


_TABLES: np.ndarray | None = None


def core_tables() -> np.ndarray:
    """The process-wide lookup table array, built on first use (read only)."""
    global _TABLES
    if _TABLES is None:
        T = np.zeros(TABLES_SIZE, dtype=np.uint64)
        fill_attack_tables(T, ROOK_MAGICS, BISHOP_MAGICS)
        fill_zobrist(T)
        T.setflags(write=False)
        _TABLES = T
    return _TABLES


def empty_position() -> Position:
    """A position with no pieces (fill it with :func:`put_piece` and set ``st``)."""
    pos = Position(
        bb=np.zeros(14, dtype=np.uint64),
        board=np.full(64, NO_PIECE, dtype=np.int8),
        st=np.zeros(ST_NB, dtype=np.int64),
        keys=np.zeros(MAX_HISTORY + 1, dtype=np.uint64),
        rep_keys=np.zeros(MAX_HISTORY + 1, dtype=np.uint64),
        hist=np.zeros((MAX_HISTORY, H_NB), dtype=np.int32),
        tables=core_tables(),
    )
    pos.st[ST_EP] = -1
    pos.st[ST_FULLMOVE] = 1
    return pos


def copy_position(pos: Position) -> Position:
    """An independent copy (the tables are shared, they are read only)."""
    return Position(
        *(a if name == "tables" else a.copy() for name, a in zip(pos._fields, pos, strict=True))
    )


# --- piece placement (no hashing: make_move keeps the key itself) --------------------


@njit(inline="always")
def put_piece(pos: Position, piece: int, sq: int) -> None:
    b = square_bb(sq)
    pos.bb[piece] |= b
    pos.bb[OCC_WHITE + piece // 6] |= b
    pos.board[sq] = piece


@njit(inline="always")
def remove_piece(pos: Position, sq: int) -> None:
    piece = np.int64(pos.board[sq])
    b = square_bb(sq)
    pos.bb[piece] ^= b
    pos.bb[OCC_WHITE + piece // 6] ^= b
    pos.board[sq] = NO_PIECE


@njit(inline="always")
def move_piece(pos: Position, frm: int, to: int) -> None:
    piece = np.int64(pos.board[frm])
    b = square_bb(frm) | square_bb(to)
    pos.bb[piece] ^= b
    pos.bb[OCC_WHITE + piece // 6] ^= b
    pos.board[frm] = NO_PIECE
    pos.board[to] = piece


# --- queries ---------------------------------------------------------------------


@njit(inline="always")
def side_to_move(pos: Position) -> int:
    return pos.st[ST_SIDE]


@njit(inline="always")
def occupied(pos: Position) -> np.uint64:
    return pos.bb[OCC_WHITE] | pos.bb[OCC_BLACK]


@njit(inline="always")
def pieces_of(pos: Position, color: int) -> np.uint64:
    return pos.bb[OCC_WHITE + color]


@njit(inline="always")
def piece_bb(pos: Position, color: int, ptype: int) -> np.uint64:
    return pos.bb[color * 6 + ptype]


@njit(inline="always")
def king_square(pos: Position, color: int) -> int:
    return lsb(pos.bb[color * 6 + KING])


@njit(inline="always")
def current_key(pos: Position) -> np.uint64:
    return pos.keys[pos.st[ST_PLY]]


@njit
def attackers_to(pos: Position, sq: int, occ: np.uint64) -> np.uint64:
    """Pieces of both colours attacking ``sq`` given occupancy ``occ``."""
    T = pos.tables
    bb = pos.bb
    rooks = bb[ROOK] | bb[QUEEN] | bb[6 + ROOK] | bb[6 + QUEEN]
    bishops = bb[BISHOP] | bb[QUEEN] | bb[6 + BISHOP] | bb[6 + QUEEN]
    return (
        (pawn_attacks(T, BLACK, sq) & bb[PAWN])
        | (pawn_attacks(T, WHITE, sq) & bb[6 + PAWN])
        | (knight_attacks(T, sq) & (bb[KNIGHT] | bb[6 + KNIGHT]))
        | (king_attacks(T, sq) & (bb[KING] | bb[6 + KING]))
        | (rook_attacks(T, sq, occ) & rooks)
        | (bishop_attacks(T, sq, occ) & bishops)
    )


@njit
def is_attacked(pos: Position, sq: int, by: int, occ: np.uint64) -> bool:
    """Whether a piece of colour ``by`` attacks ``sq`` given occupancy ``occ``."""
    T = pos.tables
    o = by * 6
    bb = pos.bb
    if pawn_attacks(T, 1 - by, sq) & bb[o + PAWN]:
        return True
    if knight_attacks(T, sq) & bb[o + KNIGHT]:
        return True
    if king_attacks(T, sq) & bb[o + KING]:
        return True
    if rook_attacks(T, sq, occ) & (bb[o + ROOK] | bb[o + QUEEN]):
        return True
    return (bishop_attacks(T, sq, occ) & (bb[o + BISHOP] | bb[o + QUEEN])) != EMPTY


@njit
def checkers(pos: Position) -> np.uint64:
    """Enemy pieces giving check to the side to move."""
    us = pos.st[ST_SIDE]
    return attackers_to(pos, king_square(pos, us), occupied(pos)) & pos.bb[OCC_WHITE + 1 - us]


@njit
def in_check(pos: Position) -> bool:
    us = pos.st[ST_SIDE]
    return is_attacked(pos, king_square(pos, us), 1 - us, occupied(pos))


@njit
def opponent_in_check(pos: Position) -> bool:
    """Whether the side not to move is in check (an illegal position)."""
    them = 1 - pos.st[ST_SIDE]
    return is_attacked(pos, king_square(pos, them), 1 - them, occupied(pos))


@njit
def pinned(pos: Position, color: int) -> np.uint64:
    """Pieces of ``color`` that are the only blocker between their king and an enemy
    slider (they may move only along that line). Pieces of either colour may pin."""
    T = pos.tables
    bb = pos.bb
    them = 1 - color
    ksq = king_square(pos, color)
    occ = occupied(pos)
    snipers = (rook_attacks(T, ksq, EMPTY) & (bb[them * 6 + ROOK] | bb[them * 6 + QUEEN])) | (
        bishop_attacks(T, ksq, EMPTY) & (bb[them * 6 + BISHOP] | bb[them * 6 + QUEEN])
    )
    result = EMPTY
    while snipers:
        s = lsb(snipers)
        snipers = pop_lsb(snipers)
        blockers = between(T, ksq, s) & occ
        if blockers and not (blockers & (blockers - np.uint64(1))):
            result |= blockers & bb[OCC_WHITE + color]
    return result


@njit
def compute_key(pos: Position) -> np.uint64:
    """The Polyglot key recomputed from scratch (make_move keeps it incrementally)."""
    T = pos.tables
    key = EMPTY
    for sq in range(64):
        p = np.int64(pos.board[sq])
        if p != NO_PIECE:
            key ^= piece_key(T, p, sq)
    key ^= castling_key(T, pos.st[ST_CASTLING])
    if pos.st[ST_EP] >= 0:
        key ^= ep_key(T, pos.st[ST_EP])
    if pos.st[ST_SIDE] == WHITE:
        key ^= side_key(T)
    return key


@njit
def ep_capturable(pos: Position, ep: int, us: int) -> bool:
    """Whether a pawn of ``us`` stands beside the pawn that just passed ``ep``
    (Polyglot's condition for hashing the en-passant file)."""
    return (pawn_attacks(pos.tables, 1 - us, ep) & pos.bb[us * 6 + PAWN]) != EMPTY


@njit
def has_legal_ep(pos: Position) -> bool:
    """Whether an en-passant capture is legal now (not only possible on paper)."""
    ep = pos.st[ST_EP]
    if ep < 0:
        return False
    T = pos.tables
    us = pos.st[ST_SIDE]
    them = 1 - us
    ksq = king_square(pos, us)
    captured = ep - 8 if us == WHITE else ep + 8
    occ = occupied(pos)
    them_occ = pos.bb[OCC_WHITE + them]
    pawns = pawn_attacks(T, them, ep) & pos.bb[us * 6 + PAWN]
    while pawns:
        frm = lsb(pawns)
        pawns = pop_lsb(pawns)
        after = (occ ^ square_bb(frm) ^ square_bb(captured)) | square_bb(ep)
        if not (attackers_to(pos, ksq, after) & them_occ & ~square_bb(captured)):
            return True
    return False


@njit
def repetition_key(pos: Position, key: np.uint64) -> np.uint64:
    """``key`` without the en-passant file when no en-passant capture is legal."""
    if pos.st[ST_EP] >= 0 and not has_legal_ep(pos):
        return key ^ ep_key(pos.tables, pos.st[ST_EP])
    return key
