"""The supervised encodings: packed bits against the compiled ``bitboard`` features and
python-chess on positions of real (random legal) games, colour flipping as documented,
ConvNet planes, meep densification, frames."""

from __future__ import annotations

import chess
import numpy as np
import pytest
import torch
from test_supervised_support import (
    python_chess_bitboard,
    random_boards,
    split_from_boards,
    split_from_dense,
)

from treestrap.core.notation import parse_fen
from treestrap.evaluation.colour_flip import flip_bitboard
from treestrap.evaluation.feature_sets import get_feature_set
from treestrap.evaluation.feature_sets.feature_set import dense_features
from treestrap.supervised.inputs import (
    EncodingError,
    check_split,
    encode,
    get_encoding,
    to_frame,
    to_planes,
)

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def games() -> tuple[list[chess.Board], object]:
    boards = random_boards(6, seed=13)
    results = [i % 3 for i in range(len(boards))]
    return boards, split_from_boards(boards, results)


def test_bitboard_encoding_is_the_compiled_feature_set(games) -> None:
    boards, split = games
    x = encode(split, get_encoding("bitboard"), np.arange(len(boards)))
    assert x.shape == (len(boards), 769) and x.dtype == np.float32
    fs = get_feature_set("bitboard")
    for row, board in enumerate(boards):
        compiled = dense_features(parse_fen(board.fen()), fs)
        np.testing.assert_array_equal(x[row], compiled)
        np.testing.assert_array_equal(x[row], python_chess_bitboard(board))
    # real play: both sides to move, captures (fewer than 32 pieces), promotions possible
    assert 0 < x[:, 768].sum() < len(boards)
    assert x[:, :768].sum(axis=1).min() < 32


def test_flipping_colours_maps_the_encoding_as_documented(games) -> None:
    boards, _ = games
    mirrored = [b.mirror() for b in boards]
    x = np.stack([python_chess_bitboard(b) for b in boards])
    y = np.stack([python_chess_bitboard(b) for b in mirrored])
    np.testing.assert_array_equal(flip_bitboard(x), y)
    np.testing.assert_array_equal(flip_bitboard(flip_bitboard(x)), x)
    # index piece * 64 + square -> ((piece + 6) % 12) * 64 + (square ^ 56): white pawn e2
    # becomes black pawn e7
    e2 = np.zeros((1, 769), dtype=np.float32)
    e2[0, 0 * 64 + chess.E2] = 1.0
    flipped = flip_bitboard(e2)
    assert flipped[0, 6 * 64 + chess.E7] == 1.0 and flipped[0, 768] == 1.0
    assert flipped.sum() == 2.0


def test_bitboard_plus_meep_is_side_to_move_relative(games) -> None:
    boards, _ = games
    mirrored = [b.mirror() for b in boards]
    both = split_from_boards(boards + mirrored, [0] * (2 * len(boards)))
    x = encode(both, get_encoding("bitboard+meep"), np.arange(2 * len(boards)))
    a, b = x[: len(boards)], x[len(boards) :]
    # everything but the white-to-move bit is the same for a position and its mirror
    np.testing.assert_array_equal(np.delete(a, 768, axis=1), np.delete(b, 768, axis=1))
    np.testing.assert_array_equal(a[:, 768], 1.0 - b[:, 768])
    white = a[:, 768] == 1.0
    np.testing.assert_array_equal(
        a[white, :768], encode(both, get_encoding("bitboard"), np.flatnonzero(white))[:, :768]
    )


def test_meep_encoding_is_the_compiled_feature_set(games) -> None:
    boards, split = games
    x = encode(split, get_encoding("meep"), np.arange(len(boards)))
    fs = get_feature_set("meep")
    for row, board in enumerate(boards):
        np.testing.assert_allclose(x[row], dense_features(parse_fen(board.fen()), fs))
    rows = np.array([5, 2, 2, 0])  # any order, repeats allowed
    np.testing.assert_array_equal(encode(split, get_encoding("meep"), rows), x[rows])


def test_planes_put_each_piece_on_its_rank_and_file(games) -> None:
    boards, split = games
    x = torch.from_numpy(encode(split, get_encoding("bitboard"), np.arange(len(boards))))
    planes = to_planes(x).numpy()
    assert planes.shape == (len(boards), 13, 8, 8)
    for row, board in enumerate(boards):
        expected = np.zeros((13, 8, 8), dtype=np.float32)
        for square, piece in board.piece_map().items():
            plane = (0 if piece.color else 6) + piece.piece_type - 1
            expected[plane, chess.square_rank(square), chess.square_file(square)] = 1.0
        expected[12] = 1.0 if board.turn == chess.WHITE else 0.0
        np.testing.assert_array_equal(planes[row], expected)


def test_frames_map_labels_and_back() -> None:
    result = np.array([0, 1, 2, 0, 1, 2])
    wtm = np.array([True, True, True, False, False, False])
    mover = to_frame(result, wtm, "mover")
    assert mover.tolist() == [0, 1, 2, 2, 1, 0]  # black to move and white won: mover lost
    assert to_frame(mover, wtm, "mover").tolist() == result.tolist()
    assert to_frame(result, wtm, "white").tolist() == result.tolist()


def test_stockfish_features_need_scores() -> None:
    dense = np.zeros((4, 769), dtype=np.float32)
    dense[:2, 768] = 1.0
    split = split_from_dense(dense, [0, 1, 2, 0])
    with pytest.raises(EncodingError, match="no Stockfish scores"):
        check_split(split, get_encoding("stockfish"), "train")
    split.sf_score = np.array([150.0, -40.0, 32000.0, np.nan], dtype=np.float32)
    with pytest.raises(EncodingError, match="NaN"):
        check_split(split, get_encoding("stockfish"), "train")
    split.sf_score[3] = -20000.0
    check_split(split, get_encoding("stockfish"), "train")
    x = encode(split, get_encoding("stockfish"), np.arange(4))
    np.testing.assert_allclose(x, [[0.15, 1], [-0.04, 1], [10.0, 0], [-10.0, 0]], rtol=1e-6)
