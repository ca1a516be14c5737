"""A hand-written linear evaluation over :mod:`treestrap.connect4.features`: the
reference a learned one is compared with, and a sensible start.

Units are points for the side to move, a centre disc being worth 3. Only the summed
blocks carry weight (every line is treated alike); the per-line features stay 0, for
learning to fill in. The weights follow what Connect Four players say: more discs in an
open line are worth more, a threat on the right row parity (odd rows for the first
player, even for the second) is worth far more than one on the wrong parity, two
threats one above the other win, and the centre column holds the most lines.
"""

from __future__ import annotations

import numpy as np

from treestrap.connect4.board import Position
from treestrap.connect4.features import (
    BIAS,
    COLUMNS,
    OPP,
    OWN,
    SIZE,
    STACKED,
    count_index,
    linear_value,
    new_buffers,
    threat_index,
)

#: Open lines by (discs k, empty cells playable now p) for the mover. Three with the
#: fourth cell playable is a win on the move.
_OWN_LINES = {
    (1, 0): 1.0, (1, 1): 1.0, (1, 2): 1.0, (1, 3): 1.0,
    (2, 0): 3.0, (2, 1): 4.0, (2, 2): 5.0,
    (3, 0): 12.0, (3, 1): 100.0,
}  # fmt: skip
#: The opponent's: the same, but a playable three is one the mover can still block.
_OPP_LINES = {**_OWN_LINES, (3, 1): 40.0}
#: Threats that cannot be played yet: on the player's good parity, on the other.
_GOOD_PARITY = 15.0
_BAD_PARITY = 6.0
_STACKED = 40.0
#: Discs per column, left to right: the centre holds the most four-cell lines.
_COLUMN = (0.0, 1.0, 2.0, 3.0, 2.0, 1.0, 0.0)


def hand_weights() -> np.ndarray:
    """theta of the hand-written evaluation (float64[SIZE])."""
    theta = np.zeros(SIZE, dtype=np.float64)
    for (k, p), w in _OWN_LINES.items():
        theta[count_index(OWN, k, p)] = w
    for (k, p), w in _OPP_LINES.items():
        theta[count_index(OPP, k, p)] = -w
    for mover_first in (True, False):
        for side, sign in ((OWN, 1.0), (OPP, -1.0)):
            first_player = mover_first == (side == OWN)
            for odd in (True, False):
                good = odd == first_player
                weight = _GOOD_PARITY if good else _BAD_PARITY
                theta[threat_index(mover_first, side, odd)] = sign * weight
    theta[STACKED + OWN] = _STACKED
    theta[STACKED + OPP] = -_STACKED
    for col, w in enumerate(_COLUMN):
        theta[COLUMNS + col] = w
        theta[COLUMNS + len(_COLUMN) + col] = -w
    theta[BIAS] = 0.0
    return theta


_THETA = hand_weights()


def hand_value(pos: Position) -> float:
    """The hand-written evaluation of ``pos`` for its side to move."""
    idx, val = new_buffers()
    return float(linear_value(pos, _THETA, idx, val))
