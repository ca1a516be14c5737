"""Stockfish's search score of a position: Serban's benchmark feature (section 6.2.1,
"Stockfish's QSearch Features": the evaluation at the quiescent leaves of a depth-14
search, plus the side to move), computed once per position when the dataset is built.

Stored in centipawns from White's point of view, so that, like the labels, it does not
flip with the side to move. Mate scores are clipped to +-``MATE_CP`` (mate in n is
``MATE_CP - n``), far beyond any positional score.
"""

from __future__ import annotations

import chess
import chess.engine

#: Centipawns standing for a mate, the bound of every stored score.
MATE_CP = 10000


def white_score(
    engine: chess.engine.SimpleEngine, board: chess.Board, depth: int, game: object
) -> float:
    """The score of ``board`` for White after a depth-``depth`` search.

    Finished positions are scored by the rules, not the engine (which has no move to
    search there): a mated side to move has lost, stalemate and dead positions are 0.
    """
    if board.is_checkmate():
        return -MATE_CP if board.turn == chess.WHITE else MATE_CP
    if board.is_stalemate() or board.is_insufficient_material():
        return 0.0
    info = engine.analyse(board, chess.engine.Limit(depth=depth), game=game)
    score = info.get("score")
    if score is None:  # the engine said nothing about it: count it as balanced
        return 0.0
    cp = score.white().score(mate_score=MATE_CP)
    return float(max(-MATE_CP, min(MATE_CP, cp)))
