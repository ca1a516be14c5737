"""Time management: budgets from UCI limits, a fast Fischer clock that never bleeds, a
bank spent by the middlegame, and more time for a root in doubt."""

from __future__ import annotations

import pytest

from treestrap.search.timeman import (
    HARD_SHARE,
    MIN_THINK,
    MOVES_LEFT_MIN,
    MOVES_LEFT_START,
    SCALE_MAX,
    SCALE_MIN,
    SOFT_SHARE,
    RootStability,
    SearchLimits,
    allocate,
    moves_left,
)


def test_movetime_is_used_less_the_overhead() -> None:
    budget = allocate(SearchLimits(movetime=1.0), True, overhead=0.05)
    assert budget.soft == budget.hard == pytest.approx(0.95)


def test_no_clock_no_limit() -> None:
    assert allocate(SearchLimits(depth=5), True).hard is None
    assert allocate(SearchLimits(wtime=10.0, infinite=True), True).hard is None


def test_a_fresh_clock_plans_a_share_of_the_pool() -> None:
    limits = SearchLimits(wtime=10.0, btime=1.0, winc=0.1, binc=0.0)
    budget = allocate(limits, True, overhead=0.05)
    n = MOVES_LEFT_START
    pool = 10.0 + (n - 1) * 0.1 - (n + 1) * 0.05
    assert budget.soft == pytest.approx(SOFT_SHARE * pool / n)
    assert budget.hard == pytest.approx(HARD_SHARE * pool / n)
    # black's clock is the one that counts when black moves
    assert allocate(limits, False, overhead=0.05).hard < budget.hard


def test_the_moves_planned_for_fall_with_the_game_to_a_floor() -> None:
    assert moves_left(1) == MOVES_LEFT_START
    assert moves_left(2) == MOVES_LEFT_START
    assert moves_left(3) == moves_left(4) == MOVES_LEFT_START - 1 == moves_left(5) + 1
    assert moves_left(200) == MOVES_LEFT_MIN
    same_clock = SearchLimits(wtime=5.0, winc=0.1)
    later = SearchLimits(wtime=5.0, winc=0.1, fullmove=30)
    assert allocate(later, True).soft > allocate(same_clock, True).soft
    # movestogo, when the GUI gives it, is what counts
    assert allocate(SearchLimits(wtime=5.0, movestogo=10, fullmove=30), True).soft == (
        allocate(SearchLimits(wtime=5.0, movestogo=10), True).soft
    )


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
    hard budget plus the lag: the clock settles far above the overhead (charging the
    overhead once per game let it drain to the overhead itself)."""
    clock, inc, overhead = 2.0, 0.02, 0.05
    lowest = clock
    for move in range(1, 301):
        limits = SearchLimits(wtime=clock, winc=inc, fullmove=move)
        budget = allocate(limits, True, overhead)
        assert budget.hard is not None
        clock += inc - budget.hard - lag
        lowest = min(lowest, clock)
    assert lowest > 0.3


def test_the_bank_is_spent_by_the_middlegame_not_kept_to_the_end() -> None:
    """10s+0.1s, every move using just its soft budget (the least a move takes): by
    move 40 more than half the 10 s bank is spent (a fixed 30 moves to go kept two
    thirds of it), and the clock never falls below the increment."""
    clock, inc = 10.0, 0.1
    clocks = []
    for move in range(1, 81):
        budget = allocate(SearchLimits(wtime=clock, winc=inc, fullmove=move), True)
        assert budget.soft is not None
        clock += inc - budget.soft
        clocks.append(clock)
    assert clocks[39] < 5.0
    assert min(clocks) > inc


def test_a_settled_root_gets_less_time_a_root_in_doubt_more() -> None:
    settled = RootStability()
    scales = [settled.update("e2e4", 20.0) for _ in range(6)]
    assert scales[-1] < 1.0
    doubt = RootStability()
    for move in ("e2e4", "d2d4", "e2e4", "g1f3"):
        scale = doubt.update(move, 20.0)
    assert scale > 1.5 * scales[-1]
    falling = RootStability()
    falling.update("e2e4", 20.0)
    assert falling.update("e2e4", -40.0) > scales[-1]
    # doubt fades: a change long ago buys nothing more than a settled root
    fading = RootStability()
    fading.update("e2e4", 0.0)
    fading.update("d2d4", 0.0)
    for _ in range(10):
        late = fading.update("d2d4", 0.0)
    assert late == pytest.approx(scales[-1], abs=0.01)
    wild = RootStability()
    every = [wild.update(str(i), -100.0 * i) for i in range(20)]
    assert min(every) >= SCALE_MIN and max(every) <= SCALE_MAX
