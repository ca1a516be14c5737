"""Flipping the colours of positions in the ``bitboard`` inputs.

Flipping a position's colours mirrors the board vertically and swaps the colours of
all pieces and the side to move (python-chess ``Board.mirror``). In the ``bitboard``
inputs (index ``piece * 64 + square``, then white to move) input ``piece * 64 +
square`` goes to ``((piece + 6) % 12) * 64 + (square ^ 56)`` and the white-to-move
input is inverted. Flipping twice gives the inputs back.

Plain NumPy on rows of inputs of any dtype (0/1 bytes or floats); the replay set of
non-linear TreeStrap and the supervised encodings both flip through here.
"""

from __future__ import annotations

import numpy as np

from treestrap.evaluation.feature_sets.bitboard import SIDE_TO_MOVE

#: ``COLOUR_FLIP_INDEX[i]`` is where ``bitboard`` input ``i`` goes when the colours are
#: flipped (the white-to-move input stays in place; :func:`flip_bitboard` inverts it).
COLOUR_FLIP_INDEX = np.array(
    [((i // 64 + 6) % 12) * 64 + ((i % 64) ^ 56) for i in range(SIDE_TO_MOVE)] + [SIDE_TO_MOVE]
)


def flip_pieces(x: np.ndarray) -> np.ndarray:
    """The piece inputs (rows) of the colour-flipped positions; the white-to-move
    column is kept as it is."""
    out = np.empty_like(x)
    out[:, COLOUR_FLIP_INDEX] = x
    return out


def flip_bitboard(x: np.ndarray) -> np.ndarray:
    """The ``bitboard`` inputs (rows) of the colour-flipped positions, in ``x``'s dtype."""
    out = flip_pieces(x)
    # A weak Python 1 keeps the column's dtype: 0/1 bytes stay bytes, floats stay floats.
    out[:, SIDE_TO_MOVE] = 1 - out[:, SIDE_TO_MOVE]
    return out
