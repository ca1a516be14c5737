"""Time management: how long to think about one move (plain Python).

From the UCI ``go`` limits we derive a *soft* budget (do not start another iteration
after it) and a *hard* one (a timer raises the search's stop flag). With a clock of
``t`` seconds left, increment ``inc``, ``n`` moves to plan for (``movestogo``, or an
assumed ``MOVES_LEFT`` in sudden death) and a move overhead ``o`` (the lag between the
GUI's clock and our search, paid on every move):

    pool = t + (n - 1) * inc - (n + 1) * o      thinking time for the next n moves
    base = pool / n,  soft = 0.6 * base,
    hard = min(3 * base, (t - o) / 4 + inc / 2)

Charging the overhead once per move, not once per game, is what keeps a fast Fischer
clock (2s+0.02s, where the lag is as large as the increment) from bleeding to zero:
a low clock leaves an empty pool and the engine answers at once until the increments
have rebuilt it (measured by ``benchmarks/soak.py``). One move never takes more than
about a quarter of the remaining time. ``movetime`` is used in full (less overhead).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Moves assumed left in a sudden-death or Fischer game: long enough that early moves
#: do not starve late ones.
MOVES_LEFT = 30
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

    def is_timed(self) -> bool:
        return self.movetime is not None or self.wtime is not None or self.btime is not None


@dataclass
class TimeBudget:
    soft: float | None  # seconds; None: no time limit
    hard: float | None


def allocate(limits: SearchLimits, white_to_move: bool, overhead: float = 0.05) -> TimeBudget:
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
    moves = max(1, limits.movestogo) if limits.movestogo else MOVES_LEFT
    pool = max(0.0, clock + (moves - 1) * inc - (moves + 1) * overhead)
    base = pool / moves
    hard = min(3.0 * base, left / 4.0 + inc / 2.0)
    if limits.movestogo == 1:
        hard = min(hard, left * 0.9)  # last move before the control: almost all of it
    hard = max(MIN_THINK, min(hard, left))
    soft = max(MIN_THINK, min(0.6 * base, hard))
    return TimeBudget(soft, hard)
