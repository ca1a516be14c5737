"""An exact Connect Four solver: the game-theoretic score of a position and of each
column, in the units of the reference data (``reference/README.md``).

Scores. For the side to move, 0 is a draw; a win is ``22 - d`` where ``d`` is the
number of discs the winner will have played when it makes four (so a quicker win scores
more, and ``+1`` is a win with the board's last disc); a loss is minus the opponent's
win score. A column's score is the score of dropping a disc there for the side to move.

How. A negamax alpha-beta over two bitboards (the mover's discs and all discs), with:

* only non-losing moves searched: a cell where the opponent makes four now must be
  taken (two such cells lose at once), and a cell right below one of the opponent's
  winning cells is never played; so no node's mover can win at once, and the score
  window of a node is known from its ply alone and clamps alpha and beta;
* a transposition table holding both bounds per position, keyed by the position itself
  (no collisions) and shared with its mirror image (:mod:`.solver_table`);
* enhanced transposition cutoffs: a child's entry may refute a node before any child
  is searched;
* moves ordered by the winning cells they leave their player, centre first among
  equals (ordering by the lines through the cell too saved nodes but cost more time);
* the exact score found by null-window searches stepping from 0 (see
  :meth:`Solver._search`).

The recursive kernel is called from Python only, one null window per call (see
:mod:`treestrap.core.jit` on recursion and the cache).

Two kinds of instance: the oracle of the measurements (no node limit), and a timed
player's proof (:mod:`treestrap.connect4.proof`), its own instance and table under a
node limit (:meth:`Solver.limit_nodes`); neither reads the other's table.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from treestrap.connect4.bits import (
    BOARD,
    BOTTOM,
    CELLS,
    CENTRE_ORDER,
    EMPTY,
    ONE,
    WIDTH,
    column_mask,
    popcount,
    winning_cells,
)
from treestrap.connect4.board import ST_PLY, ST_WON, Position, make_move, unmake_move
from treestrap.connect4.solver_table import (
    NO_UPPER,
    lower_of,
    new_table,
    position_key,
    probe,
    store,
    table_shift,
    upper_of,
)
from treestrap.core.jit import njit

#: A column's score when it is full (the reference data's marker).
FULL_COLUMN = -1000


#: Counters and the node limit in ``stats``.
STAT_NODES = 0
STAT_TT_HITS = 1
STAT_LIMIT = 2  # stop once this many nodes are counted
STAT_STOPPED = 3
STAT_NB = 4
#: The limit of a search without one.
NO_LIMIT = 2**62


class BudgetSpent(Exception):
    """A search stopped by its node limit (what it stored before holds)."""


def win_now_score(ply: int) -> int:
    """The score of making four with the next disc, ``ply`` discs on the board."""
    return (CELLS + 1 - ply) // 2


@njit
def negamax(
    cur: np.uint64,
    mask: np.uint64,
    ply: np.int64,
    alpha: np.int64,
    beta: np.int64,
    table: np.ndarray,
    shift: np.uint64,
    order: np.ndarray,
    stats: np.ndarray,
) -> np.int64:
    """The score of the position, with the guarantee of alpha-beta: a result at or
    below ``alpha`` is an upper bound, at or above ``beta`` a lower bound, else exact.

    ``cur`` holds the mover's discs and ``mask`` all discs; the mover cannot make four
    with this disc (every caller makes sure). ``order`` is ``int64[CELLS + 1, WIDTH]``
    scratch, one row per ply. Once ``stats[STAT_LIMIT]`` nodes are counted it sets
    ``stats[STAT_STOPPED]`` and returns 0, storing nothing on the way back."""
    stats[STAT_NODES] += 1
    if stats[STAT_NODES] >= stats[STAT_LIMIT]:
        stats[STAT_STOPPED] = 1
        return np.int64(0)
    playable = (mask + BOTTOM) & BOARD
    theirs = winning_cells(cur ^ mask, mask)
    forced = playable & theirs
    if forced:
        if forced & (forced - ONE):
            return -((CELLS - ply) // 2)  # two fours to stop: the opponent wins next
        playable = forced
    playable &= ~(theirs >> ONE)  # a disc under their winning cell hands it over
    if not playable:
        return -((CELLS - ply) // 2)
    if ply >= CELLS - 2:
        return np.int64(0)  # two discs left, neither can make four: a draw
    # The opponent cannot win next move, nor we with this one: the score lies within.
    lowest = -((CELLS - 2 - ply) // 2)
    highest = (CELLS - 1 - ply) // 2
    key = position_key(cur, mask)
    entry = probe(table, shift, key)
    if entry:
        stats[STAT_TT_HITS] += 1
        lowest = max(lowest, lower_of(entry))
        highest = min(highest, upper_of(entry))
    if alpha < lowest:
        alpha = lowest
        if alpha >= beta:
            return alpha
    if beta > highest:
        beta = highest
        if alpha >= beta:
            return beta

    # Order: most winning cells after the move first, centre first among equals
    # (insertion sort of at most 7 columns, scores packed above the column).
    row = order[ply]
    n = 0
    for i in range(WIDTH):
        col = CENTRE_ORDER[i]
        move = playable & column_mask(col)
        if move:
            # a child's upper bound may refute this node before any child is searched
            # (enhanced transposition cutoff)
            child = probe(table, shift, position_key(cur ^ mask, mask | move))
            if child and -upper_of(child) >= beta:
                store(table, shift, key, ply, -upper_of(child), NO_UPPER)
                return -upper_of(child)
            score = popcount(winning_cells(cur | move, mask)) * 8 + (WIDTH - i)
            j = n
            while j > 0 and row[j - 1] < score:
                row[j] = row[j - 1]
                j -= 1
            row[j] = score
            n += 1
    # Fail-soft: below alpha, the best child's bound is returned (a tighter upper bound
    # than alpha). It is never below ``lowest``: some child reaches the true score.
    best = np.int64(-CELLS)
    for k in range(n):
        col = CENTRE_ORDER[WIDTH - (row[k] & 7)]
        move = playable & column_mask(col)
        value = -negamax(
            cur ^ mask, mask | move, np.int64(ply + 1), -beta, -alpha, table, shift, order, stats
        )
        if stats[STAT_STOPPED]:
            return np.int64(0)
        if value >= beta:
            store(table, shift, key, ply, value, NO_UPPER)
            return value
        if value > best:
            best = value
            if value > alpha:
                alpha = value
                lowest = value  # reached by a move: exact once the loop ends
    store(table, shift, key, ply, lowest, best)
    return best


@njit
def can_win_now(cur: np.uint64, mask: np.uint64) -> bool:
    """Whether the side to move (discs ``cur``, all discs ``mask``) has a winning drop."""
    return (winning_cells(cur, mask) & ((mask + BOTTOM) & BOARD)) != EMPTY


class Solver:
    """An exact solver with its own transposition table (kept between calls: entries
    are exact facts about positions, whatever position was asked).

    ``table_bits``: the table holds ``2**table_bits`` entries of 8 bytes. The default
    (8 MiB) was the fastest over the reference positions: a larger table saves nodes but
    leaves the CPU's cache, which costs more. Solving from near the empty board wants
    a larger one."""

    def __init__(self, table_bits: int = 20) -> None:
        if not 10 <= table_bits <= 30:
            raise ValueError(f"table_bits must be in 10..30, got {table_bits}")
        self.table = new_table(table_bits)
        self.shift = table_shift(table_bits)
        self.order = np.zeros((CELLS + 1, WIDTH), dtype=np.int64)
        self.stats = np.zeros(STAT_NB, dtype=np.int64)
        self.stats[STAT_LIMIT] = NO_LIMIT

    @property
    def nodes(self) -> int:
        """Nodes searched since this solver was made."""
        return int(self.stats[STAT_NODES])

    def clear(self) -> None:
        self.table[:] = 0

    def limit_nodes(self, count: int | None) -> None:
        """Stop every later search once ``count`` more nodes are searched (``None``: no
        limit); a stopped search raises :class:`BudgetSpent`."""
        self.stats[STAT_LIMIT] = NO_LIMIT if count is None else self.nodes + max(count, 1)

    def _bitboards(self, pos: Position) -> tuple[np.uint64, np.uint64, int]:
        ply = int(pos.st[ST_PLY])
        return pos.discs[ply & 1], pos.discs[0] | pos.discs[1], ply

    def _null_window(self, cur: np.uint64, mask: np.uint64, ply: int, probe: int) -> int:
        """Whether the score is above ``probe``: a result <= probe bounds it from
        above, one > probe from below."""
        value = negamax(
            cur,
            mask,
            np.int64(ply),
            np.int64(probe),
            np.int64(probe + 1),
            self.table,
            self.shift,
            self.order,
            self.stats,
        )
        if self.stats[STAT_STOPPED]:
            self.stats[STAT_STOPPED] = 0
            raise BudgetSpent
        return int(value)

    def _search(
        self, cur: np.uint64, mask: np.uint64, ply: int, low: int, high: int, on_bound: Any
    ) -> int:
        """The exact score of a position whose mover cannot make four at once, known to
        lie in ``low..high``.

        By null windows only. Scores near 0 (long games) are the costly ones to settle,
        so the first window asks win or not (0), and each next one the score just
        beyond the bound found (a fail-soft bound is often the score itself); once the
        bounds have come from both sides, the range between is halved. ``on_bound``
        (if given) is told ``(low, high)`` after each window."""
        low = max(low, -((CELLS - ply) // 2))
        high = min(high, (CELLS - 1 - ply) // 2)
        probe = min(max(0, low), high - 1)
        first_side = 0
        while low < high:
            value = self._null_window(cur, mask, ply, probe)
            side = -1 if value <= probe else 1
            if side < 0:
                high = value
            else:
                low = value
            if on_bound is not None:
                on_bound(low, high)
            first_side = first_side or side
            if side == first_side:
                probe = high - 1 if side < 0 else low
            else:
                probe = low + (high - low) // 2
            probe = min(max(probe, low), high - 1)
        return low

    def _exact(self, pos: Position) -> int | None:
        """The score where it needs no search (a finished game, a win at once)."""
        cur, mask, ply = self._bitboards(pos)
        if pos.st[ST_WON]:
            return -(win_now_score(ply - 1))  # the opponent's last disc made four
        if ply == CELLS:
            return 0
        if can_win_now(cur, mask):
            return win_now_score(ply)
        return None

    def bound(self, pos: Position, probe: int) -> int:
        """One null window around ``probe``: a result ``<= probe`` is an upper bound
        of the score, one ``> probe`` a lower bound (fail-soft, so often the score)."""
        exact = self._exact(pos)
        if exact is not None:
            return exact
        cur, mask, ply = self._bitboards(pos)
        low = -((CELLS - ply) // 2)
        high = (CELLS - 1 - ply) // 2
        return self._null_window(cur, mask, ply, min(max(probe, low), high - 1))

    def solve(
        self, pos: Position, low: int = -CELLS, high: int = CELLS, on_bound: Any = None
    ) -> int:
        """The exact score of ``pos`` for its side to move; ``low``/``high`` are bounds
        already known (from a cache), ``on_bound`` is told each narrower pair."""
        exact = self._exact(pos)
        if exact is not None:
            return exact
        cur, mask, ply = self._bitboards(pos)
        return self._search(cur, mask, ply, low, high, on_bound)

    def analyze(self, pos: Position) -> np.ndarray:
        """``int64[7]``: the exact score of each column for the side to move, from the
        left, ``FULL_COLUMN`` where the column is full (the reference file's line)."""
        if pos.st[ST_WON] or pos.st[ST_PLY] == CELLS:
            raise ValueError("the game is over: no column has a score")
        scores = np.full(WIDTH, FULL_COLUMN, dtype=np.int64)
        ply = int(pos.st[ST_PLY])
        for col in range(WIDTH):
            if pos.heights[col] >= 6:
                continue
            make_move(pos, col)
            try:
                scores[col] = -self.solve(pos)
            finally:
                unmake_move(pos)
        assert ply == pos.st[ST_PLY]
        return scores

    def best_moves(self, pos: Position) -> list[int]:
        """The columns (0..6) of the highest score."""
        scores = self.analyze(pos)
        return [c for c in range(WIDTH) if scores[c] == scores.max()]
