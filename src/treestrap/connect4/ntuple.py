"""An n-tuple evaluation of Connect Four, compiled: a sum of table entries, one per
tuple of cells and per mirror image, indexed by what those cells hold.

Each tuple is a fixed list of ``L`` cells (a random walk over neighbouring cells,
drawn once from a seed). A cell is in one of four states: empty and not playable yet,
empty and playable now, a first-player disc, a second-player disc; so a tuple's cells
pick one of ``4**L`` entries of its table. The value is the sum of the ``T`` tuples'
entries over the board and over its mirror image (the same table read through the
mirrored cells), so the evaluation is symmetric by construction. The sum ``z`` is for
the first player, colour-absolute as the network's inputs are; a search sees
``POINTS_PER_LOGIT * z`` for the side to move.

In linear terms ``z = theta . phi(s)`` with ``phi`` the one-hot pattern of every tuple:
a very large, very sparse linear evaluation. Learners update the table entries that
were read, which is what :mod:`treestrap.connect4.ntuple_td` does.

One buffer, as the network's (:mod:`treestrap.connect4.network`): an evaluator's
``weights`` hold a header, the cells, the mirrored cells and the tables, so every
compiled search takes it unchanged.

=====================  =====================================================
``[0, HEADER)``        ``MAGIC``, ``T``, ``L``, the tables' offset
``[HEADER, +T*L)``     each tuple's cells (``col * 6 + row``), as floats
``[.., +T*L)``         the same cells mirrored (column ``6 - col``)
``[tables, end)``      ``T`` tables of ``4**L`` entries, tuple-major
=====================  =====================================================
"""

from __future__ import annotations

import numpy as np

from treestrap.connect4.bits import BOARD as _BOARD
from treestrap.connect4.bits import BOTTOM as _BOTTOM
from treestrap.connect4.bits import CELLS, HEIGHT, WIDTH
from treestrap.connect4.board import ST_PLY, Position
from treestrap.connect4.network import POINTS_PER_LOGIT
from treestrap.core.jit import njit

#: Marks an n-tuple buffer (a network buffer's first entry is its own magic).
MAGIC = 44.0e6 + 4.0
H_MAGIC = 0
H_TUPLES = 1
H_LENGTH = 2
H_TABLES = 3
HEADER = 4
#: Cell states: what a tuple's index is made of, two bits a cell.
UNREACHABLE = 0
PLAYABLE = 1
FIRST = 2
SECOND = 3
STATES = 4
#: The longest tuple the tables allow (4**10 entries a tuple is already 8 MiB).
MAX_LENGTH = 10


def cell_index(col: int, row: int) -> int:
    return col * HEIGHT + row


def mirrored(cell: int) -> int:
    """The cell's mirror image across the centre column."""
    return cell_index(WIDTH - 1 - cell // HEIGHT, cell % HEIGHT)


def random_walk_tuples(count: int, length: int, seed: int) -> np.ndarray:
    """``count`` distinct tuples of ``length`` cells, int64[count, length]: each a walk
    from a random cell to a random unvisited neighbour (the 8 directions), drawn from
    ``seed``. A tuple and its mirror image count as the same tuple."""
    if not 1 <= length <= MAX_LENGTH:
        raise ValueError(f"a tuple's length must be 1-{MAX_LENGTH}, got {length}")
    if count < 1:
        raise ValueError(f"at least one tuple, got {count}")
    rng = np.random.default_rng(seed)
    tuples: list[list[int]] = []
    seen: set[frozenset[int]] = set()
    attempts = 0
    while len(tuples) < count:
        attempts += 1
        if attempts > 1000 * count:
            raise ValueError(f"cannot draw {count} distinct tuples of {length} cells")
        col, row = int(rng.integers(WIDTH)), int(rng.integers(HEIGHT))
        walk = [cell_index(col, row)]
        while len(walk) < length:
            steps = [
                cell_index(col + dc, row + dr)
                for dc in (-1, 0, 1)
                for dr in (-1, 0, 1)
                if (dc or dr)
                and 0 <= col + dc < WIDTH
                and 0 <= row + dr < HEIGHT
                and cell_index(col + dc, row + dr) not in walk
            ]
            if not steps:
                break
            cell = steps[int(rng.integers(len(steps)))]
            walk.append(cell)
            col, row = cell // HEIGHT, cell % HEIGHT
        key = frozenset(walk)
        if len(walk) < length or key in seen or frozenset(map(mirrored, walk)) in seen:
            continue
        seen.add(key)
        tuples.append(walk)
    return np.array(tuples, dtype=np.int64)


def tuple_cells(tuples: np.ndarray) -> np.ndarray:
    """int64[2T, L]: the tuples' cells, then the same cells mirrored (the order the
    buffer and the TD learner read them in)."""
    tuples = np.asarray(tuples, dtype=np.int64)
    mirror = np.vectorize(mirrored, otypes=[np.int64])(tuples) if tuples.size else tuples
    return np.ascontiguousarray(np.concatenate([tuples, mirror]), dtype=np.int64)


def table_size(length: int) -> int:
    return STATES**length


def ntuple_buffer(tuples: np.ndarray, tables: np.ndarray) -> np.ndarray:
    """A fresh evaluator buffer for ``tuples`` (int[T, L]) and ``tables``
    (float64[T * 4**L], tuple-major)."""
    tuples = np.asarray(tuples, dtype=np.int64)
    count, length = tuples.shape
    tables = np.asarray(tables, dtype=np.float64).reshape(-1)
    if tables.size != count * table_size(length):
        raise ValueError(f"{tables.size} table entries for {count} tuples of {length} cells")
    if tuples.min() < 0 or tuples.max() >= CELLS:
        raise ValueError("a tuple's cells must be 0-41")
    at = HEADER + 2 * count * length
    buf = np.zeros(at + tables.size, dtype=np.float64)
    buf[H_MAGIC] = MAGIC
    buf[H_TUPLES] = count
    buf[H_LENGTH] = length
    buf[H_TABLES] = at
    buf[HEADER:at] = tuple_cells(tuples).reshape(-1)
    buf[at:] = tables
    return buf


def is_ntuple_buffer(weights: np.ndarray) -> bool:
    return weights.shape[0] > HEADER and weights[H_MAGIC] == MAGIC


def buffer_tables(buf: np.ndarray) -> np.ndarray:
    """The tables of an n-tuple buffer: a view, so writing it changes the evaluation."""
    return buf[int(buf[H_TABLES]) :]


@njit(inline="always")
def cell_state(pos: Position, col: int, row: int) -> int:
    h = pos.heights[col]
    if row > h:
        return UNREACHABLE
    if row == h:
        return PLAYABLE
    bit = np.uint64(col * (HEIGHT + 1) + row)
    return FIRST if (pos.discs[0] >> bit) & np.uint64(1) else SECOND


@njit
def fill_states(pos: Position, states: np.ndarray) -> None:
    """Every cell's state into ``states`` (int64[42], index ``col * 6 + row``)."""
    for col in range(WIDTH):
        for row in range(HEIGHT):
            states[col * HEIGHT + row] = cell_state(pos, col, row)


@njit
def tuple_sum(w: np.ndarray, states: np.ndarray) -> float:
    """``z``, the first player's sum over every tuple and its mirror image."""
    count = int(w[H_TUPLES])
    length = int(w[H_LENGTH])
    tables = int(w[H_TABLES])
    size = STATES**length
    z = 0.0
    for image in range(2):
        cells = HEADER + image * count * length
        for t in range(count):
            k = 0
            base = cells + t * length
            for j in range(length):
                k = k * STATES + states[int(w[base + j])]
            z += w[tables + t * size + k]
    return z


@njit
def ntuple_value(pos: Position, w: np.ndarray, states: np.ndarray) -> tuple[float, int]:
    """``(H(s), 0)``: the value for the side to move. No gradient pairs: the tables
    learn from :mod:`treestrap.connect4.ntuple_td`, not from search-tree records."""
    fill_states(pos, states)
    v = POINTS_PER_LOGIT * tuple_sum(w, states)
    return (v if pos.st[ST_PLY] & 1 == 0 else -v), 0


def tuple_bits(buf: np.ndarray) -> np.ndarray:
    """int64[2T * L]: the buffer's cells (tuples, then their mirror images) as bit
    indices of :mod:`treestrap.connect4.bits`, for :func:`bits_value`."""
    count, length = int(buf[H_TUPLES]), int(buf[H_LENGTH])
    cells = buf[HEADER : HEADER + 2 * count * length].astype(np.int64)
    return (cells // HEIGHT) * (HEIGHT + 1) + cells % HEIGHT


@njit(inline="always")
def bits_value(
    first: np.uint64, mask: np.uint64, ply: int, w: np.ndarray, bits: np.ndarray
) -> float:
    """:func:`ntuple_value` from bitboards (``first``: the first player's discs,
    ``mask``: all discs), with the cells as bit indices (:func:`tuple_bits`): the same
    sum in the same order, without a state array. Each cell's state is two bits, one
    from each of two boards: occupied (the high bit) and second player's or playable
    (the low bit)."""
    count = int(w[H_TUPLES])
    length = int(w[H_LENGTH])
    tables = int(w[H_TABLES])
    size = STATES**length
    high = mask
    low = (mask ^ first) | ((mask + _BOTTOM) & _BOARD)
    one = np.uint64(1)
    z = 0.0
    c = 0
    for t in range(2 * count):
        k = 0
        for _ in range(length):
            b = np.uint64(bits[c])
            k = k * STATES + np.int64((high >> b) & one) * 2 + np.int64((low >> b) & one)
            c += 1
        z += w[tables + (t % count) * size + k]
    v = POINTS_PER_LOGIT * z
    return v if ply & 1 == 0 else -v
