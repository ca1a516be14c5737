"""The one mapping between a network's outcome prediction and a search score.

Serban (2014, section 4.2) writes the heuristic as ``H(s) = P(white wins | s)`` of a
*binary* model (draws assumed away), and shows that ranking positions by the expected
pay-off of a 3-class (win / draw / loss) logistic model is ranking them by that binary
model with the win and loss score functions of the 3-class one. Our supervised models
are 3-class, with scores ``z_win, z_draw, z_loss`` in white's frame on the ``bitboard``
inputs, so

    logit(s)      = z_win - z_loss                    (white's log-odds of win vs loss)
    H(s)          = sigmoid(logit(s))                 (Serban's P(white wins | s))
    score_white   = (400 / ln 10) * logit(s)          (centipawns, Elo's logistic scale)
    score(s)      = score_white if white is to move else -score_white

``score`` is what searches see: a side-to-move float in the units of
:mod:`treestrap.search.value` (not clipped here; searches clip heuristic values to
+-9900). 400 centipawns per factor of 10 in the odds is the scale
:mod:`treestrap.supervised.convert` gives logistic regressions, so a converted linear
model and the same model run as a network give the same score.

The inverse, for learning targets (Serban's Table 4.1 objectives read probabilities):
a side-to-move score ``v`` means ``P(side to move wins) = sigmoid(v / C)``; for white,
``H = sigmoid(v / C)`` when white is to move and ``1 - sigmoid(v / C)`` otherwise. Mate
scores (+-9999) map to probabilities within 1e-24 of 1 and 0.
"""

from __future__ import annotations

import math

import numpy as np

from treestrap.core.jit import njit

#: Centipawns per unit of log-odds: a 400-centipawn lead is 10-to-1 odds (Elo's scale).
CENTIPAWNS_PER_LOGIT = 400.0 / math.log(10.0)
#: The mapping as written in weight-file metadata.
MAPPING = "cp = (400 / ln 10) * (z_win - z_loss), negated when black is to move"


@njit(inline="always")
def score_from_logit(logit: float) -> float:
    """Centipawns of a log-odds ``z_win - z_loss`` (in the logit's own frame)."""
    return CENTIPAWNS_PER_LOGIT * logit


@njit(inline="always")
def logit_from_score(score: float) -> float:
    """Inverse of :func:`score_from_logit`."""
    return score / CENTIPAWNS_PER_LOGIT


def win_probability(score: np.ndarray | float) -> np.ndarray:
    """``P(side to move wins)`` of side-to-move scores: ``sigmoid(score / C)``."""
    z = np.asarray(score, dtype=np.float64) / CENTIPAWNS_PER_LOGIT
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # sigmoid without overflow for mate scores


def white_win_probability(
    score: np.ndarray | float, white_to_move: np.ndarray | bool
) -> np.ndarray:
    """Serban's ``H(s) = P(white wins | s)`` of side-to-move scores."""
    p = win_probability(score)
    return np.where(np.asarray(white_to_move, dtype=bool), p, 1.0 - p)


def score_from_white_probability(
    h: np.ndarray | float, white_to_move: np.ndarray | bool
) -> np.ndarray:
    """Inverse of :func:`white_win_probability` (``h`` strictly inside (0, 1))."""
    h = np.asarray(h, dtype=np.float64)
    white = CENTIPAWNS_PER_LOGIT * (np.log(h) - np.log1p(-h))
    return np.where(np.asarray(white_to_move, dtype=bool), white, -white)
