"""Positions and moves as text, and as python-chess objects.

``parse_fen`` validates everything a position needs to be sound for our kernels and
raises ``ValueError`` naming the field at fault; it never returns a broken position.
Accepted: 6 fields, or the first 4 (EPD style; clocks default to ``0 1``).
Rejected: wrong field counts, bad ranks, missing or extra kings, pawns on the first or
last rank, more than 16 pieces or 8 pawns a side, castling rights without the king
and rook at home, an impossible en-passant square, bad clocks (negative, or above
:data:`MAX_CLOCK`), and the side not to move being in check. Positions with an unusual
but harmless check configuration (two checkers on one diagonal) are accepted: perft is
defined there.
"""

from __future__ import annotations

import chess
import numpy as np

from treestrap.core.bitboard import parse_square, square_name
from treestrap.core.move import MAX_MOVES, NULL_MOVE, move_to_uci, uci_parts
from treestrap.core.movegen import generate_moves
from treestrap.core.piece import BLACK, KING, NO_PIECE, PAWN, PIECE_SYMBOLS, ROOK, WHITE
from treestrap.core.position import (
    BLACK_OO,
    BLACK_OOO,
    ST_CASTLING,
    ST_EP,
    ST_FULLMOVE,
    ST_HALFMOVE,
    ST_SIDE,
    WHITE_OO,
    WHITE_OOO,
    Position,
    compute_key,
    empty_position,
    ep_capturable,
    has_legal_ep,
    opponent_in_check,
    put_piece,
    repetition_key,
)

STARTING_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

_CASTLING_LETTERS = {"K": WHITE_OO, "Q": WHITE_OOO, "k": BLACK_OO, "q": BLACK_OOO}
# Each right needs (king square, rook square) of that colour at home.
_CASTLING_HOMES = {"K": (4, 7), "Q": (4, 0), "k": (60, 63), "q": (60, 56)}


def _parse_placement(field: str) -> list[int]:
    ranks = field.split("/")
    if len(ranks) != 8:
        raise ValueError(f"FEN piece placement: expected 8 ranks, got {len(ranks)}: {field!r}")
    board = [NO_PIECE] * 64
    for i, rank_text in enumerate(ranks):
        rank = 7 - i
        file = 0
        for ch in rank_text:
            if ch in "12345678":
                file += int(ch)
            elif ch in PIECE_SYMBOLS:
                if file < 8:
                    board[rank * 8 + file] = PIECE_SYMBOLS.index(ch)
                file += 1
            else:
                raise ValueError(
                    f"FEN piece placement: unknown character {ch!r} in rank {rank + 1}"
                )
        if file != 8:
            raise ValueError(f"FEN piece placement: rank {rank + 1} has {file} squares, expected 8")
    return board


def _check_material(board: list[int]) -> None:
    for color, name in ((WHITE, "white"), (BLACK, "black")):
        kings = sum(1 for p in board if p == color * 6 + KING)
        if kings != 1:
            raise ValueError(f"FEN piece placement: {name} has {kings} kings, expected 1")
        if sum(1 for p in board if p != NO_PIECE and p // 6 == color) > 16:
            raise ValueError(f"FEN piece placement: {name} has more than 16 pieces")
        if sum(1 for p in board if p == color * 6 + PAWN) > 8:
            raise ValueError(f"FEN piece placement: {name} has more than 8 pawns")
    for sq in list(range(8)) + list(range(56, 64)):
        if board[sq] != NO_PIECE and board[sq] % 6 == PAWN:
            raise ValueError(f"FEN piece placement: pawn on the back rank ({square_name(sq)})")


def _parse_castling(field: str, board: list[int]) -> int:
    if field == "-":
        return 0
    rights = 0
    for ch in field:
        if ch not in _CASTLING_LETTERS:
            raise ValueError(f"FEN castling field: unknown letter {ch!r} in {field!r}")
        bit = _CASTLING_LETTERS[ch]
        if rights & bit:
            raise ValueError(f"FEN castling field: {ch!r} given twice in {field!r}")
        color = WHITE if ch.isupper() else BLACK
        king_sq, rook_sq = _CASTLING_HOMES[ch]
        if board[king_sq] != color * 6 + KING or board[rook_sq] != color * 6 + ROOK:
            raise ValueError(
                f"FEN castling field: {ch!r} needs the king on {square_name(king_sq)} "
                f"and the rook on {square_name(rook_sq)}"
            )
        rights |= bit
    return rights


def _parse_ep(field: str, board: list[int], side: int) -> int:
    if field == "-":
        return -1
    try:
        ep = parse_square(field)
    except ValueError:
        raise ValueError(f"FEN en-passant field: not a square: {field!r}") from None
    # The pawn that just moved two squares passed ``ep``: it stands in front of it,
    # ``ep`` and the square it came from are empty.
    if side == WHITE:
        expected_rank, pusher, origin = 5, ep - 8, ep + 8
    else:
        expected_rank, pusher, origin = 2, ep + 8, ep - 8
    if ep // 8 != expected_rank:
        raise ValueError(
            f"FEN en-passant field: {field} is not on rank {expected_rank + 1} "
            f"with {'white' if side == WHITE else 'black'} to move"
        )
    if board[pusher] != (1 - side) * 6 + PAWN or board[ep] != NO_PIECE or board[origin] != NO_PIECE:
        raise ValueError(
            f"FEN en-passant field: no pawn can just have passed {field} "
            f"(needs a pawn on {square_name(pusher)} and {field}, {square_name(origin)} empty)"
        )
    return ep


#: The largest clock value accepted: the move history stores clocks as int32, and no
#: game comes near it (a larger one is a typo or garbage, not a position).
MAX_CLOCK = 1_000_000


def _parse_clock(field: str, name: str, minimum: int) -> int:
    if not (field.isascii() and field.isdigit()) or not minimum <= int(field) <= MAX_CLOCK:
        raise ValueError(
            f"FEN {name}: expected an integer in {minimum}..{MAX_CLOCK}, got {field[:20]!r}"
        )
    return int(field)


def parse_fen(fen: str) -> Position:
    """A validated position from FEN; ``ValueError`` says which field is wrong.

    >>> pos = parse_fen(STARTING_FEN)
    >>> format_fen(pos) == STARTING_FEN
    True
    """
    if not isinstance(fen, str):
        raise ValueError(f"FEN must be a string, got {type(fen).__name__}")
    fields = fen.split()
    if len(fields) not in (4, 5, 6):
        raise ValueError(f"FEN has {len(fields)} fields, expected 6 (or 4 as in EPD): {fen!r}")
    board = _parse_placement(fields[0])
    _check_material(board)
    if fields[1] not in ("w", "b"):
        raise ValueError(f"FEN side to move: expected 'w' or 'b', got {fields[1]!r}")
    side = WHITE if fields[1] == "w" else BLACK
    rights = _parse_castling(fields[2], board)
    ep = _parse_ep(fields[3], board, side)
    halfmove = _parse_clock(fields[4], "halfmove clock", 0) if len(fields) > 4 else 0
    fullmove = _parse_clock(fields[5], "fullmove number", 1) if len(fields) > 5 else 1

    pos = empty_position()
    for sq, piece in enumerate(board):
        if piece != NO_PIECE:
            put_piece(pos, piece, sq)
    pos.st[ST_SIDE] = side
    pos.st[ST_CASTLING] = rights
    pos.st[ST_HALFMOVE] = halfmove
    pos.st[ST_FULLMOVE] = fullmove
    if opponent_in_check(pos):
        raise ValueError(
            f"FEN: the side not to move ({'black' if side == WHITE else 'white'}) is in check"
        )
    if ep >= 0 and ep_capturable(pos, ep, side):
        pos.st[ST_EP] = ep
    pos.keys[0] = compute_key(pos)
    pos.rep_keys[0] = repetition_key(pos, pos.keys[0])
    return pos


def format_fen(pos: Position) -> str:
    """FEN of ``pos``; the en-passant square is written only when an en-passant
    capture is legal (python-chess's default)."""
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            piece = int(pos.board[rank * 8 + file])
            if piece == NO_PIECE:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += PIECE_SYMBOLS[piece]
        rows.append(row + (str(empty) if empty else ""))
    rights = int(pos.st[ST_CASTLING])
    castling = "".join(ch for ch, bit in _CASTLING_LETTERS.items() if rights & bit) or "-"
    ep = square_name(int(pos.st[ST_EP])) if has_legal_ep(pos) else "-"
    side = "w" if pos.st[ST_SIDE] == WHITE else "b"
    return (
        f"{'/'.join(rows)} {side} {castling} {ep} "
        f"{int(pos.st[ST_HALFMOVE])} {int(pos.st[ST_FULLMOVE])}"
    )


def legal_moves(pos: Position) -> list[int]:
    """All legal moves as a Python list of encoded moves."""
    moves = np.zeros(MAX_MOVES, dtype=np.int32)
    n = generate_moves(pos, moves)
    return [int(m) for m in moves[:n]]


def parse_uci_move(pos: Position, text: str) -> int:
    """The legal move written ``text`` in UCI (``e2e4``, ``e7e8q``, ``e1g1``).

    Raises ``ValueError`` if the text is malformed or the move is not legal here.
    """
    frm, to, promo = uci_parts(text)
    for m in legal_moves(pos):
        if m & 63 == frm and (m >> 6) & 63 == to:
            is_promo = bool(m & 0x8000)
            if (promo is None and not is_promo) or (
                promo is not None and is_promo and ((m >> 12) & 3) + 1 == promo
            ):
                return m
    raise ValueError(f"illegal move in this position: {text!r}")


def position_from_board(board: chess.Board) -> Position:
    """Our position for a python-chess board, with its move history replayed (so
    repetitions count as python-chess counts them)."""
    from treestrap.core.makemove import make_move

    root = board.root()
    pos = parse_fen(root.fen(en_passant="fen"))
    for move in board.move_stack:
        make_move(pos, parse_uci_move(pos, move.uci()))
    return pos


def board_from_position(pos: Position) -> chess.Board:
    """A python-chess board of the current position (without move history)."""
    return chess.Board(format_fen(pos))


__all__ = [
    "NULL_MOVE",
    "STARTING_FEN",
    "board_from_position",
    "format_fen",
    "legal_moves",
    "move_to_uci",
    "parse_fen",
    "parse_uci_move",
    "position_from_board",
]
