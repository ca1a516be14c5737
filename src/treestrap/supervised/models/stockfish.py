"""The Stockfish benchmark of Serban sections 6.2.1 and 6.8 (Table 6.12, his best
LogReg at 67.00%): a logistic regression on two inputs, Stockfish's search score for
white (stored in the dataset, scaled by 1e-3) and the side to move.

With one scalar score a three-class softmax can only place two thresholds on it (Serban
eq. 3.8): below the first black wins, between them a draw, above white wins. The model
thus measures how well the engine's score ranks positions by outcome.
"""

from __future__ import annotations

from treestrap.supervised.models.layers import torch
from treestrap.supervised.models.logreg import LogisticRegression

#: Stockfish's score and the white-to-move bit (``--features stockfish``).
STOCKFISH_INPUTS = 2


class StockfishLogReg(LogisticRegression):
    def __init__(self) -> None:
        super().__init__(STOCKFISH_INPUTS)


def build(n_inputs: int, gen: torch.Generator) -> StockfishLogReg:
    del gen
    if n_inputs != STOCKFISH_INPUTS:
        raise ValueError(
            f"the stockfish model reads --features stockfish ({STOCKFISH_INPUTS} inputs), "
            f"not {n_inputs} inputs"
        )
    return StockfishLogReg()
