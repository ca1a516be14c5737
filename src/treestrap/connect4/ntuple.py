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

from typing import NamedTuple

import numpy as np

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


# --- the same sum read column by column, from compact tables ---------------------------

#: A column holding ``h`` discs (0-6) is in one of ``2**h`` states, by which of them
#: are the first player's: 127 states in all, numbered ``2**h - 1 + first's bits``.
COLUMN_STATES = 2 ** (HEIGHT + 1) - 1


class TupleColumns(NamedTuple):
    """An n-tuple buffer re-read column by column (:func:`tuple_columns`).

    A tuple's pattern is the patterns of its cells in each column it touches, and a
    column's part follows from that column's state alone. So each column state holds
    one row of numbers, one per tuple image: that column's part of every image's index
    into compact tables, which keep only the patterns a board can show (about a
    fourteenth of the ``4**L`` entries, so they stay in the CPU's cache). An index is
    the image's base plus seven rows, added as whole vectors."""

    rows: np.ndarray  # int32[WIDTH, COLUMN_STATES, 2T]: each column state's parts
    base: np.ndarray  # int32[2T]: where each image's compact table starts
    tables: np.ndarray  # float64: the compact tables, entries copied from the buffer
    index: np.ndarray  # int32[2T] scratch: each image's index


def _column_pattern(rows: list[tuple[int, int]], height: int, first: int) -> tuple[int, ...]:
    """The states of a tuple's cells ``(position in tuple, row)`` in one column."""
    found = []
    for _, row in rows:
        if row > height:
            found.append(UNREACHABLE)
        elif row == height:
            found.append(PLAYABLE)
        else:
            found.append(FIRST if first >> row & 1 else SECOND)
    return tuple(found)


def tuple_columns(buf: np.ndarray) -> TupleColumns:
    """The column form of an n-tuple buffer: the same values, entry for entry."""
    count, length = int(buf[H_TUPLES]), int(buf[H_LENGTH])
    cells = buf[HEADER : HEADER + count * length].astype(np.int64).reshape(count, length)
    tables = buffer_tables(buf).reshape(count, table_size(length))
    groups_of = []
    for t in range(count):
        groups: dict[int, list[tuple[int, int]]] = {}
        for j, cell in enumerate(cells[t].tolist()):
            groups.setdefault(cell // HEIGHT, []).append((j, cell % HEIGHT))
        groups_of.append(groups)
    rows = np.zeros((WIDTH, COLUMN_STATES, 2 * count), dtype=np.int64)
    base = np.zeros(2 * count, dtype=np.int64)
    compact: list[np.ndarray] = []
    at = 0
    for t, groups in enumerate(groups_of):
        stride = 1
        full_parts = []
        for col, cells_here in groups.items():
            ranks: dict[tuple[int, ...], int] = {}
            full = []
            for height in range(HEIGHT + 1):
                for first in range(1 << height):
                    pattern = _column_pattern(cells_here, height, first)
                    if pattern not in ranks:
                        ranks[pattern] = len(ranks)
                        full.append(
                            sum(
                                state * STATES ** (length - 1 - j)
                                for (j, _), state in zip(cells_here, pattern, strict=True)
                            )
                        )
                    state = (1 << height) - 1 + first
                    # the mirror image reads the same cells of the mirrored column
                    rows[col, state, t] = rows[WIDTH - 1 - col, state, count + t] = (
                        ranks[pattern] * stride
                    )
            stride *= len(ranks)
            full_parts.append(np.array(full, dtype=np.int64))
        # every compact index's full index: the first column varies fastest
        grid = full_parts[-1]
        for part in reversed(full_parts[:-1]):
            grid = np.add.outer(grid, part).reshape(-1)
        base[t] = base[count + t] = at
        compact.append(tables[t, grid])
        at += grid.size
    tables = np.concatenate(compact)
    if tables.size >= 2**31:
        raise ValueError("n-tuple tables too large for their column form")
    return TupleColumns(
        rows.astype(np.int32), base.astype(np.int32), tables, np.zeros(2 * count, np.int32)
    )


@njit(inline="always")
def columns_value(pos: Position, form: TupleColumns) -> float:
    """:func:`ntuple_value` read through the column form: the same entries summed in
    the same order, so the same value to the last bit."""
    index = form.index
    images = index.shape[0]
    for i in range(images):
        index[i] = form.base[i]
    first = pos.discs[0]
    for col in range(WIDTH):
        height = np.int64(pos.heights[col])
        own = (first >> np.uint64(col * (HEIGHT + 1))) & np.uint64((1 << height) - 1)
        row = form.rows[col, (1 << height) - 1 + np.int64(own)]
        for i in range(images):
            index[i] += row[i]
    z = 0.0
    for i in range(images):
        z += form.tables[index[i]]
    v = POINTS_PER_LOGIT * z
    return v if pos.st[ST_PLY] & 1 == 0 else -v
