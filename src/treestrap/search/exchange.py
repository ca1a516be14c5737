"""Static exchange evaluation: what a capture wins on its square when both sides go on
recapturing there with their least valuable piece, each free to stop.

The tournament search uses it to skip losing captures in quiescence (a knight taking a
defended pawn), which otherwise make up much of the quiescence tree. Classical piece
values; the weights being learned play no part, so it is a pruning rule, not an
evaluation. Pins are ignored, as is usual for this test.
"""

from __future__ import annotations

from treestrap.core.attacks import bishop_attacks, rook_attacks
from treestrap.core.bitboard import lsb, square_bb
from treestrap.core.jit import njit
from treestrap.core.move import (
    EP_CAPTURE,
    PROMOTION,
    captured_square,
    is_castling,
    move_flag,
    move_from,
    move_to,
)
from treestrap.core.piece import BISHOP, KING, NO_PIECE, PAWN, QUEEN, ROOK
from treestrap.core.position import OCC_WHITE, Position, attackers_to

#: Classical piece values, pawn .. king, for pruning decisions only (exchanges here,
#: delta pruning in the tournament search); no exchange ever wins the king's.
EXCHANGE_VALUE = (100, 320, 330, 500, 900, 20_000)


@njit
def exchange_at_least(pos: Position, move: int, threshold: int) -> bool:
    """Whether ``move`` wins at least ``threshold`` (classical units, pawn 100) once
    the exchange on its destination is played out, both sides recapturing with their
    least valuable piece and free to stop. Castling and promotions count as even
    exchanges (worth 0)."""
    flag = move_flag(move)
    if is_castling(move) or flag & PROMOTION:
        return threshold <= 0
    frm = move_from(move)
    to = move_to(move)
    bb = pos.bb
    T = pos.tables
    mover = pos.board[frm] // 6
    occ = bb[OCC_WHITE] | bb[OCC_WHITE + 1]
    victim = pos.board[to]
    if flag == EP_CAPTURE:
        victim = PAWN
        occ ^= square_bb(captured_square(move, mover))
    # ``balance``: the mover's result less the threshold if the exchange stopped now;
    # ``on``: the value of the piece standing on the square, the next one to be taken.
    balance = (0 if victim == NO_PIECE else EXCHANGE_VALUE[victim % 6]) - threshold
    if balance < 0:
        return False
    on = EXCHANGE_VALUE[pos.board[frm] % 6]
    occ ^= square_bb(frm)
    diagonal = bb[BISHOP] | bb[QUEEN] | bb[6 + BISHOP] | bb[6 + QUEEN]
    straight = bb[ROOK] | bb[QUEEN] | bb[6 + ROOK] | bb[6 + QUEEN]
    attackers = attackers_to(pos, to, occ) & occ
    side = 1 - mover
    # The opponent moves while balance >= 0 and takes only to bring it below 0; the
    # mover moves while balance < 0 and takes only to bring it back to 0 or more.
    while True:
        mine = attackers & bb[OCC_WHITE + side]
        if not mine:
            return side != mover
        ptype = PAWN
        while not (mine & bb[side * 6 + ptype]):
            ptype += 1
        if ptype == KING and attackers & bb[OCC_WHITE + 1 - side]:
            return side != mover  # the king may not take a defended piece
        if side != mover:
            if balance - on >= 0:
                return True
            balance -= on
        else:
            if balance + on < 0:
                return False
            balance += on
        on = EXCHANGE_VALUE[ptype]
        occ ^= square_bb(lsb(mine & bb[side * 6 + ptype]))
        if ptype == PAWN or ptype == BISHOP or ptype == QUEEN:
            attackers |= bishop_attacks(T, to, occ) & diagonal
        if ptype == ROOK or ptype == QUEEN:
            attackers |= rook_attacks(T, to, occ) & straight
        attackers &= occ
        side = 1 - side
