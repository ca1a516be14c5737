"""Connect Four positions as records of the position file
(:mod:`treestrap.distill.position_file`, record type ``connect4-20``).

A record (:data:`CONNECT4_RECORD`, 20 bytes):

- ``first``, ``second``: the discs of the first and the second player, bitboards in the
  layout of :mod:`treestrap.connect4.bits` (the side to move follows from the count of
  discs: the first player moves when it is even);
- ``score``: the search's score for the side to move, in the searches' units
  (:mod:`treestrap.search.value`: a proven win ``9999 - plies``, a loss its negative),
  clipped to int16;
- ``result``: the game's result for the side to move: 1 win, 0 draw, -1 loss;
- ``ply``: plies played in the game before this position.

The discs alone give the position back (:func:`record_position`), with its hash and
whether the game is over; not the order of the moves, which no evaluation reads.
"""

from __future__ import annotations

import numpy as np

from treestrap.connect4.bits import BIT_NB, COLUMN_BITS, HEIGHT, WIDTH, column_mask, has_four
from treestrap.connect4.board import ST_PLY, ST_WON, Position, new_position, recompute_key
from treestrap.core.jit import njit

CONNECT4_RECORD_NAME = "connect4-20"
CONNECT4_RECORD = np.dtype(
    [
        ("first", "<u8"),
        ("second", "<u8"),
        ("score", "<i2"),
        ("result", "i1"),
        ("ply", "u1"),
    ]
)
assert CONNECT4_RECORD.itemsize == 20
#: Scores beyond int16 are clipped to this (the searches' never are: a win is 9999).
SCORE_LIMIT = 32_000
#: The bits of one column, at the bottom of the board.
_COLUMN = np.uint64((1 << COLUMN_BITS) - 1)


def pack_connect4(pos: Position, score: float, result: int, ply: int) -> np.ndarray:
    """One record of ``pos`` (a 1-element array)."""
    out = np.zeros(1, dtype=CONNECT4_RECORD)
    out["first"][0] = pos.discs[0]
    out["second"][0] = pos.discs[1]
    out["score"][0] = round(max(-SCORE_LIMIT, min(SCORE_LIMIT, score)))
    out["result"][0] = result
    out["ply"][0] = min(255, ply)
    return out


@njit
def set_discs(pos: Position, first: np.uint64, second: np.uint64) -> None:
    """Make ``pos`` the position of these discs: heights, ply, whether the last disc
    made four, and the hash (the moves played are not known: never unmake past it)."""
    pos.discs[0] = first
    pos.discs[1] = second
    ply = 0
    for col in range(WIDTH):
        h = 0
        cells = (first | second) & column_mask(col)
        while cells:
            cells &= cells - np.uint64(1)
            h += 1
        pos.heights[col] = h
        ply += h
    pos.st[ST_PLY] = ply
    last = pos.discs[(ply + 1) & 1]  # the player who moved last
    pos.st[ST_WON] = 1 if ply > 0 and has_four(last) else 0
    pos.keys[ply] = recompute_key(pos)


def record_position(record: np.void | np.ndarray) -> Position:
    """The position of one record."""
    rec = np.asarray(record).reshape(1)
    pos = new_position()
    set_discs(pos, np.uint64(rec["first"][0]), np.uint64(rec["second"][0]))
    return pos


def mirror_discs(discs: np.ndarray) -> np.ndarray:
    """Bitboards with the columns reversed (column c to 6 - c): the mirror image, whose
    value is the same for the same side."""
    discs = np.asarray(discs, dtype=np.uint64)
    out = np.zeros_like(discs)
    for col in range(WIDTH):
        bits = (discs >> np.uint64(col * COLUMN_BITS)) & _COLUMN
        out |= bits << np.uint64((WIDTH - 1 - col) * COLUMN_BITS)
    return out


def mirrored(records: np.ndarray) -> np.ndarray:
    """The records of the mirrored positions (labels kept)."""
    out = np.array(records, dtype=CONNECT4_RECORD)
    out["first"] = mirror_discs(out["first"])
    out["second"] = mirror_discs(out["second"])
    return out


# The layout the records assume: seven 7-bit columns, six cells each.
assert BIT_NB == WIDTH * COLUMN_BITS and HEIGHT == COLUMN_BITS - 1
