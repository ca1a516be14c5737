"""Playing and taking back moves in place, with the Zobrist key kept incrementally.

``make_move`` pushes the state it destroys onto ``pos.hist`` and the new key onto
``pos.keys``; ``unmake_move`` pops them, so a make followed by an unmake restores every
array exactly. Moves must be legal (from a generator): nothing is checked here.
"""

from __future__ import annotations

import numpy as np

from treestrap.core.jit import njit
from treestrap.core.move import (
    DOUBLE_PUSH,
    captured_square,
    castling_rook_squares,
    is_castling,
    move_flag,
    move_from,
    move_to,
    promotion_type,
)
from treestrap.core.piece import BLACK, NO_PIECE, PAWN
from treestrap.core.position import (
    H_CAPTURED,
    H_CASTLING,
    H_EP,
    H_FROM_NULL,
    H_FULLMOVE,
    H_HALFMOVE,
    H_MOVE,
    H_MOVED,
    ST_CASTLING,
    ST_EP,
    ST_FROM_NULL,
    ST_FULLMOVE,
    ST_HALFMOVE,
    ST_PLY,
    ST_SIDE,
    Position,
    ep_capturable,
    move_piece,
    put_piece,
    remove_piece,
    repetition_key,
)
from treestrap.core.zobrist import castling_key, ep_key, piece_key, side_key

#: Castling rights kept when a piece moves from or to each square: touching a rook's
#: or king's home square drops the rights that depend on it.
_CASTLING_KEEP = np.full(64, 15, dtype=np.int64)
_CASTLING_KEEP[0] = 15 & ~2  # a1: white queen-side
_CASTLING_KEEP[4] = 15 & ~3  # e1: both white
_CASTLING_KEEP[7] = 15 & ~1  # h1: white king-side
_CASTLING_KEEP[56] = 15 & ~8  # a8: black queen-side
_CASTLING_KEEP[60] = 15 & ~12  # e8: both black
_CASTLING_KEEP[63] = 15 & ~4  # h8: black king-side


@njit
def _save_state(pos: Position, move: int, captured: int) -> None:
    ply = pos.st[ST_PLY]
    h = pos.hist[ply]
    h[H_MOVE] = move
    h[H_CAPTURED] = captured
    h[H_CASTLING] = pos.st[ST_CASTLING]
    h[H_EP] = pos.st[ST_EP]
    h[H_HALFMOVE] = pos.st[ST_HALFMOVE]
    h[H_FULLMOVE] = pos.st[ST_FULLMOVE]
    h[H_FROM_NULL] = pos.st[ST_FROM_NULL]


@njit
def _restore_state(pos: Position) -> int:
    """Pop one ply of history; returns the ply index popped."""
    ply = pos.st[ST_PLY] - 1
    h = pos.hist[ply]
    pos.st[ST_CASTLING] = h[H_CASTLING]
    pos.st[ST_EP] = h[H_EP]
    pos.st[ST_HALFMOVE] = h[H_HALFMOVE]
    pos.st[ST_FULLMOVE] = h[H_FULLMOVE]
    pos.st[ST_FROM_NULL] = h[H_FROM_NULL]
    pos.st[ST_SIDE] ^= 1
    pos.st[ST_PLY] = ply
    pos.keys[ply + 1] = 0  # leave no trace above the stack top: unmake restores exactly
    pos.rep_keys[ply + 1] = 0
    return ply


@njit
def make_move(pos: Position, move: int) -> None:
    """Play a legal ``move`` in place."""
    T = pos.tables
    st = pos.st
    us = st[ST_SIDE]
    frm = move_from(move)
    to = move_to(move)
    flag = move_flag(move)
    piece = np.int64(pos.board[frm])
    cap_sq = captured_square(move, us)
    captured = np.int64(pos.board[cap_sq])

    _save_state(pos, move, captured)
    pos.hist[st[ST_PLY], H_MOVED] = piece
    key = pos.keys[st[ST_PLY]] ^ side_key(T)
    if st[ST_EP] >= 0:
        key ^= ep_key(T, st[ST_EP])
        st[ST_EP] = -1

    st[ST_HALFMOVE] += 1
    if captured != NO_PIECE:
        remove_piece(pos, cap_sq)
        key ^= piece_key(T, captured, cap_sq)
        st[ST_HALFMOVE] = 0

    move_piece(pos, frm, to)
    key ^= piece_key(T, piece, frm) ^ piece_key(T, piece, to)

    if is_castling(move):
        rook_from, rook_to = castling_rook_squares(move)
        rook = np.int64(pos.board[rook_from])
        move_piece(pos, rook_from, rook_to)
        key ^= piece_key(T, rook, rook_from) ^ piece_key(T, rook, rook_to)
    elif piece % 6 == PAWN:
        st[ST_HALFMOVE] = 0
        if flag & 8:  # promotion: swap the pawn for the new piece
            promoted = us * 6 + promotion_type(move)
            remove_piece(pos, to)
            put_piece(pos, promoted, to)
            key ^= piece_key(T, piece, to) ^ piece_key(T, promoted, to)
        elif flag == DOUBLE_PUSH:
            ep = (frm + to) // 2
            if ep_capturable(pos, ep, 1 - us):
                st[ST_EP] = ep
                key ^= ep_key(T, ep)

    rights = st[ST_CASTLING]
    if rights:
        new_rights = rights & _CASTLING_KEEP[frm] & _CASTLING_KEEP[to]
        if new_rights != rights:
            key ^= castling_key(T, rights) ^ castling_key(T, new_rights)
            st[ST_CASTLING] = new_rights

    if us == BLACK:
        st[ST_FULLMOVE] += 1
    st[ST_SIDE] = 1 - us
    st[ST_FROM_NULL] += 1
    st[ST_PLY] += 1
    pos.keys[st[ST_PLY]] = key
    pos.rep_keys[st[ST_PLY]] = repetition_key(pos, key) if st[ST_EP] >= 0 else key


@njit
def unmake_move(pos: Position) -> None:
    """Take back the last move made with :func:`make_move`."""
    ply = _restore_state(pos)
    h = pos.hist[ply]
    move = np.int64(h[H_MOVE])
    captured = np.int64(h[H_CAPTURED])
    for j in range(h.shape[0]):
        h[j] = 0
    us = pos.st[ST_SIDE]
    frm = move_from(move)
    to = move_to(move)
    flag = move_flag(move)

    if flag & 8:  # promotion: the pawn comes back
        remove_piece(pos, to)
        put_piece(pos, us * 6 + PAWN, to)
    move_piece(pos, to, frm)
    if is_castling(move):
        rook_from, rook_to = castling_rook_squares(move)
        move_piece(pos, rook_to, rook_from)
    if captured != NO_PIECE:
        put_piece(pos, captured, captured_square(move, us))


@njit
def make_null_move(pos: Position) -> None:
    """Pass the turn (for null-move pruning). Not legal in check; not checked here."""
    T = pos.tables
    st = pos.st
    _save_state(pos, 0, NO_PIECE)
    key = pos.keys[st[ST_PLY]] ^ side_key(T)
    if st[ST_EP] >= 0:
        key ^= ep_key(T, st[ST_EP])
        st[ST_EP] = -1
    st[ST_HALFMOVE] += 1
    if st[ST_SIDE] == BLACK:
        st[ST_FULLMOVE] += 1  # as python-chess counts a null move
    st[ST_SIDE] ^= 1
    st[ST_FROM_NULL] = 0
    st[ST_PLY] += 1
    pos.keys[st[ST_PLY]] = key
    pos.rep_keys[st[ST_PLY]] = key


@njit
def unmake_null_move(pos: Position) -> None:
    ply = _restore_state(pos)
    pos.hist[ply, :] = 0
