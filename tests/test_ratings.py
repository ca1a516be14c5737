"""BayesElo-style ratings: recovery from simulated games, hand-computed cases, PGN input."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from treestrap.rating.ratings import (
    RatingOptions,
    fit_ratings,
    negative_log_posterior,
    simulate_games,
)
from treestrap.rating.results import GameResult, load_results, read_pgn_results

C = math.log(10) / 400  # natural-log odds per Elo


def f(x: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-x / 400.0))


def games_of(white: str, black: str, wins: int, draws: int, losses: int) -> list[GameResult]:
    return (
        [(white, black, "1-0")] * wins
        + [(white, black, "1/2-1/2")] * draws
        + [(white, black, "0-1")] * losses
    )


TRUE = {"a": 320.0, "b": 170.0, "c": 40.0, "d": 0.0, "e": -110.0, "f": -280.0}


@pytest.fixture(scope="module")
def simulated() -> list[GameResult]:
    rng = np.random.default_rng(2009)
    return simulate_games(TRUE, rounds=150, draw_elo=150.0, advantage=40.0, rng=rng)


def test_recovers_true_ratings_within_their_intervals(simulated: list[GameResult]) -> None:
    assert len(simulated) == 4500
    table = fit_ratings(simulated)
    mean = sum(TRUE.values()) / len(TRUE)
    assert abs(sum(p.elo for p in table.players)) < 1e-6  # mean-zero parametrisation
    for p in table.players:
        assert p.lower <= TRUE[p.name] - mean <= p.upper, p
        assert 10 < p.upper - p.elo < 40  # ~750 games each: intervals of tens of Elo
    assert [p.name for p in table.players] == sorted(TRUE, key=lambda n: -TRUE[n])
    assert abs(table.draw_elo - 150.0) < 3 * table.draw_elo_sd
    assert abs(table.advantage - 40.0) < 3 * table.advantage_sd
    assert 0 < table.draw_elo_sd < 10 and 0 < table.advantage_sd < 10


def test_per_player_statistics_come_from_real_games_only() -> None:
    games = games_of("a", "b", 2, 1, 1)
    table = fit_ratings(games)
    a = table.rating("a")
    assert a.games == 4
    assert a.score == pytest.approx(2.5 / 4)
    assert a.draws == pytest.approx(0.25)
    assert table.rating("b").score == pytest.approx(1.5 / 4)


def test_two_players_no_draws_gives_the_log_odds_of_the_score() -> None:
    games = games_of("a", "b", 2, 0, 1) + games_of("b", "a", 0, 0, 1)  # a: 3 wins, 1 loss
    opts = RatingOptions(draw_elo=0.0, advantage=0.0, prior=0.0)
    table = fit_ratings(games, opts)
    a, b = table.rating("a"), table.rating("b")
    assert a.elo - b.elo == pytest.approx(400 * math.log10(3), abs=1e-6)  # 190.85
    assert a.elo == pytest.approx(-b.elo, abs=1e-9)
    # Fisher information of x = r_a - r_b: n c^2 p (1 - p) at p = 3/4; r_a = x/2.
    sd_a = 0.5 / math.sqrt(4 * C * C * 0.75 * 0.25)
    assert a.upper - a.elo == pytest.approx(1.959964 * sd_a, rel=1e-5)
    assert table.draw_elo == 0.0 and table.draw_elo_sd == 0.0


def test_log_posterior_matches_a_hand_sum() -> None:
    games = games_of("a", "b", 3, 2, 1) + games_of("b", "c", 1, 4, 0) + games_of("c", "a", 0, 1, 2)
    r = {"a": 60.0, "b": -10.0, "c": -50.0}
    adv, d, prior = 35.0, 120.0, 2.0

    def p(white: str, black: str) -> tuple[float, float, float]:
        x = r[white] - r[black] + adv
        win, loss = f(x - d), f(-x - d)
        return win, 1 - win - loss, loss

    total = 0.0
    for white, black, result in games:
        probs = p(white, black)
        total -= math.log(probs[("1-0", "1/2-1/2", "0-1").index(result)])
    for i, j in (("a", "b"), ("b", "c"), ("a", "c")):  # virtual draws, both colours
        total -= prior / 2 * (math.log(p(i, j)[1]) + math.log(p(j, i)[1]))
    assert negative_log_posterior(games, r, d, adv, prior) == pytest.approx(total, rel=1e-12)


def test_fitted_optimum_has_zero_gradient() -> None:
    games = games_of("a", "b", 5, 6, 2) + games_of("b", "a", 3, 5, 4)
    games += games_of("b", "c", 4, 7, 1) + games_of("c", "a", 1, 3, 6)
    table = fit_ratings(games)
    params = {p.name: p.elo for p in table.players}
    x0 = [*params.values(), table.advantage, table.draw_elo]

    def nlp(x: list[float]) -> float:
        ratings = dict(zip(params, x[:3], strict=True))
        return negative_log_posterior(games, ratings, x[4], x[3], prior=2.0)

    h = 1e-3
    for k in range(len(x0)):
        up, down = list(x0), list(x0)
        up[k] += h
        down[k] -= h
        assert abs((nlp(up) - nlp(down)) / (2 * h)) < 1e-6
    # And the optimum is a minimum: moving away in any coordinate costs.
    assert nlp([*x0[:4], x0[4] + 5]) > nlp(x0)


def test_symmetric_cycle_rates_everyone_equal() -> None:
    games: list[GameResult] = []
    for a, b in (("x", "y"), ("y", "z"), ("z", "x")):
        games += games_of(a, b, 2, 3, 1) + games_of(b, a, 1, 3, 2)  # a scores 60% against b
    table = fit_ratings(games)
    for p in table.players:
        assert p.elo == pytest.approx(0.0, abs=1e-7)
    assert table.advantage == pytest.approx(0.0, abs=1e-7)  # Black and White score alike


def test_perfect_score_with_prior_matches_the_one_dimensional_optimum() -> None:
    d = 100.0
    games = games_of("a", "b", 3, 0, 0)
    table = fit_ratings(games, RatingOptions(draw_elo=d, advantage=0.0, prior=2.0))

    # NLP(x) = -3 log f(x - d) - 2 log P(draw | x) for x = r_a - r_b; its slope by hand:
    def slope(x: float) -> float:
        win, loss = f(x - d), f(-x - d)
        draw = 1 - win - loss
        draw_slope = -C * win * (1 - win) + C * loss * (1 - loss)
        return -3 * C * (1 - win) - 2 * draw_slope / draw

    lo, hi = 0.0, 4000.0
    assert slope(lo) < 0 < slope(hi)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if slope(mid) < 0 else (lo, mid)
    a = table.rating("a")
    assert math.isfinite(a.elo) and a.elo > 0
    assert a.elo == pytest.approx(lo / 2, abs=1e-6)
    assert a.score == 1.0


def test_perfect_score_without_prior_is_refused() -> None:
    games = games_of("a", "b", 2, 1, 0) + games_of("b", "c", 3, 0, 0)  # b and c only lose
    with pytest.raises(ValueError, match="prior"):
        fit_ratings(games, RatingOptions(prior=0.0))
    assert math.isfinite(fit_ratings(games).rating("c").elo)


def test_groups_that_never_met_are_refused() -> None:
    games = games_of("a", "b", 2, 1, 1) + games_of("c", "d", 1, 1, 1)
    with pytest.raises(ValueError, match="never met"):
        fit_ratings(games)


def test_unknown_anchor_and_empty_input_are_refused() -> None:
    with pytest.raises(ValueError, match="anchor player 'zz'"):
        fit_ratings(games_of("a", "b", 1, 1, 1), RatingOptions(anchor=("zz", 0.0)))
    with pytest.raises(ValueError, match="no finished games"):
        fit_ratings([])


def test_anchor_shifts_ratings_and_zeroes_its_interval(simulated: list[GameResult]) -> None:
    free = fit_ratings(simulated)
    anchored = fit_ratings(simulated, RatingOptions(anchor=("d", 250.0)))
    shift = 250.0 - free.rating("d").elo
    for p in free.players:
        assert anchored.rating(p.name).elo == pytest.approx(p.elo + shift, abs=1e-6)
    d = anchored.rating("d")
    assert d.elo == 250.0 and d.lower == d.upper == 250.0
    # Relative to the anchor, the others' intervals widen (the anchor's noise moves to them).
    assert anchored.rating("a").upper - anchored.rating("a").elo > free.rating("a").upper - (
        free.rating("a").elo
    )
    # Differences, and so LOS, do not depend on where the ratings are pinned.
    assert anchored.los("c", "d") == pytest.approx(free.los("c", "d"), abs=1e-9)
    assert anchored.draw_elo == pytest.approx(free.draw_elo, abs=1e-6)


def test_los_of_equal_and_clearly_different_players() -> None:
    games = games_of("a", "b", 5, 4, 5) + games_of("b", "a", 5, 4, 5)
    games += games_of("a", "c", 9, 3, 0) + games_of("c", "a", 0, 3, 9)
    games += games_of("b", "c", 9, 3, 0) + games_of("c", "b", 0, 3, 9)
    table = fit_ratings(games)
    assert table.los("a", "b") == pytest.approx(0.5, abs=1e-9)
    assert table.los("a", "c") > 0.99
    assert table.los("c", "a") == pytest.approx(1 - table.los("a", "c"))
    assert table.los("a", "a") == 0.5
    matrix = table.los_matrix()
    assert len(matrix) == 3 and matrix[0][2] > 0.99
    assert "LOS" in table.format_los()


def test_format_table_lists_players_best_first(simulated: list[GameResult]) -> None:
    text = fit_ratings(simulated, RatingOptions(anchor=("d", 250.0))).format_table()
    lines = text.splitlines()
    assert lines[0].split() == ["Rank", "Name", "Elo", "+", "-", "Games", "Score", "Draws"]
    assert lines[1].split()[:2] == ["1", "a"] and lines[6].split()[:2] == ["6", "f"]
    assert lines[4].split()[2] == "250"
    assert "draw Elo" in lines[-1] and "white advantage" in lines[-1]


PGN = """[Event "t"]
[White "alpha"]
[Black "beta"]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0

[Event "t"]
[White "beta"]
[Black "alpha"]
[Result "1/2-1/2"]

1/2-1/2

[Event "t"]
[White "gamma"]
[Black "alpha"]
[Result "0-1"]

1. f3 e5 2. g4 Qh4# 0-1

[Event "t"]
[White "beta"]
[Black "gamma"]
[Result "*"]

1. d4 *

[Event "t"]
[White "gamma"]
[Black "beta"]
[Result "1/2-1/2"]

1. Nf3 {a comment} Nf6 1/2-1/2

[Event "t"]
[White "beta"]
[Black "gamma"]
[Result "1-0"]

1-0
"""


def test_pgn_headers_give_the_same_table_as_tuples(tmp_path: Path) -> None:
    path = tmp_path / "games.pgn"
    path.write_text(PGN)
    games = read_pgn_results(path)
    expected = [
        ("alpha", "beta", "1-0"),
        ("beta", "alpha", "1/2-1/2"),
        ("gamma", "alpha", "0-1"),
        ("gamma", "beta", "1/2-1/2"),
        ("beta", "gamma", "1-0"),
    ]
    assert games == expected  # the "*" game is skipped
    assert load_results(path) == expected
    from_pgn, from_tuples = fit_ratings(games), fit_ratings(expected)
    assert from_pgn.format_table() == from_tuples.format_table()


def test_unreadable_pgn_is_a_value_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot read"):
        read_pgn_results(tmp_path / "missing.pgn")
    with pytest.raises(ValueError, match="no such file"):
        load_results(tmp_path / "missing.pgn")


@pytest.mark.parametrize(("players", "rounds"), [(2, 3), (60, 1), (12, 40)])
def test_fit_converges_for_small_and_large_pools(players: int, rounds: int) -> None:
    rng = np.random.default_rng(players)
    true = {f"p{k}": float(v) for k, v in enumerate(rng.normal(0, 250, players))}
    games = simulate_games(true, rounds, draw_elo=120.0, advantage=30.0, rng=rng)
    table = fit_ratings(games)
    assert len(table.players) == players
    assert all(math.isfinite(p.elo) and p.lower < p.elo < p.upper for p in table.players)
    assert abs(sum(p.elo for p in table.players)) < 1e-6


def test_settled_fit_fixes_a_draw_elo_that_near_sweeps_leave_open() -> None:
    from treestrap.rating.ratings import BAYESELO_DRAW_ELO, fit_ratings_settled

    # A lopsided gauntlet: the middle player almost sweeps one and is almost swept by
    # the other. Fitted freely, the draw Elo runs off with the ratings' spread.
    games = (
        [("top", "mid", "1-0"), ("mid", "top", "0-1")] * 49
        + [("top", "mid", "1/2-1/2")] * 2
        + [("mid", "low", "1-0"), ("low", "mid", "0-1")] * 47
        + [("mid", "low", "1/2-1/2")] * 6
    )
    free = fit_ratings(games, RatingOptions(anchor=("low", 250.0)))
    assert 1.96 * free.draw_elo_sd > 200
    table, notes = fit_ratings_settled(games, RatingOptions(anchor=("low", 250.0)))
    assert table.draw_elo == BAYESELO_DRAW_ELO
    assert any("draw Elo fixed" in note for note in notes)
    mid = table.rating("mid")
    assert 250 < mid.elo < 1200 and mid.upper - mid.lower < 400
    # A well-mixed pool keeps its fitted values and needs no note.
    rng = np.random.default_rng(5)
    mixed = simulate_games({"a": 0.0, "b": 100.0, "c": 200.0}, 200, 150.0, 40.0, rng)
    table, notes = fit_ratings_settled(mixed)
    assert notes == [] and not table.draw_elo_fixed
