"""The one colour-flip table of the ``bitboard`` inputs: flipping twice gives the inputs
back, the table is the documented index map, it matches python-chess ``Board.mirror``,
and the result keeps the dtype of its inputs (the replay set flips 0/1 bytes, the
supervised encodings float32 rows)."""

from __future__ import annotations

import chess
import numpy as np
from search_helpers import random_positions

from treestrap.core.notation import parse_fen
from treestrap.evaluation.colour_flip import COLOUR_FLIP_INDEX, flip_bitboard, flip_pieces
from treestrap.evaluation.feature_sets import get_feature_set
from treestrap.evaluation.feature_sets.bitboard import BITBOARD_SIZE, SIDE_TO_MOVE
from treestrap.evaluation.feature_sets.feature_set import dense_features

BITBOARD = get_feature_set("bitboard")


def _documented_flip(row: np.ndarray) -> np.ndarray:
    """The map written out one input at a time: ``piece * 64 + square`` to
    ``((piece + 6) % 12) * 64 + (square ^ 56)``, white to move inverted."""
    out = np.zeros_like(row)
    for i in range(SIDE_TO_MOVE):
        piece, square = divmod(i, 64)
        out[((piece + 6) % 12) * 64 + (square ^ 56)] = row[i]
    out[SIDE_TO_MOVE] = 1 - row[SIDE_TO_MOVE]
    return out


def test_the_table_is_a_permutation_that_is_its_own_inverse() -> None:
    assert sorted(COLOUR_FLIP_INDEX) == list(range(BITBOARD_SIZE))
    assert np.array_equal(COLOUR_FLIP_INDEX[COLOUR_FLIP_INDEX], np.arange(BITBOARD_SIZE))
    assert COLOUR_FLIP_INDEX[SIDE_TO_MOVE] == SIDE_TO_MOVE


def test_flipping_twice_is_the_identity_in_every_dtype() -> None:
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 2, (7, BITBOARD_SIZE)).astype(np.uint8)
    for x in (bits, bits.astype(np.float32), bits.astype(np.float64)):
        once = flip_bitboard(x)
        assert once.dtype == x.dtype
        assert np.array_equal(flip_bitboard(once), x)
        assert np.array_equal(flip_pieces(flip_pieces(x)), x)


def test_flipping_matches_the_documented_map_and_python_chess() -> None:
    for fen in random_positions(20, seed=5):
        x = dense_features(parse_fen(fen), BITBOARD)[None]
        mirrored = dense_features(parse_fen(chess.Board(fen).mirror().fen()), BITBOARD)[None]
        assert np.array_equal(flip_bitboard(x), mirrored)
        assert np.array_equal(flip_bitboard(x)[0], _documented_flip(x[0]))
        bits = x.astype(np.uint8)
        assert np.array_equal(flip_bitboard(bits), mirrored.astype(np.uint8))
        pieces = flip_pieces(x)
        assert np.array_equal(pieces[:, :SIDE_TO_MOVE], mirrored[:, :SIDE_TO_MOVE])
        assert pieces[0, SIDE_TO_MOVE] == x[0, SIDE_TO_MOVE]
