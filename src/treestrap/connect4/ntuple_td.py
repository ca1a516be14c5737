"""Self-play TD(lambda) for the n-tuple evaluation (:mod:`treestrap.connect4.ntuple`),
compiled: a batch of games played and learned from in one call.

Each move is chosen one ply deep: every legal column is tried, a column that makes four
is worth the win exactly, any other the afterstate's ``tanh(z)`` (the first player's
expected result in [-1, 1]); the first player takes the largest, the second the
smallest. With probability ``epsilon`` a random column is played instead (exploration).

After the game each afterstate ``a_t`` (the position after move ``t``) moves towards its
lambda-return, computed backwards from the end:

- ``G`` of the last afterstate is the result (+1, 0, -1 for the first player);
- ``G_t = (1 - lam) * g_{t+1} + lam * G_{t+1}``, where ``g_{t+1}`` is the best value the
  next mover saw one ply deep (the value of ``a_t`` by one more ply of search);
- after an exploratory move the return stops there: ``G_t = g_{t+1}``, so a random move's
  outcome never reaches the moves before it (Watkins' cut);
- with a discount ``gamma`` below 1 each return is multiplied by it once a ply, so an
  afterstate ``k`` plies before a win learns ``gamma**k``: the sooner a win, the higher
  its value, the later a loss, the higher too (the exact scores' order).

The step on each table entry ``a_t`` read is ``alpha * (G_t - v_t) * (1 - v_t**2)``, the
gradient of ``tanh(z)``. With temporal coherence (Beal and Smith's TCL) each entry's
step is scaled by ``|sum of its past steps| / sum of their sizes``: an entry pulled back
and forth (the few patterns of the opening, read in every game) slows down, one pulled
one way keeps its rate. Nothing here reads a solver or a book: the games are the
evaluation's own.
"""

from __future__ import annotations

import math

import numpy as np

from treestrap.connect4.bits import CELLS, HEIGHT, WIDTH
from treestrap.connect4.board import ST_PLY, ST_WON, Position, make_move, unmake_move
from treestrap.connect4.ntuple import FIRST, PLAYABLE, SECOND, STATES, UNREACHABLE
from treestrap.core.jit import njit

#: Per-batch counters :func:`play_games` fills: first-player wins, draws, second-player
#: wins, exploratory moves, plies, table updates.
STAT_FIRST, STAT_DRAW, STAT_SECOND, STAT_EXPLORED, STAT_PLIES, STAT_UPDATES = range(6)
STAT_NB = 6


@njit(inline="always")
def pattern_index(states: np.ndarray, cells: np.ndarray, t: int, length: int) -> int:
    k = 0
    for j in range(length):
        k = k * STATES + states[cells[t, j]]
    return k


@njit
def afterstate_sum(
    states: np.ndarray, cells: np.ndarray, tables: np.ndarray, size: int, out: np.ndarray
) -> float:
    """``z`` of the board in ``states``; the table positions read go into ``out``
    (one per row of ``cells``: the tuples, then their mirror images)."""
    rows, length = cells.shape
    count = rows // 2
    z = 0.0
    for r in range(rows):
        at = (r % count) * size + pattern_index(states, cells, r, length)
        out[r] = at
        z += tables[at]
    return z


@njit(allocates=True)
def play_games(
    pos: Position,
    tables: np.ndarray,
    cells: np.ndarray,
    games: int,
    alpha: float,
    lam: float,
    gamma: float,
    epsilon: float,
    seed: int,
    stats: np.ndarray,
    net: np.ndarray,
    total: np.ndarray,
    opening_plies: int,
) -> None:
    """Play ``games`` self-play games from the empty board and learn from each; the
    tables change in place. ``pos`` is an empty board (given back empty); ``cells``:
    int64[2T, L], the tuples then their mirror images. ``net`` and ``total``, the size
    of the tables, turn on temporal coherence (their sums of steps and of step sizes,
    updated in place); arrays of one entry leave it off. Each game's first ``k`` moves
    are random, ``k`` drawn from 0 to ``opening_plies``: exploratory moves that widen
    the positions the tables learn from."""
    np.random.seed(seed)
    rows, length = cells.shape
    size = STATES**length
    states = np.zeros(CELLS, dtype=np.int64)
    reads = np.zeros(rows, dtype=np.int64)
    played = np.zeros((CELLS, rows), dtype=np.int64)
    value = np.zeros(CELLS)  # tanh(z) of each afterstate played
    greedy = np.zeros(CELLS)  # the best value the mover saw
    explored = np.zeros(CELLS, dtype=np.bool_)
    moves = np.zeros(WIDTH, dtype=np.int64)
    coherent = net.shape[0] == tables.shape[0]
    for _ in range(games):
        for c in range(WIDTH):
            for r in range(HEIGHT):
                states[c * HEIGHT + r] = PLAYABLE if r == 0 else UNREACHABLE
        result = 0.0
        n = 0
        opening = np.random.randint(opening_plies + 1) if opening_plies > 0 else 0
        while True:
            mover = int(pos.st[ST_PLY]) & 1
            sign = 1.0 if mover == 0 else -1.0
            disc = FIRST if mover == 0 else SECOND
            count = 0
            best, best_value = -1, -2.0
            for i in range(WIDTH):
                col = (3 + (i + 1) // 2 * (1 if i % 2 else -1)) if i else 3
                row = int(pos.heights[col])
                if row == HEIGHT:
                    continue
                moves[count] = col
                count += 1
                make_move(pos, col)
                if pos.st[ST_WON]:
                    v = sign
                elif pos.st[ST_PLY] == CELLS:
                    v = 0.0
                else:
                    states[col * HEIGHT + row] = disc
                    if row + 1 < HEIGHT:
                        states[col * HEIGHT + row + 1] = PLAYABLE
                    v = math.tanh(afterstate_sum(states, cells, tables, size, reads))
                    states[col * HEIGHT + row] = PLAYABLE
                    if row + 1 < HEIGHT:
                        states[col * HEIGHT + row + 1] = UNREACHABLE
                unmake_move(pos)
                if sign * v > best_value:
                    best, best_value = col, sign * v
            greedy[n] = sign * best_value
            choice = best
            explored[n] = False
            if n < opening or (epsilon > 0.0 and np.random.random() < epsilon):
                choice = moves[np.random.randint(count)]
                explored[n] = choice != best
                stats[STAT_EXPLORED] += explored[n]
            row = int(pos.heights[choice])
            make_move(pos, choice)
            states[choice * HEIGHT + row] = disc
            if row + 1 < HEIGHT:
                states[choice * HEIGHT + row + 1] = PLAYABLE
            if pos.st[ST_WON]:
                result = sign
                n += 1
                break
            if pos.st[ST_PLY] == CELLS:
                n += 1
                break
            value[n] = math.tanh(afterstate_sum(states, cells, tables, size, played[n]))
            n += 1
        stats[STAT_PLIES] += n
        if result > 0:
            stats[STAT_FIRST] += 1
        elif result < 0:
            stats[STAT_SECOND] += 1
        else:
            stats[STAT_DRAW] += 1
        # Backwards over the afterstates before the last (the last is the result).
        ret = result
        for t in range(n - 2, -1, -1):
            nxt = greedy[t + 1]
            ret = gamma * (nxt if explored[t + 1] else (1.0 - lam) * nxt + lam * ret)
            v = value[t]
            step = (ret - v) * (1.0 - v * v)
            if coherent:
                for r in range(rows):
                    at = played[t, r]
                    rate = abs(net[at]) / total[at] if total[at] > 0.0 else 1.0
                    tables[at] += alpha * rate * step
                    net[at] += step
                    total[at] += abs(step)
            else:
                for r in range(rows):
                    tables[played[t, r]] += alpha * step
            stats[STAT_UPDATES] += 1
        for _ in range(n):
            unmake_move(pos)
