"""Colours, piece types and piece codes.

A piece code is ``colour * 6 + type``: white pawn 0 ... white king 5, black pawn 6 ...
black king 11, and ``NO_PIECE = 12`` for an empty square (so a mailbox entry can index
a 13-row table directly).
"""

from __future__ import annotations

WHITE = 0
BLACK = 1
COLOR_NB = 2

PAWN = 0
KNIGHT = 1
BISHOP = 2
ROOK = 3
QUEEN = 4
KING = 5
PIECE_TYPE_NB = 6

PIECE_NB = 12
NO_PIECE = 12

#: FEN letters by piece code.
PIECE_SYMBOLS = "PNBRQKpnbrqk"


def make_piece(color: int, piece_type: int) -> int:
    return color * 6 + piece_type


def piece_color(piece: int) -> int:
    return piece // 6


def piece_type(piece: int) -> int:
    return piece % 6
