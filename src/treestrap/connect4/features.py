"""The features of a linear Connect Four evaluation, for the side to move.

``H(s) = theta . phi(s)`` scores a position for the player to move ("own" below; the
other is "opp"). phi is sparse: :func:`extract` writes ``(index, value)`` pairs into a
caller's buffers and returns their count, as the chess feature sets do
(:mod:`treestrap.evaluation.feature_sets.feature_set`). The model's gradient with respect
to theta is phi itself (:func:`gradient`).

Layout (``SIZE`` features):

================  =====  ==========================================================
block             size   value
================  =====  ==========================================================
``LINES``         1242   per four-cell line (69), side (own, opp), discs ``k`` (1-3)
                         and ``p``, the line's empty cells playable now (0..4-k):
                         1 for the one combination the line is in. A line holding
                         discs of both sides is dead and has no feature; nor has an
                         empty one, nor a full four (a finished game, which the
                         searches record too).
``LINE_COUNTS``   18     the same, summed over the lines: how many lines of each
                         (side, k, p), whichever line it is
``THREATS``       8      empty cells that would make four but cannot be played now,
                         counted per (mover is first or second player, own or opp,
                         odd or even row); rows count from 1 at the bottom, so the
                         first player's threats on odd rows are the ones that win
                         when the board fills up (Allis's zugzwang rule)
``STACKED``       2      own, opp: threat cells with another threat of the same
                         player right above (one of the two falls to them)
``COLUMNS``       14     own discs in each column, then opp discs; column 3 (of
                         0-6) is the centre, which holds the most lines
``BIAS``          2      1; and 1 when the mover is the first player (tempo)
================  =====  ==========================================================

Cells playable now are the lowest empty cell of each column. A line with three own
discs and its fourth cell playable is a win on the move; three opp discs and the cell
playable is a move that must be blocked.
"""

from __future__ import annotations

import numpy as np

from treestrap.connect4.bits import (
    EVEN_ROWS,
    LINE_MASKS,
    LINE_NB,
    ODD_ROWS,
    ONE,
    WIDTH,
    column_mask,
    playable_cells,
    popcount,
    winning_cells,
)
from treestrap.connect4.board import ST_PLY, Position
from treestrap.core.jit import njit

#: Slots of one (line, side): k = 1 has p = 0..3, k = 2 has 0..2, k = 3 has 0..1.
SLOT_NB = 9
#: First slot of each k (index by k; k = 0 unused).
K_START = np.array([0, 0, 4, 7], dtype=np.int64)

LINES = 0
LINE_COUNTS = LINES + LINE_NB * 2 * SLOT_NB
THREATS = LINE_COUNTS + 2 * SLOT_NB
STACKED = THREATS + 8
COLUMNS = STACKED + 2
BIAS = COLUMNS + 2 * WIDTH
SIZE = BIAS + 2

#: Most pairs one extraction writes: a pair per line, plus every non-line feature.
MAX_ACTIVE = LINE_NB + SIZE - LINE_COUNTS

OWN = 0
OPP = 1


def line_slot(k: int, playable: int) -> int:
    """The slot of a line with ``k`` discs of one side and ``playable`` empty cells
    playable now, within its (line, side) block."""
    if not 1 <= k <= 3 or not 0 <= playable <= 4 - k:
        raise ValueError(f"no slot for k={k}, playable={playable}")
    return int(K_START[k]) + playable


def line_index(line: int, side: int, k: int, playable: int) -> int:
    return LINES + (line * 2 + side) * SLOT_NB + line_slot(k, playable)


def count_index(side: int, k: int, playable: int) -> int:
    return LINE_COUNTS + side * SLOT_NB + line_slot(k, playable)


def threat_index(mover_first: bool, side: int, odd_row: bool) -> int:
    return THREATS + (0 if mover_first else 4) + side * 2 + (0 if odd_row else 1)


def feature_names() -> list[str]:
    """One readable name per index (``size == SIZE``)."""
    sides = ("own", "opp")
    pairs = [(k, p) for k in (1, 2, 3) for p in range(5 - k)]
    names = [
        f"line{line}.{side}.k{k}.p{p}"
        for line in range(LINE_NB)
        for side in sides
        for k, p in pairs
    ]
    names += [f"lines.{side}.k{k}.p{p}" for side in sides for k, p in pairs]
    names += [
        f"threats.{mover}.{side}.{parity}"
        for mover in ("first-to-move", "second-to-move")
        for side in sides
        for parity in ("odd-row", "even-row")
    ]
    names += [f"stacked-threats.{side}" for side in sides]
    names += [f"column{col}.{side}" for side in sides for col in range(WIDTH)]
    names += ["bias", "first-to-move"]
    assert len(names) == SIZE
    return names


@njit(inline="always")
def _put(idx: np.ndarray, val: np.ndarray, n: int, index: int, value: float) -> int:
    if value != 0.0:
        idx[n] = index
        val[n] = value
        n += 1
    return n


@njit(allocates=True)
def extract(pos: Position, idx: np.ndarray, val: np.ndarray) -> int:
    """phi(s) into ``idx[:n]``, ``val[:n]`` (non-zero values only, each index once);
    returns ``n`` (at most ``MAX_ACTIVE``)."""
    mover = pos.st[ST_PLY] & 1
    sides = (pos.discs[mover], pos.discs[1 - mover])
    mask = sides[0] | sides[1]
    playable = playable_cells(mask)
    counts = np.zeros(2 * SLOT_NB, dtype=np.int64)
    n = 0
    for line in range(LINE_NB):
        cells = LINE_MASKS[line]
        own = popcount(cells & sides[0])
        opp = popcount(cells & sides[1])
        if (own > 0) == (opp > 0) or own + opp == 4:
            continue  # dead (both sides), empty, or four (the game is over)
        side = OWN if own > 0 else OPP
        slot = K_START[own + opp] + popcount(cells & playable)
        idx[n] = LINES + (line * 2 + side) * SLOT_NB + slot
        val[n] = 1.0
        n += 1
        counts[side * SLOT_NB + slot] += 1
    for i in range(2 * SLOT_NB):
        n = _put(idx, val, n, LINE_COUNTS + i, counts[i])

    base = THREATS + (0 if mover == 0 else 4)
    for side in range(2):
        threats = winning_cells(sides[side], mask)
        later = threats & ~playable
        n = _put(idx, val, n, base + side * 2, popcount(later & ODD_ROWS))
        n = _put(idx, val, n, base + side * 2 + 1, popcount(later & EVEN_ROWS))
        n = _put(idx, val, n, STACKED + side, popcount(threats & (threats >> ONE)))
    for side in range(2):
        for col in range(WIDTH):
            n = _put(
                idx, val, n, COLUMNS + side * WIDTH + col, popcount(sides[side] & column_mask(col))
            )
    n = _put(idx, val, n, BIAS, 1.0)
    n = _put(idx, val, n, BIAS + 1, 1.0 if mover == 0 else 0.0)
    return n


@njit
def gradient(pos: Position, idx: np.ndarray, val: np.ndarray) -> int:
    """The gradient of ``theta . phi(s)`` with respect to theta: phi(s) itself (the
    features are the side to move's already, so no sign)."""
    return extract(pos, idx, val)


@njit
def linear_value(pos: Position, theta: np.ndarray, idx: np.ndarray, val: np.ndarray) -> float:
    """``theta . phi(s)``, the side to move's score (``idx``, ``val``: scratch)."""
    n = extract(pos, idx, val)
    total = 0.0
    for i in range(n):
        total += theta[idx[i]] * val[i]
    return total


def new_buffers() -> tuple[np.ndarray, np.ndarray]:
    """``(idx, val)`` buffers long enough for one extraction."""
    return np.zeros(MAX_ACTIVE, dtype=np.int32), np.zeros(MAX_ACTIVE, dtype=np.float64)


def dense_features(pos: Position) -> np.ndarray:
    """phi(s) as a dense float64 vector of ``SIZE`` (for tests and tools)."""
    idx, val = new_buffers()
    n = extract(pos, idx, val)
    dense = np.zeros(SIZE, dtype=np.float64)
    np.add.at(dense, idx[:n], val[:n])
    return dense
