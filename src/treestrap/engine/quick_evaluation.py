"""The engine's own evaluation in plain numpy, for the quick search of a cold start.

Until the compiled search is ready (:mod:`treestrap.engine.compile_job`), a timed ``go``
is answered by :mod:`treestrap.engine.quick_move`, a small search over python-chess
boards. It scores positions with the engine's own network where one can be read in
numpy: a perspective network (every bootstrap preset and the default) is a sum of 32
rows and one dot product, computed here in the same integers as the compiled
evaluator, so it gives the same score. A linear model over hand-made features would
need its feature extractor again in Python; such models answer with material and the
centre (:func:`treestrap.engine.quick_move.material_score`).
"""

from __future__ import annotations

from collections.abc import Callable

import chess
import numpy as np

from treestrap.evaluation.outcome import CENTIPAWNS_PER_LOGIT
from treestrap.evaluation.perspective import (
    INPUTS,
    MAX_PIECES,
    QA,
    QB,
    output_scale,
    split_parameters,
)
from treestrap.evaluation.perspective_weights import PerspectiveModel

#: A board's score for the side to move, in centipawns.
Scorer = Callable[[chess.Board], float]


def _inputs(board: chess.Board) -> tuple[np.ndarray, np.ndarray]:
    """The piece-square inputs of white's perspective and of black's (the board's
    colours swapped and its ranks mirrored), as the ``bitboard`` set numbers them."""
    white, black = [], []
    for square, piece in board.piece_map().items():
        index = (0 if piece.color == chess.WHITE else 6) + piece.piece_type - 1
        white.append(index * 64 + square)
        black.append(((index + 6) % 12) * 64 + (square ^ 56))
    return np.array(white, dtype=np.intp), np.array(black, dtype=np.intp)


def perspective_scorer(model: PerspectiveModel) -> Scorer:
    """The score :meth:`PerspectiveModel.evaluate` gives, of python-chess boards."""
    w, b, out, bias = split_parameters(model.weights, model.width, model.buckets)
    w_int = np.round(w * QA).astype(np.int32)
    b_int = np.round(b * QA).astype(np.int32)
    out_int = np.round(out * QB).astype(np.int64)
    unit = output_scale(model.activation)
    bias_int = np.round(bias / unit).astype(np.int64)
    square = model.activation == "screlu"
    n, buckets = model.width, model.buckets
    assert w_int.shape == (INPUTS, n)

    def activate(acc: np.ndarray) -> np.ndarray:
        clipped = np.clip(acc, 0, QA)
        return clipped * clipped if square else clipped

    def score(board: chess.Board) -> float:
        white, black = _inputs(board)
        acc_white = b_int + w_int[white].sum(axis=0)
        acc_black = b_int + w_int[black].sum(axis=0)
        white_to_move = board.turn == chess.WHITE
        ours, theirs = (acc_white, acc_black) if white_to_move else (acc_black, acc_white)
        bucket = min((len(white) - 1) * buckets // MAX_PIECES, buckets - 1)
        row = out_int[bucket]
        total = bias_int[bucket] + activate(ours) @ row[:n] + activate(theirs) @ row[n:]
        return CENTIPAWNS_PER_LOGIT * (float(total) * unit)

    return score


def own_scorer(model: object) -> Scorer | None:
    """The model's own evaluation for the quick search, or None when it has none in
    numpy (then the quick search counts material)."""
    if isinstance(model, PerspectiveModel):
        return perspective_scorer(model)
    return None
