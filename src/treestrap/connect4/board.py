"""The Connect Four position: plain arrays, moves into a caller's buffer, make/unmake
with an incremental hash, the end of the game, and move strings.

A :class:`Position` is a named tuple of NumPy arrays (as the chess core's is), which
numba passes to kernels and mutates in place. A move is a column, 0..6 from the left;
move strings number columns 1..7 as the reference data does (``"4453"``).

=========  ==================  ================================================
field      dtype, shape        meaning
=========  ==================  ================================================
discs      uint64[2]           discs of the first (0) and second (1) player, in
                               the layout of :mod:`treestrap.connect4.bits`
heights    int8[7]             discs in each column
st         int64[ST_NB]        scalars, indexed by the ``ST_*`` constants
moves      int8[42]            the column of each ply played
keys       uint64[43]          the hash after each ply; the current is keys[ply]
zobrist    uint64[2, 49]       random key per (player, bit), shared, read only
=========  ==================  ================================================

The side to move is the ply's parity (the first player moves at even plies), so the
hash needs no side key: the discs on the board already fix it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from treestrap.connect4.bits import (
    BIT_NB,
    CELLS,
    CENTRE_ORDER,
    COLUMN_BITS,
    EMPTY,
    HEIGHT,
    ONE,
    WIDTH,
    column_mask,
    has_four,
    playable_cells,
    winning_cells,
)
from treestrap.core.jit import njit

ST_PLY = 0  # discs on the board
ST_WON = 1  # 1 when the last disc made four (the player to move has lost)
ST_NB = 2

#: At most this many moves in a position: the caller's buffers' least length.
MAX_MOVES = WIDTH

#: ``terminal_value`` answers, for the side to move.
LOSS = -1
DRAW = 0
WIN = 1
#: ... and this when the game goes on.
NOT_TERMINAL = 2


class Position(NamedTuple):
    discs: np.ndarray
    heights: np.ndarray
    st: np.ndarray
    moves: np.ndarray
    keys: np.ndarray
    zobrist: np.ndarray


def _splitmix64(seed: int, count: int) -> list[int]:
    """``count`` well-mixed 64-bit numbers from a fixed seed (SplitMix64's steps), so
    the keys are the same in every process and on every machine."""
    out, state, mask = [], seed, (1 << 64) - 1
    for _ in range(count):
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        out.append(z ^ (z >> 31))
    return out


_ZOBRIST: np.ndarray | None = None


def zobrist_table() -> np.ndarray:
    """The process-wide key table (read only), built on first use."""
    global _ZOBRIST
    if _ZOBRIST is None:
        keys = np.array(_splitmix64(0xC0444EC7, 2 * BIT_NB), dtype=np.uint64)
        _ZOBRIST = keys.reshape(2, BIT_NB)
        _ZOBRIST.setflags(write=False)
    return _ZOBRIST


def new_position() -> Position:
    """The empty board, first player to move."""
    return Position(
        discs=np.zeros(2, dtype=np.uint64),
        heights=np.zeros(WIDTH, dtype=np.int8),
        st=np.zeros(ST_NB, dtype=np.int64),
        moves=np.zeros(CELLS, dtype=np.int8),
        keys=np.zeros(CELLS + 1, dtype=np.uint64),
        zobrist=zobrist_table(),
    )


def copy_position(pos: Position) -> Position:
    """An independent copy (the key table is shared: it is read only)."""
    return Position(
        *(a if name == "zobrist" else a.copy() for name, a in zip(pos._fields, pos, strict=True))
    )


# --- queries ---------------------------------------------------------------------


@njit(inline="always")
def ply(pos: Position) -> int:
    return pos.st[ST_PLY]


@njit(inline="always")
def side_to_move(pos: Position) -> int:
    """0 when the first player is to move, 1 for the second."""
    return pos.st[ST_PLY] & 1


@njit(inline="always")
def occupied(pos: Position) -> np.uint64:
    return pos.discs[0] | pos.discs[1]


@njit(inline="always")
def mover_discs(pos: Position) -> np.uint64:
    return pos.discs[pos.st[ST_PLY] & 1]


@njit(inline="always")
def position_key(pos: Position) -> np.uint64:
    return pos.keys[pos.st[ST_PLY]]


@njit
def recompute_key(pos: Position) -> np.uint64:
    """The hash from the discs alone (what the incremental key must equal)."""
    key = EMPTY
    for player in range(2):
        b = pos.discs[player]
        for bit in range(BIT_NB):
            if (b >> np.uint64(bit)) & ONE:
                key ^= pos.zobrist[player, bit]
    return key


@njit(inline="always")
def can_play(pos: Position, col: int) -> bool:
    return pos.heights[col] < HEIGHT


@njit
def terminal_value(pos: Position) -> int:
    """``LOSS`` when the last disc made four (the side to move has lost), ``DRAW`` on a
    full board, ``NOT_TERMINAL`` otherwise. ``WIN`` never comes back: only the player
    who just moved can have won."""
    if pos.st[ST_WON]:
        return LOSS
    if pos.st[ST_PLY] == CELLS:
        return DRAW
    return NOT_TERMINAL


@njit
def legal_moves(pos: Position, buf: np.ndarray) -> int:
    """Write the playable columns into ``buf``, centre first; return their count
    (none once the game is over)."""
    if pos.st[ST_WON]:
        return 0
    n = 0
    for i in range(WIDTH):
        col = CENTRE_ORDER[i]
        if pos.heights[col] < HEIGHT:
            buf[n] = col
            n += 1
    return n


# --- make and unmake -------------------------------------------------------------


@njit
def make_move(pos: Position, col: int) -> None:
    """Drop the mover's disc in ``col`` (which must be legal: not full, game not over)."""
    p = pos.st[ST_PLY]
    side = p & 1
    bit = col * COLUMN_BITS + pos.heights[col]
    pos.discs[side] |= ONE << np.uint64(bit)
    pos.heights[col] += 1
    pos.moves[p] = col
    pos.keys[p + 1] = pos.keys[p] ^ pos.zobrist[side, bit]
    pos.st[ST_PLY] = p + 1
    pos.st[ST_WON] = 1 if has_four(pos.discs[side]) else 0


@njit
def unmake_move(pos: Position) -> None:
    """Take back the last disc. The game was not over before it, so ``ST_WON`` is 0."""
    p = pos.st[ST_PLY] - 1
    side = p & 1
    col = np.int64(pos.moves[p])
    pos.heights[col] -= 1
    bit = col * COLUMN_BITS + pos.heights[col]
    pos.discs[side] ^= ONE << np.uint64(bit)
    pos.st[ST_PLY] = p
    pos.st[ST_WON] = 0


# --- threat-aware move order -----------------------------------------------------

#: Ranks of ``order_moves``, best first.
RANK_WINS = 0  # makes four now
RANK_BLOCKS = 1  # takes the cell where the opponent would make four now
RANK_SAFE = 2  # leaves no opponent four on the cell above it
RANK_GIFT = 3  # lets the opponent make four on top of it


@njit
def move_ranks(pos: Position, ranks: np.ndarray) -> None:
    """``ranks[col]``: the ``RANK_*`` of dropping a disc in ``col`` (-1 when full)."""
    side = pos.st[ST_PLY] & 1
    mask = pos.discs[0] | pos.discs[1]
    playable = playable_cells(mask)
    mine = winning_cells(pos.discs[side], mask)
    theirs = winning_cells(pos.discs[1 - side], mask)
    under_theirs = theirs >> ONE
    for col in range(WIDTH):
        cell = playable & column_mask(col)
        if not cell:
            ranks[col] = -1
        elif cell & mine:
            ranks[col] = RANK_WINS
        elif cell & theirs:
            ranks[col] = RANK_BLOCKS
        elif cell & under_theirs:
            ranks[col] = RANK_GIFT
        else:
            ranks[col] = RANK_SAFE


@njit(allocates=True)
def order_moves(pos: Position, buf: np.ndarray) -> int:
    """The legal moves into ``buf`` in a threat-aware order: winning moves, then moves
    that block the opponent's four, then moves that give no four on top, then the rest;
    centre first within each group. Returns their count."""
    if pos.st[ST_WON]:
        return 0
    ranks = np.empty(WIDTH, dtype=np.int64)
    move_ranks(pos, ranks)
    n = 0
    for rank in range(RANK_GIFT + 1):
        for i in range(WIDTH):
            col = CENTRE_ORDER[i]
            if ranks[col] == rank:
                buf[n] = col
                n += 1
    return n


# --- move strings ----------------------------------------------------------------


def play_moves(pos: Position, text: str) -> Position:
    """Play a move string (columns ``1``..``7``) on ``pos``; raise ``ValueError`` on a
    character that is not a column, a full column or a move after the game ended."""
    for i, ch in enumerate(text):
        if ch not in "1234567":
            raise ValueError(f"move {i + 1} of {text!r}: {ch!r} is not a column 1-7")
        col = int(ch) - 1
        if terminal_value(pos) != NOT_TERMINAL:
            raise ValueError(f"move {i + 1} of {text!r}: the game is already over")
        if not can_play(pos, col):
            raise ValueError(f"move {i + 1} of {text!r}: column {ch} is full")
        make_move(pos, col)
    return pos


def parse_moves(text: str) -> Position:
    """The position after a move string from the empty board (see :func:`play_moves`)."""
    return play_moves(new_position(), text.strip())


def format_moves(pos: Position) -> str:
    """The move string that leads to ``pos`` (the inverse of :func:`parse_moves`)."""
    return "".join(str(int(c) + 1) for c in pos.moves[: int(pos.st[ST_PLY])])


def board_text(pos: Position) -> str:
    """The board as six lines, top row first: ``x`` first player, ``o`` second."""
    rows = []
    for row in range(HEIGHT - 1, -1, -1):
        cells = []
        for col in range(WIDTH):
            bit = 1 << (col * COLUMN_BITS + row)
            first, second = int(pos.discs[0]) & bit, int(pos.discs[1]) & bit
            cells.append("x" if first else "o" if second else ".")
        rows.append("".join(cells))
    return "\n".join(rows)
