"""Zobrist hashing with the Polyglot keys, so a position's key equals
``chess.polyglot.zobrist_hash(board)`` and opening books can be read by key.

The 781 published Polyglot random numbers are taken from python-chess
(``chess.polyglot.POLYGLOT_RANDOM_ARRAY``) and laid out for our piece numbering in the
``ZOBRIST`` region of the table array ``T``::

    ZOBRIST + piece * 64 + square     piece placement (piece = colour * 6 + type)
    ZOBRIST + 768 + rights            castling, all 16 right sets pre-combined
    ZOBRIST + 784 + file              en-passant file
    ZOBRIST + 792                     white to move

Polyglot hashes the en-passant file only when a pawn of the side to move stands next
to the pushed pawn; the position stores its en-passant square under that same rule.
"""

from __future__ import annotations

import chess.polyglot
import numpy as np

from treestrap.core.jit import njit
from treestrap.core.tables import ZOBRIST

_PIECE_KEYS = 0
_CASTLING_KEYS = 768
_EP_KEYS = 784
_SIDE_KEY = 792


def fill_zobrist(T: np.ndarray) -> None:
    """Write the Polyglot keys into the ``ZOBRIST`` region of ``T``."""
    rnd = chess.polyglot.POLYGLOT_RANDOM_ARRAY
    for color in range(2):
        for ptype in range(6):
            # Polyglot orders kinds as black pawn, white pawn, black knight, ...
            kind = 2 * ptype + (1 if color == 0 else 0)
            for sq in range(64):
                T[ZOBRIST + _PIECE_KEYS + (color * 6 + ptype) * 64 + sq] = np.uint64(
                    rnd[64 * kind + sq]
                )
    for rights in range(16):
        key = 0
        for bit in range(4):  # WK, WQ, BK, BQ, as Polyglot's 768..771
            if rights & (1 << bit):
                key ^= rnd[768 + bit]
        T[ZOBRIST + _CASTLING_KEYS + rights] = np.uint64(key)
    for file in range(8):
        T[ZOBRIST + _EP_KEYS + file] = np.uint64(rnd[772 + file])
    T[ZOBRIST + _SIDE_KEY] = np.uint64(rnd[780])


@njit(inline="always")
def piece_key(T: np.ndarray, piece: int, sq: int) -> np.uint64:
    return T[ZOBRIST + _PIECE_KEYS + piece * 64 + sq]


@njit(inline="always")
def castling_key(T: np.ndarray, rights: int) -> np.uint64:
    return T[ZOBRIST + _CASTLING_KEYS + rights]


@njit(inline="always")
def ep_key(T: np.ndarray, ep_square: int) -> np.uint64:
    return T[ZOBRIST + _EP_KEYS + (ep_square & 7)]


@njit(inline="always")
def side_key(T: np.ndarray) -> np.uint64:
    """XORed in when white is to move (Polyglot's convention)."""
    return T[ZOBRIST + _SIDE_KEY]
