"""Connect Four's playing search: an alpha-beta over bitboards that proves what the rules
decide and asks the learned evaluation only at its horizon.

The training searches (:mod:`treestrap.connect4.search`) walk every legal move, as
the learning rules need every node's value. A player needs only the best move, so this
search cuts what the rules settle without looking:

* the side to move never has a winning drop at a node (a node whose mover could win
  is never entered: its parent's move would have to let it), so the game's end is seen
  one ply early, from the opponent's threats: two cells where the opponent makes four
  next lose at once, one must be taken, and a cell right under an opponent's winning
  cell is never played;
* a forced reply (one move left after that) costs no depth, so forcing lines are read
  to their end;
* a win or loss scores by the disc that makes four (``MATE - discs``, a quicker win
  higher), counted from the empty board: a position's score is the same whatever ply
  of the search reaches it, so the table keeps it as it is, and a window narrows to the
  scores still reachable;
* the rest is principal variation search (null windows after the first move) over a
  transposition table (always replaced) whose move is tried first; then the moves that
  leave their player the most cells where it would make four, centre first.

At the horizon the value is the model's evaluation (:func:`~treestrap.connect4.evaluator.evaluate`,
clipped as every search clips it), so any Connect Four model plays through it.

The learned player proves results with it and never consults the exact solver
(:mod:`treestrap.connect4.solver`, the oracle of measurements): nothing here reads
its table or a book.

The recursive kernel is called from Python only (see :mod:`treestrap.core.jit` on
recursion and the cache); :class:`PlaySearch` drives the iterative deepening.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from treestrap.connect4.bits import (
    BOARD,
    BOTTOM,
    CELLS,
    CENTRE_ORDER,
    ONE,
    WIDTH,
    column_mask,
    popcount,
    winning_cells,
)
from treestrap.connect4.board import ST_PLY, ST_WON, Position, make_move, unmake_move
from treestrap.connect4.evaluator import Connect4Evaluator, evaluate
from treestrap.connect4.ntuple import (
    COLUMN_STATES,
    TupleColumns,
    columns_value,
    is_ntuple_buffer,
    tuple_columns,
)
from treestrap.core.jit import njit
from treestrap.search.value import MATE, MATE_BOUND, clip_value

#: Counters and limits in ``stats``.
STAT_NODES = 0
STAT_EVALS = 1
STAT_LIMIT = 2  # stop at this many nodes (0: no limit)
STAT_STOPPED = 3
STAT_NB = 4

#: Table entry bounds (bits 8-9 of an entry's info).
LOWER = 1
UPPER = 2
EXACT = 3
#: Odd, so multiplying by it mixes a key's bits into the index bits without collisions.
_MIX = np.uint64(0x9E3779B97F4A7C15)
#: The null window's width: values are floats in points (a logit is about 174).
NULL_WINDOW = 0.01


@njit(inline="always")
def win_score(disc: int) -> float:
    """The winner's score of a game won by the ``disc``-th disc of the board."""
    return MATE - disc


@njit(inline="always")
def _table_index(key: np.uint64, shift: np.uint64) -> int:
    return np.int64((key * _MIX) >> shift)


@njit
def negamax(
    pos: Position,
    ev: Connect4Evaluator,
    depth: np.int64,
    alpha: np.float64,
    beta: np.float64,
    keys: np.ndarray,
    values: np.ndarray,
    infos: np.ndarray,
    shift: np.uint64,
    order: np.ndarray,
    stats: np.ndarray,
    form: TupleColumns,
) -> np.float64:
    """The fail-soft value of ``pos`` for its side to move, who cannot win with this
    disc (every caller makes sure): at or below ``alpha`` an upper bound, at or above
    ``beta`` a lower bound, else exact to ``depth`` plies (forced replies are free).
    Returns 0 with ``stats[STAT_STOPPED]`` set once the node limit is reached.
    ``form``: an n-tuple model in its column form
    (:func:`~treestrap.connect4.ntuple.tuple_columns`), or one without tables for any
    other model."""
    stats[STAT_NODES] += 1
    if stats[STAT_LIMIT] and stats[STAT_NODES] >= stats[STAT_LIMIT]:
        stats[STAT_STOPPED] = 1
        return np.float64(0.0)
    ply = pos.st[ST_PLY]
    cur = pos.discs[ply & 1]
    mask = pos.discs[0] | pos.discs[1]
    playable = (mask + BOTTOM) & BOARD
    theirs = winning_cells(cur ^ mask, mask)
    forced = playable & theirs
    lost = -win_score(ply + 2)  # the opponent's next disc makes four
    if forced:
        if forced & (forced - ONE):
            return np.float64(lost)
        playable = forced
    playable &= ~(theirs >> ONE)  # a disc under their winning cell hands it over
    if not playable:
        return np.float64(lost)
    if ply >= CELLS - 2:
        return np.float64(0.0)  # neither of the last two discs can make four
    # The scores still reachable: a win with our next disc but one, at best; a loss to
    # their next disc but one, at worst.
    highest = win_score(ply + 3)
    if beta > highest:
        beta = highest
        if alpha >= beta:
            return np.float64(beta)
    lowest = -win_score(ply + 4)
    if alpha < lowest:
        alpha = lowest
        if alpha >= beta:
            return np.float64(alpha)
    if depth <= 0 and not forced:
        stats[STAT_EVALS] += 1
        if form.tables.shape[0]:
            return np.float64(clip_value(columns_value(pos, form)))
        return np.float64(clip_value(evaluate(pos, ev)))

    key = cur + mask + BOTTOM  # unique per position
    slot = _table_index(key, shift)
    table_move = -1
    if keys[slot] == key:
        info = infos[slot]
        table_move = np.int64((info >> 12) & 15) - 1
        stored = values[slot]
        if info & 255 >= max(depth, 0):
            bound = (info >> 8) & 3
            if bound == EXACT:
                return np.float64(stored)
            if bound == LOWER and stored >= beta:
                return np.float64(stored)
            if bound == UPPER and stored <= alpha:
                return np.float64(stored)

    # Order: the table's move, then the most winning cells left to the mover, centre
    # first among equals (insertion sort; the centre index in the low three bits).
    row = order[ply]
    n = 0
    for i in range(WIDTH):
        col = CENTRE_ORDER[i]
        move = playable & column_mask(col)
        if move:
            if col == table_move:
                score = 1 << 12
            else:
                score = popcount(winning_cells(cur | move, mask | move)) * 8 + (WIDTH - i)
            packed = score * 8 + i
            j = n
            while j > 0 and row[j - 1] < packed:
                row[j] = row[j - 1]
                j -= 1
            row[j] = packed
            n += 1

    window_low = alpha
    best = -MATE
    best_move = -1
    child_depth = np.int64(depth - 1)
    for k in range(n):
        col = CENTRE_ORDER[row[k] & 7]
        make_move(pos, col)
        if k == 0:
            value = -negamax(
                pos, ev, child_depth, -beta, -alpha, keys, values, infos, shift, order, stats, form
            )
        else:
            value = -negamax(
                pos,
                ev,
                child_depth,
                np.float64(-alpha - NULL_WINDOW),
                -alpha,
                keys,
                values,
                infos,
                shift,
                order,
                stats,
                form,
            )
            if alpha < value < beta and not stats[STAT_STOPPED]:
                value = -negamax(
                    pos,
                    ev,
                    child_depth,
                    -beta,
                    -alpha,
                    keys,
                    values,
                    infos,
                    shift,
                    order,
                    stats,
                    form,
                )
        unmake_move(pos)
        if stats[STAT_STOPPED]:
            return np.float64(0.0)
        if value > best:
            best = value
            best_move = col
            if value > alpha:
                alpha = value
                if value >= beta:
                    break
    bound = UPPER if best <= window_low else (LOWER if best >= beta else EXACT)
    keys[slot] = key
    values[slot] = best
    infos[slot] = max(depth, 0) | (bound << 8) | ((best_move + 1) << 12)
    return np.float64(best)


#: The form of a model without n-tuples.
_NO_TUPLES = TupleColumns(
    np.zeros((WIDTH, COLUMN_STATES, 0), dtype=np.int32),
    np.zeros(0, dtype=np.int32),
    np.zeros(0, dtype=np.float64),
    np.zeros(0, dtype=np.int32),
)


class PlayResult(NamedTuple):
    """One depth of :meth:`PlaySearch.search`."""

    value: float  # for the side to move, in search points (wins beyond MATE_BOUND)
    best_move: int  # a column, or -1 if the game is over
    nodes: int
    stopped: bool  # the node limit ended it: value and move are not to be used


def plies_to_end(value: float, ply: int) -> int:
    """Plies from a position with ``ply`` discs to the disc that ends a won or lost
    game of score ``value`` (0 for a value that is no proven result)."""
    if abs(value) < MATE_BOUND:
        return 0
    return round(MATE - abs(value)) - ply


class PlaySearch:
    """The playing search with its own transposition table (``2**table_bits`` entries
    of 24 bytes), kept between searches until :meth:`clear`."""

    def __init__(self, table_bits: int = 20) -> None:
        if not 10 <= table_bits <= 28:
            raise ValueError(f"table_bits must be in 10..28, got {table_bits}")
        size = 1 << table_bits
        self.keys = np.zeros(size, dtype=np.uint64)
        self.values = np.zeros(size, dtype=np.float64)
        self.infos = np.zeros(size, dtype=np.int64)
        self.shift = np.uint64(64 - table_bits)
        self.order = np.zeros((CELLS + 1, WIDTH), dtype=np.int64)
        self.stats = np.zeros(STAT_NB, dtype=np.int64)
        self._form_of: np.ndarray | None = None
        self._form_cache = _NO_TUPLES

    def clear(self) -> None:
        self.keys[:] = 0

    def _form(self, ev: Connect4Evaluator) -> TupleColumns:
        """An n-tuple model's column form (made once for the last buffer seen: a copy,
        so tables learned further are not seen), else a form without tables: the
        search then calls the model's own evaluation."""
        if self._form_of is not ev.weights:
            w = ev.weights
            self._form_of = w
            self._form_cache = tuple_columns(w) if is_ntuple_buffer(w) else _NO_TUPLES
        return self._form_cache

    def search(
        self, pos: Position, ev: Connect4Evaluator, depth: int, max_nodes: int = 0
    ) -> PlayResult:
        """The value and best move of ``pos`` searched ``depth`` plies (at least 1),
        stopping after ``max_nodes`` nodes if that is not 0. ``pos`` is left as it was."""
        if depth < 1:
            raise ValueError(f"depth must be at least 1, got {depth}")
        ply = int(pos.st[ST_PLY])
        if pos.st[ST_WON] or ply == CELLS:
            return PlayResult(-MATE + ply if pos.st[ST_WON] else 0.0, -1, 0, False)
        cur = pos.discs[ply & 1]
        mask = pos.discs[0] | pos.discs[1]
        playable = (mask + BOTTOM) & BOARD
        wins = winning_cells(cur, mask) & playable
        if wins:
            return PlayResult(win_score(ply + 1), _first_column(wins), 0, False)
        self.stats[:] = 0
        self.stats[STAT_LIMIT] = max_nodes
        value = float(
            negamax(
                pos,
                ev,
                np.int64(depth),
                np.float64(-MATE),
                np.float64(MATE),
                self.keys,
                self.values,
                self.infos,
                self.shift,
                self.order,
                self.stats,
                self._form(ev),
            )
        )
        nodes = int(self.stats[STAT_NODES])
        if self.stats[STAT_STOPPED]:
            return PlayResult(0.0, -1, nodes, True)
        return PlayResult(value, self._root_move(pos), nodes, False)

    def _root_move(self, pos: Position) -> int:
        """The root's move from its table entry; where the rules decided the root
        before any move was searched (every move loses, or the board is all but
        full), the first column that is not handed to the opponent, else any."""
        ply = int(pos.st[ST_PLY])
        cur = pos.discs[ply & 1]
        mask = pos.discs[0] | pos.discs[1]
        key = cur + mask + BOTTOM
        slot = int((int(key) * int(_MIX) & (2**64 - 1)) >> int(self.shift))
        if self.keys[slot] == key:
            move = int((self.infos[slot] >> 12) & 15) - 1
            if move >= 0:
                return move
        playable = (mask + BOTTOM) & BOARD
        theirs = winning_cells(cur ^ mask, mask)
        forced = playable & theirs
        safe = (forced or playable) & ~(theirs >> ONE)
        return _first_column(safe or forced or playable)


def _first_column(cells: np.uint64) -> int:
    """The most central column with a cell in ``cells``."""
    for col in CENTRE_ORDER:
        if cells & column_mask(int(col)):
            return int(col)
    raise ValueError("no cell given")
