"""Elo arithmetic: match Elo with its 95% interval, and head-to-head scores."""

from __future__ import annotations

import math

import pytest

from treestrap.rating.elo import MatchScore, elo_from_score


def test_elo_from_score_matches_the_logistic_formula() -> None:
    assert elo_from_score(0.5) == 0.0
    # 0.75 = 1 / (1 + 10**(-d/400))  =>  d = 400 log10(3)
    assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))
    assert elo_from_score(0.25) == pytest.approx(-400 * math.log10(3))


def test_match_score_interval_by_hand() -> None:
    s = MatchScore(wins=30, draws=40, losses=30)
    assert s.score == 0.5 and s.elo == 0.0
    # variance per game: (30*0.25 + 40*0 + 30*0.25)/100 = 0.15; se = sqrt(0.15/100)
    se = math.sqrt(0.15 / 100)
    lo, hi = s.elo_interval()
    assert lo == pytest.approx(elo_from_score(0.5 - 1.959963984540054 * se))
    assert hi == pytest.approx(-lo)
    assert "Elo +0" in s.describe()
    lopsided = MatchScore(90, 5, 5)
    assert lopsided.elo > 300 and lopsided.elo_interval()[0] > 200


def test_a_clean_sweep_gets_a_one_sided_bound() -> None:
    sweep = MatchScore(20, 0, 0)
    lo, hi = sweep.elo_interval()
    assert hi == math.inf
    # 0.025 ** (1/20) = 0.8318: the score below which 20 straight wins are unlikely
    assert lo == pytest.approx(elo_from_score(0.025 ** (1 / 20)))
    assert "above +" in sweep.describe()
    assert "below -" in MatchScore(0, 0, 20).describe()


def test_head_to_head_scores_each_pair_from_the_first_players_side() -> None:
    from treestrap.rating.standings import format_head_to_head, head_to_head

    games = [
        ("a", "b", "1-0"),
        ("b", "a", "1-0"),
        ("b", "a", "1/2-1/2"),
        ("c", "a", "0-1"),
        ("b", "c", "1/2-1/2"),
    ]
    rows = head_to_head(["a", "b", "c"], games)
    assert [(a, b, (s.wins, s.draws, s.losses)) for a, b, s in rows] == [
        ("a", "b", (1, 1, 1)),
        ("a", "c", (1, 0, 0)),
        ("b", "c", (0, 1, 0)),
    ]
    assert format_head_to_head(rows).splitlines()[0].startswith("a - b: +1 =1 -1 (3 games)")
