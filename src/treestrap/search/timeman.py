"""Time management: how long to think about one move (plain Python).

From the UCI ``go`` limits we derive a *soft* budget (do not start another iteration
after it) and a *hard* one (a timer raises the search's stop flag). With a clock of
``t`` seconds left, increment ``inc``, ``n`` moves to plan for and a move overhead ``o``
(the lag between the GUI's clock and our search, paid on every move):

    pool = t + (n - 1) * inc - (n + 1) * o      thinking time for the next n moves
    base = pool / n,  soft = SOFT_SHARE * base,
    hard = min(HARD_SHARE * base, (t - o) / 4 + inc / 2)

``n`` is ``movestogo`` when the GUI gives it; in sudden death it falls with the game,
from ``MOVES_LEFT_START`` at the first move to ``MOVES_LEFT_MIN``: a game that has
lasted is nearer its end, so the bank is spent in the middlegame, where games turn,
not kept to the last move (a fixed ``n`` left a fifth of a 10s+0.1s bank unspent).

Charging the overhead once per move, not once per game, is what keeps a fast Fischer
clock (2s+0.02s, where the lag is as large as the increment) from bleeding to zero:
a low clock leaves an empty pool and the engine answers at once until the increments
have rebuilt it (measured by ``benchmarks/soak.py``). One move never takes more than
about a quarter of the remaining time. ``movetime`` is used in full (less overhead).

Between iterations :class:`RootStability` scales the soft budget: a root whose best
move keeps changing, or whose score falls, gets more time (up to the hard limit); one
whose best move has held for several iterations gets less.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Moves assumed left at a sudden-death or Fischer game's first move, one fewer every
#: second move after it, never fewer than ``MOVES_LEFT_MIN``: long enough that early
#: moves do not starve late ones.
MOVES_LEFT_START = 36
MOVES_LEFT_MIN = 20
#: The soft budget's share of the mean time a move (the last iteration started before
#: it runs on past it) and the hard limit's.
SOFT_SHARE = 0.7
HARD_SHARE = 3.5
#: Seconds kept back on every move for the lag between the GUI's clock and our search
#: (UCI's ``Move Overhead``): the lag measured from ``go`` to ``bestmove`` through a
#: pipe is 2-10 ms.
DEFAULT_OVERHEAD = 0.02
#: Never plan less than this, in seconds: a search needs a moment to return a move.
MIN_THINK = 0.005


@dataclass
class SearchLimits:
    """The limits of one ``go``; times in seconds, ``None`` when not given."""

    depth: int | None = None
    nodes: int | None = None
    movetime: float | None = None
    wtime: float | None = None
    btime: float | None = None
    winc: float = 0.0
    binc: float = 0.0
    movestogo: int | None = None
    infinite: bool = False
    mate: int | None = None
    #: The full move number of the position searched (1 at the start of a game).
    fullmove: int = 1

    def is_timed(self) -> bool:
        return self.movetime is not None or self.wtime is not None or self.btime is not None


@dataclass
class TimeBudget:
    soft: float | None  # seconds; None: no time limit
    hard: float | None


def allocate(
    limits: SearchLimits, white_to_move: bool, overhead: float = DEFAULT_OVERHEAD
) -> TimeBudget:
    """Soft and hard thinking time for the side to move (see the module docstring)."""
    if limits.infinite:
        return TimeBudget(None, None)
    if limits.movetime is not None:
        t = max(MIN_THINK, limits.movetime - overhead)
        return TimeBudget(t, t)
    clock = limits.wtime if white_to_move else limits.btime
    if clock is None:
        return TimeBudget(None, None)
    inc = limits.winc if white_to_move else limits.binc
    left = max(0.0, clock - overhead)
    moves = max(1, limits.movestogo) if limits.movestogo else moves_left(limits.fullmove)
    pool = max(0.0, clock + (moves - 1) * inc - (moves + 1) * overhead)
    base = pool / moves
    hard = min(HARD_SHARE * base, left / 4.0 + inc / 2.0)
    if limits.movestogo == 1:
        hard = min(hard, left * 0.9)  # last move before the control: almost all of it
    hard = max(MIN_THINK, min(hard, left))
    soft = max(MIN_THINK, min(SOFT_SHARE * base, hard))
    return TimeBudget(soft, hard)


def moves_left(fullmove: int) -> int:
    """Moves to plan for in sudden death at full move ``fullmove``."""
    return max(MOVES_LEFT_MIN, MOVES_LEFT_START - max(0, fullmove - 1) // 2)


#: The soft budget's scale: never below ``SCALE_MIN`` nor above ``SCALE_MAX``.
SCALE_MIN, SCALE_MAX = 0.6, 2.0
#: A settled root's scale, and what each recent change of the best move adds to it.
SCALE_SETTLED, SCALE_PER_CHANGE = 0.75, 0.5
#: A score this far (centipawns) below the last iteration's asks for more time.
SCORE_FALL, SCALE_ON_FALL = 30.0, 1.3


class RootStability:
    """The soft budget's scale after each iteration, from the root's best move and
    score. Changes of the best move count half as much at each iteration after them,
    so only recent doubt buys time."""

    def __init__(self) -> None:
        self.move: object = None
        self.score: float | None = None
        self.changes = 0.0

    def update(self, move: object, score: float) -> float:
        """Record one finished iteration; the factor for the soft budget."""
        if self.move is not None and move != self.move:
            self.changes += 1.0
        fell = self.score is not None and self.score - score >= SCORE_FALL
        self.move, self.score = move, score
        scale = SCALE_SETTLED + SCALE_PER_CHANGE * self.changes
        if fell:
            scale *= SCALE_ON_FALL
        self.changes *= 0.5
        return min(SCALE_MAX, max(SCALE_MIN, scale))
