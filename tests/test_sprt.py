"""SPRT: the LLR and bounds by hand, and error rates on simulated matches of known Elo."""

from __future__ import annotations

import math

import numpy as np
import pytest

from treestrap.rating.sprt import (
    SprtResult,
    SprtTest,
    count_results,
    estimate_draw_elo,
    sprt,
    sprt_bounds,
    sprt_from_games,
)


def f(x: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-x / 400.0))


def test_bounds_are_walds() -> None:
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(math.log(0.05 / 0.95))
    assert upper == pytest.approx(math.log(0.95 / 0.05))
    assert upper == pytest.approx(2.944, abs=1e-3)
    lower, upper = sprt_bounds(0.01, 0.1)
    assert (lower, upper) == pytest.approx((math.log(0.1 / 0.99), math.log(0.9 / 0.01)))


def test_llr_matches_a_direct_computation() -> None:
    wins, draws, losses = 130, 210, 100
    n = wins + draws + losses + 1.5  # half a game of pseudo-count per outcome
    w, l_ = (wins + 0.5) / n, (losses + 0.5) / n
    d = 200 * math.log10((1 - l_) / l_ * (1 - w) / w)
    assert estimate_draw_elo(wins, draws, losses) == pytest.approx(d)

    def probs(elo: float) -> tuple[float, float, float]:
        return f(elo - d), 1 - f(elo - d) - f(-elo - d), f(-elo - d)

    (pw0, pd0, pl0), (pw1, pd1, pl1) = probs(0.0), probs(10.0)
    llr = wins * math.log(pw1 / pw0) + draws * math.log(pd1 / pd0) + losses * math.log(pl1 / pl0)
    result = sprt(wins, draws, losses, 0.0, 10.0)
    assert result.llr == pytest.approx(llr, rel=1e-12)
    assert result.llr > 0  # 130 wins to 100 losses favours the stronger hypothesis

    # cutechess-style logistic hypotheses are divided by the draw-dependent scale first.
    x = 10 ** (-d / 400)
    scale = 4 * x / (1 + x) ** 2
    (pw0, pd0, pl0), (pw1, pd1, pl1) = probs(0.0), probs(10.0 / scale)
    llr = wins * math.log(pw1 / pw0) + draws * math.log(pd1 / pd0) + losses * math.log(pl1 / pl0)
    assert sprt(wins, draws, losses, 0.0, 10.0, logistic=True).llr == pytest.approx(llr)


def test_draw_elo_estimate_is_finite_without_wins_or_losses() -> None:
    assert 0 < estimate_draw_elo(0, 0, 0) < math.inf
    assert estimate_draw_elo(0, 50, 0) > estimate_draw_elo(10, 30, 10) > 0


def test_decisions_and_description() -> None:
    start = sprt(0, 0, 0, 0.0, 10.0)
    assert start.llr == 0.0 and start.decision == "continue"
    assert sprt(400, 200, 100, 0.0, 10.0).decision == "H1"
    assert sprt(100, 200, 400, 0.0, 10.0).decision == "H0"
    fake = SprtResult(1, 2, 3, 2.31, -2.94, 2.94, 0.0, 10.0, 0.05, 0.05)
    assert fake.describe() == (
        "SPRT elo0=0 elo1=10 alpha=0.05 beta=0.05: LLR 2.31 [-2.94, 2.94] -> continue"
    )


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="elo0"):
        sprt(1, 1, 1, 10.0, 0.0)
    with pytest.raises(ValueError, match="alpha"):
        sprt(1, 1, 1, 0.0, 10.0, alpha=0.0)
    with pytest.raises(ValueError, match="elo0"):
        SprtTest(5.0, 5.0)
    with pytest.raises(ValueError, match="counts"):
        SprtTest(0.0, 5.0).result(1, -1, 1)


def test_counts_from_games_take_the_players_side() -> None:
    games = [
        ("new", "old", "1-0"),
        ("old", "new", "1-0"),
        ("old", "new", "0-1"),
        ("new", "old", "1/2-1/2"),
        ("new", "other", "1-0"),  # another pairing: ignored
        ("old", "new", "*"),  # unfinished: ignored
    ]
    assert count_results(games, "new", "old") == (2, 1, 1)
    assert count_results(games, "old", "new") == (1, 1, 2)
    assert sprt_from_games(games, "new", "old", SprtTest(0.0, 10.0)) == sprt(2, 1, 1, 0.0, 10.0)
    cutechess = SprtTest(0.0, 10.0, alpha=0.1, logistic=True)
    assert sprt_from_games(games, "new", "old", cutechess) == sprt(
        2, 1, 1, 0.0, 10.0, alpha=0.1, logistic=True
    )


def _run_until_decision(rng: np.random.Generator, true_elo: float, draw_elo: float) -> str:
    p_win, p_loss = f(true_elo - draw_elo), f(-true_elo - draw_elo)
    wins = draws = losses = 0
    for _ in range(20000):
        u = rng.random()
        if u < p_win:
            wins += 1
        elif u < p_win + p_loss:
            losses += 1
        else:
            draws += 1
        decision = sprt(wins, draws, losses, 0.0, 20.0).decision
        if decision != "continue":
            return decision
    return "continue"


@pytest.mark.parametrize(("true_elo", "expected"), [(40.0, "H1"), (-20.0, "H0")])
def test_simulated_matches_reach_the_right_decision(true_elo: float, expected: str) -> None:
    rng = np.random.default_rng(12345)
    decisions = [_run_until_decision(rng, true_elo, draw_elo=180.0) for _ in range(40)]
    assert decisions.count(expected) >= 36  # alpha = beta = 0.05: >= 90% right
