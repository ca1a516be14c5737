"""The bitboard inputs of a Connect Four network: 84 cells (42 per player) and the side
to move, as Serban's chess inputs are the pieces' bitboards and the side to move.

Players, not movers: like Serban's white-relative chess inputs, the first player's discs
come first whoever is to move, so a network's output is for the first player.

=========  ==========================================================
index      input
=========  ==========================================================
0..41      a first-player disc on cell ``col * 6 + row`` (row 0 at the bottom)
42..83     a second-player disc on cell ``col * 6 + row``
84         1 when the first player is to move
=========  ==========================================================
"""

from __future__ import annotations

import numpy as np

from treestrap.connect4.bits import CELLS, COLUMN_BITS, HEIGHT, ONE, WIDTH
from treestrap.connect4.board import ST_PLY, Position
from treestrap.core.jit import njit

INPUT_NB = 2 * CELLS + 1
SIDE_INPUT = 2 * CELLS
#: Most active inputs: every cell filled, plus the side to move.
MAX_ACTIVE_INPUTS = CELLS + 1


def input_names() -> list[str]:
    names = [
        f"{player}.c{col + 1}r{row + 1}"
        for player in ("first", "second")
        for col in range(WIDTH)
        for row in range(HEIGHT)
    ]
    return [*names, "first-to-move"]


@njit
def active_inputs(pos: Position, idx: np.ndarray) -> int:
    """The indices of the inputs that are 1 into ``idx``, ascending; returns their count
    (every other input is 0)."""
    n = 0
    for player in range(2):
        b = pos.discs[player]
        for col in range(WIDTH):
            for row in range(HEIGHT):
                if (b >> np.uint64(col * COLUMN_BITS + row)) & ONE:
                    idx[n] = player * CELLS + col * HEIGHT + row
                    n += 1
    if pos.st[ST_PLY] & 1 == 0:
        idx[n] = SIDE_INPUT
        n += 1
    return n


@njit(allocates=True)
def dense_inputs(pos: Position, out: np.ndarray) -> None:
    """All ``INPUT_NB`` inputs into ``out`` (zeros and ones)."""
    out[:] = 0.0
    idx = np.empty(MAX_ACTIVE_INPUTS, dtype=np.int64)
    n = active_inputs(pos, idx)
    for i in range(n):
        out[idx[i]] = 1.0


def _mirror_permutation() -> np.ndarray:
    perm = np.arange(INPUT_NB)
    for player in range(2):
        for col in range(WIDTH):
            for row in range(HEIGHT):
                perm[player * CELLS + col * HEIGHT + row] = (
                    player * CELLS + (WIDTH - 1 - col) * HEIGHT + row
                )
    return perm


#: Input ``i`` of a position is input ``MIRROR[i]`` of its left-right mirror image.
MIRROR = _mirror_permutation()


def mirror_inputs(rows: np.ndarray) -> np.ndarray:
    """Input rows (``[B, INPUT_NB]``) of the positions mirrored left to right: the same
    players, the same side to move, so the same value (Connect Four's symmetry)."""
    return np.asarray(rows)[:, MIRROR]
