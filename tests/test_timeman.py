"""Time management: budgets from UCI limits, and a fast Fischer clock that never bleeds."""

from __future__ import annotations

import pytest

from treestrap.search.timeman import MIN_THINK, MOVES_LEFT, SearchLimits, allocate


def test_movetime_is_used_less_the_overhead() -> None:
    budget = allocate(SearchLimits(movetime=1.0), True, overhead=0.05)
    assert budget.soft == budget.hard == pytest.approx(0.95)


def test_no_clock_no_limit() -> None:
    assert allocate(SearchLimits(depth=5), True).hard is None
    assert allocate(SearchLimits(wtime=10.0, infinite=True), True).hard is None


def test_a_fresh_clock_plans_a_share_of_the_pool() -> None:
    limits = SearchLimits(wtime=10.0, btime=1.0, winc=0.1, binc=0.0)
    budget = allocate(limits, True, overhead=0.05)
    pool = 10.0 + (MOVES_LEFT - 1) * 0.1 - (MOVES_LEFT + 1) * 0.05
    assert budget.soft == pytest.approx(0.6 * pool / MOVES_LEFT)
    assert budget.hard == pytest.approx(3 * pool / MOVES_LEFT)
    # black's clock is the one that counts when black moves
    assert allocate(limits, False, overhead=0.05).hard < budget.hard


def test_one_move_never_takes_more_than_a_quarter_of_the_clock() -> None:
    budget = allocate(SearchLimits(wtime=1.0, winc=0.0, movestogo=1), True, overhead=0.0)
    assert budget.hard == pytest.approx(0.25)


def test_a_low_clock_answers_at_once() -> None:
    """Below what the overhead of the coming moves will cost, nothing is left to think."""
    limits = SearchLimits(wtime=0.3, btime=0.3, winc=0.02, binc=0.02)
    budget = allocate(limits, True, overhead=0.05)
    assert budget.soft == budget.hard == MIN_THINK


@pytest.mark.parametrize("lag", [0.0, 0.01, 0.015])
def test_a_fast_fischer_clock_keeps_a_reserve(lag: float) -> None:
    """2s+0.02s with a per-move lag below the increment, every move spending its whole
    hard budget plus the lag: the clock settles around a second, far above the overhead
    (charging the overhead once per game let it drain to the overhead itself)."""
    clock, inc, overhead = 2.0, 0.02, 0.05
    lowest = clock
    for _ in range(300):
        budget = allocate(SearchLimits(wtime=clock, winc=inc), True, overhead)
        assert budget.hard is not None
        clock += inc - budget.hard - lag
        lowest = min(lowest, clock)
    assert lowest > 0.5
