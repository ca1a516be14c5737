"""Helpers for the supervised tests: the dataset's own ``Split`` built in memory, from
python-chess boards or from raw bit patterns (synthetic problems). The helpers' own
checks are here too."""

from __future__ import annotations

import random
from collections.abc import Sequence

import chess
import numpy as np

from treestrap.supervised.data import Data
from treestrap.supervised.dataset.store import Split
from treestrap.supervised.inputs import get_encoding

BITS = 769
PACKED = (BITS + 7) // 8


def pack(dense: np.ndarray) -> np.ndarray:
    """Rows of 769 0/1 values packed as the dataset stores them."""
    return np.packbits(dense.astype(np.uint8), axis=1, bitorder="little")


def split_from_dense(
    dense: np.ndarray,
    result: Sequence[int],
    meep: Sequence[dict[int, float]] | None = None,
    ply: Sequence[int] | None = None,
    sf_score: Sequence[float] | None = None,
) -> Split:
    """A split from dense bitboard rows (column 768 = white to move) and labels."""
    n = len(result)
    meep = meep if meep is not None else [{} for _ in range(n)]
    idx = [np.array(sorted(m), dtype=np.int32) for m in meep]
    val = [np.array([m[i] for i in sorted(m)], dtype=np.float32) for m in meep]
    lengths = np.array([len(i) for i in idx], dtype=np.int64)
    return Split(
        bits=pack(dense),
        meep_idx=np.concatenate(idx) if n else np.zeros(0, np.int32),
        meep_val=np.concatenate(val) if n else np.zeros(0, np.float32),
        meep_start=np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
        white_to_move=dense[:, 768].astype(bool),
        ply=np.asarray(ply if ply is not None else np.arange(n) % 80, dtype=np.int16),
        result=np.asarray(result, dtype=np.int8),
        game_id=np.arange(n, dtype=np.int32) // 40,
        rollout=np.zeros(n, dtype=bool),
        sf_score=None if sf_score is None else np.asarray(sf_score, dtype=np.float32),
    )


def python_chess_bitboard(board: chess.Board) -> np.ndarray:
    """The ``bitboard`` encoding written from its definition with python-chess only."""
    v = np.zeros(BITS, dtype=np.float32)
    for square, piece in board.piece_map().items():
        colour = 0 if piece.color == chess.WHITE else 1
        v[(colour * 6 + piece.piece_type - 1) * 64 + square] = 1.0
    v[768] = 1.0 if board.turn == chess.WHITE else 0.0
    return v


def random_boards(n_games: int, seed: int, max_plies: int = 80) -> list[chess.Board]:
    """Positions of random legal games (every position of each game, start excluded)."""
    rng = random.Random(seed)
    boards = []
    for _ in range(n_games):
        board = chess.Board()
        for _ in range(rng.randrange(10, max_plies)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            boards.append(board.copy(stack=False))
    return boards


def split_from_boards(boards: Sequence[chess.Board], result: Sequence[int]) -> Split:
    """A split of real positions with both compiled feature sets, as the dataset has them."""
    from treestrap.core.notation import parse_fen
    from treestrap.evaluation.feature_sets import get_feature_set
    from treestrap.evaluation.feature_sets.dispatch import MAX_ACTIVE, extract_features

    meep_id = get_feature_set("meep").id
    bb_id = get_feature_set("bitboard").id
    idx = np.zeros(MAX_ACTIVE, dtype=np.int32)
    val = np.zeros(MAX_ACTIVE, dtype=np.float64)
    dense = np.zeros((len(boards), BITS), dtype=np.float32)
    meep = []
    for row, board in enumerate(boards):
        pos = parse_fen(board.fen())
        k = extract_features(pos, bb_id, idx, val)
        dense[row, idx[:k]] = val[:k]
        k = extract_features(pos, meep_id, idx, val)
        feats: dict[int, float] = {}
        for i, x in zip(idx[:k], val[:k], strict=True):
            feats[int(i)] = feats.get(int(i), 0.0) + float(x)
        meep.append(feats)
    ply = [b.ply() for b in boards]
    return split_from_dense(dense, result, meep, ply)


def data_of(
    train: Split,
    validation: Split,
    test: Split,
    features: str = "bitboard",
    manifest_hash: str = "0123456789abcdef",
) -> Data:
    return Data(train, validation, test, get_encoding(features), manifest_hash, "memory")


def thirds(split: Split) -> tuple[Split, Split, Split]:
    """Train / validation / test as 60% / 20% / 20% of the rows."""
    n = len(split)
    a, b = int(n * 0.6), int(n * 0.8)
    return split.subset(np.arange(a)), split.subset(np.arange(a, b)), split.subset(np.arange(b, n))


def test_subset_keeps_each_rows_meep_features() -> None:
    meep = [{1: 1.0, 5: -1.0}, {}, {7: 2.0}]
    dense = np.zeros((3, BITS), dtype=np.float32)
    dense[:, 768] = [1, 0, 1]
    split = split_from_dense(dense, [0, 1, 2], meep)
    sub = split.subset(np.array([2, 0]))
    assert sub.result.tolist() == [2, 0]
    assert sub.meep_start.tolist() == [0, 1, 3]
    assert sub.meep_idx.tolist() == [7, 1, 5]
    assert sub.white_to_move.tolist() == [True, True]
