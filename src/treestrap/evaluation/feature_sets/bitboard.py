"""The ``bitboard`` feature set of Serban (2014, section 6.2.3): 12 x 64 piece-square
indicators in absolute colours plus a side-to-move bit, 769 inputs.

Index ``piece * 64 + square`` with ``piece = colour * 6 + type`` (white pawn .. white
king, black pawn .. black king) and ``768`` = white to move. Unlike ``meep`` the
encoding is white-relative: a model over it predicts a score for white, which becomes
the side to move's score by :func:`white_relative_sign`.
"""

from __future__ import annotations

import numpy as np

from treestrap.core.bitboard import lsb, pop_lsb
from treestrap.core.jit import njit
from treestrap.core.piece import WHITE
from treestrap.core.position import ST_SIDE, Position
from treestrap.evaluation.feature_sets.feature_set import PERSPECTIVE_WHITE, FeatureSet

BITBOARD_SIZE = 769
SIDE_TO_MOVE = 768
#: 32 pieces at most plus the side-to-move bit.
BITBOARD_MAX_ACTIVE = 33


def bitboard_feature_names() -> list[str]:
    colours = ("white", "black")
    types = ("pawn", "knight", "bishop", "rook", "queen", "king")
    squares = [f + r for r in "12345678" for f in "abcdefgh"]
    names = [f"{c}_{t}/{sq}" for c in colours for t in types for sq in squares]
    return [*names, "white_to_move"]


@njit
def bitboard_features(pos: Position, idx: np.ndarray, val: np.ndarray) -> int:
    """Write the active indicators (value 1) into ``idx``/``val``; returns the count."""
    n = 0
    for piece in range(12):
        pieces = pos.bb[piece]
        while pieces:
            idx[n] = piece * 64 + lsb(pieces)
            val[n] = 1.0
            n += 1
            pieces = pop_lsb(pieces)
    if pos.st[ST_SIDE] == WHITE:
        idx[n] = SIDE_TO_MOVE
        val[n] = 1.0
        n += 1
    return n


@njit(inline="always")
def white_relative_sign(pos: Position) -> float:
    """+1 or -1: what turns a score for white into the side to move's score."""
    if pos.st[ST_SIDE] != WHITE:
        return -1.0
    return 1.0


@njit
def bitboard_gradient(pos: Position, idx: np.ndarray, val: np.ndarray) -> int:
    """The indicators times :func:`white_relative_sign`: a linear model's gradient."""
    n = bitboard_features(pos, idx, val)
    sign = white_relative_sign(pos)
    for i in range(n):
        val[i] *= sign
    return n


FEATURE_SET = FeatureSet(
    name="bitboard",
    size=BITBOARD_SIZE,
    max_active=BITBOARD_MAX_ACTIVE,
    perspective=PERSPECTIVE_WHITE,
    description="12 x 64 piece-square indicators and side to move (Serban 2014)",
    feature_names=bitboard_feature_names,
    extract=bitboard_features,
    gradient=bitboard_gradient,
)
