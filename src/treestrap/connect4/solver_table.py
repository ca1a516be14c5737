"""The exact solver's transposition table: both bounds of a position's score, keyed by
the position itself, so two positions never share an entry by mistake.

The key (:func:`position_key`, 49 bits) is scrambled by a multiplication by an odd
number modulo 2**49, which is a one-to-one map: its top bits pick the bucket, and the
entry stores the other bits (the tag). Bucket and tag together give back the key, so a
tag match is a position match. An entry is one ``uint64``::

    bits  0-5    upper bound + 32
    bits  6-11   lower bound + 32
    bits 12-14   work class, (empty cells) // 6: a proxy for the subtree's size
    bits 15-63   the tag

A bucket holds two entries (one cache line holds both). The first keeps the entry of the
larger work class, the second takes whatever the first does not, so big subtrees
survive the flood of small ones. Scores lie in -21..22; 31 as an upper bound means
"none". An empty slot is 0, never a real entry (its upper bound field is never 0).
"""

from __future__ import annotations

import numpy as np

from treestrap.connect4.bits import BOTTOM, CELLS, COLUMN_BITS, EMPTY, WIDTH
from treestrap.core.jit import njit

OFFSET = 32
NO_UPPER = 31
KEY_BITS = WIDTH * COLUMN_BITS
_SIX_BITS = np.uint64(63)
_THREE_BITS = np.uint64(7)
_LOWER_SHIFT = np.uint64(6)
_WORK_SHIFT = np.uint64(12)
_TAG_SHIFT = np.uint64(15)
_KEY_MASK = np.uint64((1 << KEY_BITS) - 1)
# Columns 0..6 of a key, and the shifts that swap columns c and 6 - c.
_COL0, _COL1, _COL2, _COL3, _COL4, _COL5, _COL6 = (
    np.uint64(((1 << COLUMN_BITS) - 1) << (c * COLUMN_BITS)) for c in range(WIDTH)
)
_SHIFT6 = np.uint64(6 * COLUMN_BITS)
_SHIFT4 = np.uint64(4 * COLUMN_BITS)
_SHIFT2 = np.uint64(2 * COLUMN_BITS)
#: Odd, so that multiplying by it modulo 2**49 maps keys one to one.
_MIX = np.uint64(0x9E3779B97F4A7C15)


def new_table(bits: int) -> np.ndarray:
    """An empty table of ``2**bits`` entries (8 bytes each)."""
    if not 4 <= bits <= 32:
        raise ValueError(f"table bits must be in 4..32, got {bits}")
    return np.zeros(1 << bits, dtype=np.uint64)


def table_shift(bits: int) -> np.uint64:
    """How far to shift a scrambled key for the bucket index (``2**(bits-1)`` buckets
    of two); the tag is what the shift drops."""
    return np.uint64(KEY_BITS - (bits - 1))


@njit(inline="always")
def position_key(cur: np.uint64, mask: np.uint64) -> np.uint64:
    """One key for a position and its mirror image (they have the same score).

    The mover's discs + all discs is unique per position: the sum stays inside each
    column (the sentinel bit takes the carry), so it also mirrors column by column.
    + BOTTOM keeps every column's part non-zero."""
    key = cur + mask + BOTTOM
    mirrored = (
        ((key & _COL0) << _SHIFT6)
        | ((key & _COL6) >> _SHIFT6)
        | ((key & _COL1) << _SHIFT4)
        | ((key & _COL5) >> _SHIFT4)
        | ((key & _COL2) << _SHIFT2)
        | ((key & _COL4) >> _SHIFT2)
        | (key & _COL3)
    )
    return min(key, mirrored)


@njit(inline="always")
def _scramble(key: np.uint64) -> np.uint64:
    return (key * _MIX) & _KEY_MASK


@njit(inline="always")
def probe(table: np.ndarray, shift: np.uint64, key: np.uint64) -> np.uint64:
    """The entry held for ``key``, or 0."""
    h = _scramble(key)
    i = np.int64(h >> shift) * 2
    tag = h & ((np.uint64(1) << shift) - np.uint64(1))
    for j in range(i, i + 2):
        entry = table[j]
        if entry and entry >> _TAG_SHIFT == tag:
            return entry
    return EMPTY


@njit(inline="always")
def lower_of(entry: np.uint64) -> int:
    return np.int64((entry >> _LOWER_SHIFT) & _SIX_BITS) - OFFSET


@njit(inline="always")
def upper_of(entry: np.uint64) -> int:
    return np.int64(entry & _SIX_BITS) - OFFSET


@njit(inline="always")
def _pack(tag: np.uint64, work: np.uint64, lower: int, upper: int) -> np.uint64:
    return (
        (tag << _TAG_SHIFT)
        | (work << _WORK_SHIFT)
        | (np.uint64(lower + OFFSET) << _LOWER_SHIFT)
        | np.uint64(upper + OFFSET)
    )


@njit(inline="always")
def store(
    table: np.ndarray,
    shift: np.uint64,
    key: np.uint64,
    ply: int,
    lower: int,
    upper: int,
) -> None:
    """Record bounds of a position with ``ply`` discs, merged with those already held
    for it."""
    h = _scramble(key)
    i = np.int64(h >> shift) * 2
    tag = h & ((np.uint64(1) << shift) - np.uint64(1))
    work = np.uint64((CELLS - ply) // 6)
    for j in range(i, i + 2):
        entry = table[j]
        if entry and entry >> _TAG_SHIFT == tag:
            lower = max(lower, lower_of(entry))
            upper = min(upper, upper_of(entry))
            table[j] = _pack(tag, work, lower, upper)
            return
    packed = _pack(tag, work, lower, upper)
    if work >= (table[i] >> _WORK_SHIFT) & _THREE_BITS:
        table[i + 1] = table[i]  # the first slot's old entry takes the second
        table[i] = packed
    else:
        table[i + 1] = packed
