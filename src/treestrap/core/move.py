"""The compact move encoding: one 16-bit integer per move (stored as int32).

====== ======= =====================================================
bits   field   meaning
====== ======= =====================================================
0-5    from    origin square (a1 = 0 ... h8 = 63)
6-11   to      destination square (the king's square for castling)
12-15  flag    kind of move, below
====== ======= =====================================================

Flags: 0 quiet, 1 double pawn push, 2 king-side castle, 3 queen-side castle,
4 capture, 5 en-passant capture, 8-11 promotion to knight, bishop, rook, queen,
12-15 capture with promotion to knight, bishop, rook, queen. Hence
``flag & 4`` marks every capture, ``flag & 8`` every promotion, and the promoted
type is ``(flag & 3) + KNIGHT``. ``NULL_MOVE = 0`` (a1a1) is never a legal move.
Castling is written as the king's two-square move, as in UCI (``e1g1``).
"""

from __future__ import annotations

from treestrap.core.bitboard import parse_square, square_name
from treestrap.core.jit import njit
from treestrap.core.piece import KNIGHT, WHITE

Move = int

NULL_MOVE = 0
QUIET = 0
DOUBLE_PUSH = 1
KING_CASTLE = 2
QUEEN_CASTLE = 3
CAPTURE = 4
EP_CAPTURE = 5
PROMOTION = 8
PROMO_KNIGHT = 8
PROMO_BISHOP = 9
PROMO_ROOK = 10
PROMO_QUEEN = 11
PROMO_CAPTURE = 12

#: Longest legal move list in any position is 218; 256 leaves slack.
MAX_MOVES = 256


@njit(inline="always")
def encode_move(frm: int, to: int, flag: int) -> int:
    return frm | (to << 6) | (flag << 12)


@njit(inline="always")
def move_from(m: int) -> int:
    return m & 63


@njit(inline="always")
def move_to(m: int) -> int:
    return (m >> 6) & 63


@njit(inline="always")
def move_flag(m: int) -> int:
    return (m >> 12) & 15


@njit(inline="always")
def is_capture(m: int) -> bool:
    return (m & 0x4000) != 0


@njit(inline="always")
def is_promotion(m: int) -> bool:
    return (m & 0x8000) != 0


@njit(inline="always")
def promotion_type(m: int) -> int:
    """Piece type a promotion creates (only meaningful when ``is_promotion``)."""
    return ((m >> 12) & 3) + KNIGHT


@njit(inline="always")
def is_castling(m: int) -> bool:
    flag = move_flag(m)
    return flag == KING_CASTLE or flag == QUEEN_CASTLE


@njit(inline="always")
def captured_square(m: int, us: int) -> int:
    """The square of the piece a capture by side ``us`` takes: the destination, or the
    pawn passed by an en-passant capture."""
    to = move_to(m)
    if move_flag(m) != EP_CAPTURE:
        return to
    return to - 8 if us == WHITE else to + 8


@njit(inline="always")
def castling_rook_squares(m: int) -> tuple[int, int]:
    """The rook's origin and destination in a castling move (only meaningful when
    ``is_castling``)."""
    frm = move_from(m)
    if move_flag(m) == KING_CASTLE:
        return frm + 3, frm + 1
    return frm - 4, frm - 1


def move_to_uci(m: int) -> str:
    """``e2e4``, ``e7e8q``; ``0000`` for the null move."""
    if m == NULL_MOVE:
        return "0000"
    s = square_name(m & 63) + square_name((m >> 6) & 63)
    if m & 0x8000:
        s += "nbrq"[(m >> 12) & 3]
    return s


def uci_parts(text: str) -> tuple[int, int, int | None]:
    """Split a UCI move string into (from, to, promotion type or None).

    Raises ``ValueError`` for text that is not a UCI move; legality is not checked.
    """
    if len(text) not in (4, 5):
        raise ValueError(f"not a UCI move: {text!r}")
    frm, to = parse_square(text[0:2]), parse_square(text[2:4])
    promo = None
    if len(text) == 5:
        if text[4] not in "nbrq":
            raise ValueError(f"bad promotion piece in UCI move: {text!r}")
        promo = "nbrq".index(text[4]) + KNIGHT
    return frm, to, promo
