"""Legal move generation into a caller-owned buffer.

Every generator takes a position and an int32 array of at least ``MAX_MOVES`` slots,
writes legal moves from index 0 and returns how many it wrote (Stockfish's
contract). Legality is decided while generating, from the checkers and the pinned
pieces, so no move needs to be made and taken back to be tested:

* in double check only the king moves;
* in single check other pieces must capture the checker or block its line;
* a pinned piece stays on the line through its king and the pinner;
* the king never steps onto an attacked square (tested with the king lifted off
  the board, so it cannot hide behind itself from a slider);
* en passant, which removes two pieces from one rank, is tested by playing it on the
  occupancy and asking whether the king is then attacked.
"""

from __future__ import annotations

import numpy as np

from treestrap.core.attacks import (
    between,
    bishop_attacks,
    king_attacks,
    knight_attacks,
    line,
    pawn_attacks,
    rook_attacks,
)
from treestrap.core.bitboard import (
    EMPTY,
    FULL,
    RANK_1,
    RANK_8,
    lsb,
    more_than_one,
    pop_lsb,
    square_bb,
)
from treestrap.core.jit import njit
from treestrap.core.move import (
    CAPTURE,
    DOUBLE_PUSH,
    EP_CAPTURE,
    KING_CASTLE,
    PROMO_CAPTURE,
    PROMOTION,
    QUEEN_CASTLE,
    QUIET,
    encode_move,
)
from treestrap.core.piece import BISHOP, KING, KNIGHT, PAWN, QUEEN, ROOK, WHITE
from treestrap.core.position import (
    BLACK_OO,
    BLACK_OOO,
    OCC_WHITE,
    ST_CASTLING,
    ST_EP,
    ST_SIDE,
    WHITE_OO,
    WHITE_OOO,
    Position,
    attackers_to,
    is_attacked,
    pinned,
)

# The kings' squares before castling (a1 = 0); the rooks start three squares to the
# right (h-file) and four to the left (a-file).
_E1, _E8 = 4, 60


@njit(inline="always")
def _castling_path_clear(
    pos: Position, them: int, occ: np.uint64, king: int, rook: int, step: int
) -> bool:
    """Nothing stands between ``king`` and ``rook``, and neither the square the king
    crosses (``king + step``) nor the one it lands on is attacked."""
    return (
        not (occ & between(pos.tables, king, rook))
        and not is_attacked(pos, king + step, them, occ)
        and not is_attacked(pos, king + 2 * step, them, occ)
    )


@njit(inline="always")
def _add_targets(moves: np.ndarray, n: int, frm: int, dest: np.uint64, them_occ: np.uint64) -> int:
    while dest:
        to = lsb(dest)
        dest = pop_lsb(dest)
        flag = CAPTURE if them_occ & square_bb(to) else QUIET
        moves[n] = encode_move(frm, to, flag)
        n += 1
    return n


@njit(inline="always")
def _add_promotions(moves: np.ndarray, n: int, frm: int, to: int, capture: bool) -> int:
    base = PROMO_CAPTURE if capture else PROMOTION
    for k in range(3, -1, -1):  # queen first: the usual best
        moves[n] = encode_move(frm, to, base + k)
        n += 1
    return n


@njit
def _generate(pos: Position, moves: np.ndarray, captures_only: bool) -> int:
    T = pos.tables
    bb = pos.bb
    us = pos.st[ST_SIDE]
    them = 1 - us
    us_occ = bb[OCC_WHITE + us]
    them_occ = bb[OCC_WHITE + them]
    occ = us_occ | them_occ
    ksq = lsb(bb[us * 6 + KING])
    checking = attackers_to(pos, ksq, occ) & them_occ
    n = 0

    # King moves, tested with the king lifted off the board.
    dest = king_attacks(T, ksq) & ~us_occ
    if captures_only:
        dest &= them_occ
    occ_no_king = occ ^ square_bb(ksq)
    while dest:
        to = lsb(dest)
        dest = pop_lsb(dest)
        if not is_attacked(pos, to, them, occ_no_king):
            flag = CAPTURE if them_occ & square_bb(to) else QUIET
            moves[n] = encode_move(ksq, to, flag)
            n += 1
    if more_than_one(checking):
        return n

    # Squares other pieces may go to: anywhere not ours, or, in check, onto the
    # checker or between it and the king.
    target = ~us_occ
    if checking:
        target = between(T, ksq, lsb(checking)) | checking
    empty_target = target & ~occ
    quiet_target = EMPTY if captures_only else empty_target
    piece_target = (target & them_occ) | quiet_target
    pins = pinned(pos, us)

    # Knights: a pinned knight can never move.
    pieces = bb[us * 6 + KNIGHT] & ~pins
    while pieces:
        frm = lsb(pieces)
        pieces = pop_lsb(pieces)
        n = _add_targets(moves, n, frm, knight_attacks(T, frm) & piece_target, them_occ)

    # Sliders.
    diag = bb[us * 6 + BISHOP] | bb[us * 6 + QUEEN]
    while diag:
        frm = lsb(diag)
        diag = pop_lsb(diag)
        dest = bishop_attacks(T, frm, occ) & piece_target
        if pins & square_bb(frm):
            dest &= line(T, ksq, frm)
        n = _add_targets(moves, n, frm, dest, them_occ)
    orth = bb[us * 6 + ROOK] | bb[us * 6 + QUEEN]
    while orth:
        frm = lsb(orth)
        orth = pop_lsb(orth)
        dest = rook_attacks(T, frm, occ) & piece_target
        if pins & square_bb(frm):
            dest &= line(T, ksq, frm)
        n = _add_targets(moves, n, frm, dest, them_occ)

    # Pawns.
    up = 8 if us == WHITE else -8
    last_rank = RANK_8 if us == WHITE else RANK_1
    start_rank_lo, start_rank_hi = (8, 15) if us == WHITE else (48, 55)
    ep = pos.st[ST_EP]
    pawns = bb[us * 6 + PAWN]
    while pawns:
        frm = lsb(pawns)
        pawns = pop_lsb(pawns)
        legal = line(T, ksq, frm) if pins & square_bb(frm) else FULL
        one = frm + up
        one_bb = square_bb(one)
        if not (occ & one_bb):
            if one_bb & last_rank:
                if one_bb & empty_target & legal:
                    n = _add_promotions(moves, n, frm, one, False)
            else:
                if one_bb & quiet_target & legal:
                    moves[n] = encode_move(frm, one, QUIET)
                    n += 1
                if start_rank_lo <= frm <= start_rank_hi:
                    two = one + up
                    two_bb = square_bb(two)
                    if not (occ & two_bb) and (two_bb & quiet_target & legal):
                        moves[n] = encode_move(frm, two, DOUBLE_PUSH)
                        n += 1
        caps = pawn_attacks(T, us, frm) & them_occ & target & legal
        while caps:
            to = lsb(caps)
            caps = pop_lsb(caps)
            if square_bb(to) & last_rank:
                n = _add_promotions(moves, n, frm, to, True)
            else:
                moves[n] = encode_move(frm, to, CAPTURE)
                n += 1
        if ep >= 0 and pawn_attacks(T, us, frm) & square_bb(ep):
            # Play the capture on the occupancy; legal if our king is then safe.
            captured = ep - up
            after = (occ ^ square_bb(frm) ^ square_bb(captured)) | square_bb(ep)
            attackers = attackers_to(pos, ksq, after) & them_occ & ~square_bb(captured)
            if not attackers:
                moves[n] = encode_move(frm, ep, EP_CAPTURE)
                n += 1

    # Castling: never out of check, never through or onto an attacked square.
    if not captures_only and not checking:
        rights = pos.st[ST_CASTLING]
        king = _E1 if us == WHITE else _E8
        oo, ooo = (WHITE_OO, WHITE_OOO) if us == WHITE else (BLACK_OO, BLACK_OOO)
        if rights & oo and _castling_path_clear(pos, them, occ, king, king + 3, 1):
            moves[n] = encode_move(king, king + 2, KING_CASTLE)
            n += 1
        if rights & ooo and _castling_path_clear(pos, them, occ, king, king - 4, -1):
            moves[n] = encode_move(king, king - 2, QUEEN_CASTLE)
            n += 1
    return n


@njit
def generate_moves(pos: Position, moves: np.ndarray) -> int:
    """All legal moves; returns the count written to ``moves``."""
    return _generate(pos, moves, False)


@njit
def generate_captures(pos: Position, moves: np.ndarray) -> int:
    """Legal captures (en passant included) and all promotions; in check, only
    those that also evade the check. The move set of a quiescence search."""
    return _generate(pos, moves, True)


@njit
def generate_evasions(pos: Position, moves: np.ndarray) -> int:
    """All legal moves of a position whose side to move is in check; 0 otherwise."""
    us = pos.st[ST_SIDE]
    ksq = lsb(pos.bb[us * 6 + KING])
    occ = pos.bb[OCC_WHITE] | pos.bb[OCC_WHITE + 1]
    if not is_attacked(pos, ksq, 1 - us, occ):
        return 0
    return _generate(pos, moves, False)
