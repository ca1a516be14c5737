"""Connect Four bitboards: the cell numbering, the masks and the bit tricks on them.

The board has 7 columns and 6 rows. Each column takes 7 bits of a 64-bit word, the
six cells bottom to top and one always-empty sentinel bit above them, so cell
``(col, row)`` is bit ``col * 7 + row`` (row 0 at the bottom)::

    6 13 20 27 34 41 48   <- sentinel row, never set
    5 12 19 26 33 40 47
    4 11 18 25 32 39 46
    3 10 17 24 31 38 45
    2  9 16 23 30 37 44
    1  8 15 22 29 36 43
    0  7 14 21 28 35 42

The sentinel keeps shifted lines from wrapping from one column into the next, and makes
``mask + BOTTOM`` land on each column's first empty cell. As in the chess core
(:mod:`treestrap.core.bitboard`), every bitboard and every shift amount is an
``np.uint64``: numba types ``uint64 op int64`` as a float or a signed integer.
"""

from __future__ import annotations

import numpy as np

from treestrap.core.jit import njit

WIDTH = 7
HEIGHT = 6
#: Bits per column: the six cells and the sentinel.
COLUMN_BITS = HEIGHT + 1
CELLS = WIDTH * HEIGHT
#: Bit positions a board uses (sentinels included): the size of per-bit tables.
BIT_NB = WIDTH * COLUMN_BITS

EMPTY = np.uint64(0)
ONE = np.uint64(1)
#: The bottom cell of every column.
BOTTOM = np.uint64(sum(1 << (c * COLUMN_BITS) for c in range(WIDTH)))
#: Every real cell (no sentinels).
BOARD = np.uint64(sum(((1 << HEIGHT) - 1) << (c * COLUMN_BITS) for c in range(WIDTH)))
#: Cells of rows 0, 2 and 4: the first, third and fifth rows counted from 1 ("odd" rows).
ODD_ROWS = np.uint64(sum(0b010101 << (c * COLUMN_BITS) for c in range(WIDTH)))
EVEN_ROWS = BOARD ^ ODD_ROWS

#: Columns from the centre outwards: the order searches try moves in.
CENTRE_ORDER = np.array([3, 2, 4, 1, 5, 0, 6], dtype=np.int64)

_S1 = np.uint64(1)  # vertical neighbour
_S6 = np.uint64(COLUMN_BITS - 1)  # diagonal down-right
_S7 = np.uint64(COLUMN_BITS)  # horizontal neighbour
_S8 = np.uint64(COLUMN_BITS + 1)  # diagonal up-right


def cell_bit(col: int, row: int) -> int:
    """Bit index of a cell (Python ints, for tables and tests)."""
    return col * COLUMN_BITS + row


def column_cells(col: int) -> int:
    """The six cells of a column as a Python int."""
    return ((1 << HEIGHT) - 1) << (col * COLUMN_BITS)


def lines() -> list[tuple[int, int, int, int]]:
    """The 69 four-cell lines as bit indices, in a fixed order: horizontal, vertical,
    diagonal up-right, diagonal down-right, each from its lowest-left cell."""
    found = []
    steps = ((1, 0), (0, 1), (1, 1), (1, -1))
    for dc, dr in steps:
        for col in range(WIDTH):
            for row in range(HEIGHT):
                end_c, end_r = col + 3 * dc, row + 3 * dr
                if 0 <= end_c < WIDTH and 0 <= end_r < HEIGHT:
                    found.append(
                        tuple(cell_bit(col + k * dc, row + k * dr) for k in range(4))  # type: ignore[misc]
                    )
    return found


#: ``LINE_MASKS[i]``: the four cells of line ``i`` as a bitboard (uint64[69]).
LINE_MASKS = np.array([sum(1 << b for b in line) for line in lines()], dtype=np.uint64)
LINE_NB = len(LINE_MASKS)


@njit(inline="always")
def popcount(b: np.uint64) -> int:
    """Number of set bits (LLVM turns this loop into one POPCNT where the CPU has it)."""
    n = 0
    while b:
        b &= b - ONE
        n += 1
    return n


@njit(inline="always")
def lowest_bit_index(b: np.uint64) -> int:
    """Index of the lowest set bit of a non-empty bitboard."""
    return popcount((b & (EMPTY - b)) - ONE)


@njit(inline="always")
def column_mask(col: int) -> np.uint64:
    return np.uint64((1 << HEIGHT) - 1) << np.uint64(col * COLUMN_BITS)


@njit(inline="always")
def playable_cells(mask: np.uint64) -> np.uint64:
    """The cell a disc dropped in each non-full column would take."""
    return (mask + BOTTOM) & BOARD


@njit(inline="always")
def has_four(b: np.uint64) -> bool:
    """Whether the discs ``b`` hold four in a line in any direction."""
    m = b & (b >> _S1)
    if m & (m >> np.uint64(2)):
        return True
    m = b & (b >> _S7)
    if m & (m >> np.uint64(2 * COLUMN_BITS)):
        return True
    m = b & (b >> _S6)
    if m & (m >> np.uint64(2 * (COLUMN_BITS - 1))):
        return True
    m = b & (b >> _S8)
    return (m & (m >> np.uint64(2 * (COLUMN_BITS + 1)))) != EMPTY


@njit(inline="always")
def _completions(b: np.uint64, s: np.uint64) -> np.uint64:
    """Cells that would finish a line of ``b`` along shift ``s`` (both ways), occupied
    or not: the cell beyond three in a row, or the gap of ``xx.x`` / ``x.xx``."""
    two_up = (b << s) & (b << (s + s))  # the two cells below a cell are b's
    found = two_up & (b << (s + s + s))  # three below
    found |= two_up & (b >> s)  # two below, one above
    two_down = (b >> s) & (b >> (s + s))
    found |= two_down & (b >> (s + s + s))
    found |= two_down & (b << s)
    return found


@njit(inline="always")
def winning_cells(b: np.uint64, mask: np.uint64) -> np.uint64:
    """Empty cells where a disc of ``b``'s owner would make four (``mask``: all discs).
    Playable or not: a threat higher up a column counts too."""
    # vertical: only the cell on top of three can complete a column line
    found = (b << _S1) & (b << np.uint64(2)) & (b << np.uint64(3))
    found |= _completions(b, _S7)
    found |= _completions(b, _S6)
    found |= _completions(b, _S8)
    return found & (BOARD ^ mask)
