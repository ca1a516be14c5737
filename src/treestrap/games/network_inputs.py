"""What a replay set knows of a game's network inputs: their count, which input says
that the first player (chess: white) is to move, and the symmetry that doubles every
sample.

Chess (:data:`CHESS_INPUTS`): Serban's 769 bitboard inputs, augmented by the colour
flip, which swaps the players, so a flipped sample's ``V = P(first player wins)`` is
``1 - V`` and its bounds swap. Connect Four (:data:`CONNECT4_INPUTS`): the 85 inputs
of :mod:`treestrap.connect4.inputs`, augmented by the left-right mirror, which keeps
the players and the side to move, so the mirrored sample keeps ``V`` and its bounds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from treestrap.connect4.inputs import INPUT_NB, SIDE_INPUT, mirror_inputs
from treestrap.evaluation.colour_flip import flip_bitboard
from treestrap.evaluation.feature_sets.bitboard import BITBOARD_SIZE, SIDE_TO_MOVE


@dataclass(frozen=True)
class ReplayInputs:
    """A game's network inputs as the replay set stores and augments them."""

    #: Inputs per position.
    size: int
    #: The input that is 1 when the first player (white) is to move.
    side_input: int
    #: Rows of inputs -> the rows of their symmetric positions.
    augment: Callable[[np.ndarray], np.ndarray]
    #: Whether the symmetry swaps the players (``V -> 1 - V``, bounds swapped).
    swaps_players: bool


CHESS_INPUTS = ReplayInputs(BITBOARD_SIZE, SIDE_TO_MOVE, flip_bitboard, swaps_players=True)
CONNECT4_INPUTS = ReplayInputs(INPUT_NB, SIDE_INPUT, mirror_inputs, swaps_players=False)
