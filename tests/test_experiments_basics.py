"""Elo arithmetic, opening books and the match runner's bookkeeping."""

from __future__ import annotations

import math

import chess
import pytest
from conftest import data_dir, require

from treestrap.experiments.elo import MatchScore, elo_from_score
from treestrap.experiments.match import GameRecord, MatchResult, TimeControl
from treestrap.experiments.openings import built_in_book, load_openings, pick_openings


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


def test_built_in_book_lines_are_legal_and_distinct() -> None:
    book = built_in_book()
    assert len(book) >= 30
    fens = {o.board().fen() for o in book}
    assert len(fens) == len(book)
    assert all(4 <= len(o.moves) <= 10 for o in book)


def test_pick_openings_is_reproducible_and_covers_the_book_first() -> None:
    book = built_in_book()
    a = pick_openings(book, 50, seed=3)
    assert a == pick_openings(book, 50, seed=3)
    assert len({o.name for o in a[: len(book)]}) == len(book)


def test_lichess_and_eco_files_load() -> None:
    tsv = data_dir() / "openings" / "lichess_openings.tsv"
    pgn = data_dir() / "openings" / "eco.pgn"
    require(tsv.exists() and pgn.exists(), "opening files missing from shared data")
    lichess = load_openings(str(tsv))
    assert len(lichess) == 3807
    eco = load_openings(str(pgn))
    assert len(eco) > 2000
    for o in lichess[::400] + eco[::400]:
        assert isinstance(o.board(), chess.Board)


def test_bad_opening_sources_are_refused() -> None:
    with pytest.raises(ValueError, match="not found"):
        load_openings("no/such/file.pgn")


def test_match_result_scores_from_the_first_players_view() -> None:
    r = MatchResult("A", "B")
    r.games += [
        GameRecord("A", "B", "1-0", "checkmate", "x", "", 40),
        GameRecord("B", "A", "1-0", "time forfeit", "x", "", 40, time_loss=True),
        GameRecord("B", "A", "1/2-1/2", "stalemate", "x", "", 40),
        GameRecord("B", "A", "0-1", "checkmate", "x", "", 40),
    ]
    assert r.score() == MatchScore(2, 1, 1)
    assert r.time_losses("A") == 1 and r.time_losses("B") == 0
    assert TimeControl(base=10, increment=0.1).describe() == "10+0.1"


def test_a_clean_sweep_gets_a_one_sided_bound() -> None:
    sweep = MatchScore(20, 0, 0)
    lo, hi = sweep.elo_interval()
    assert hi == math.inf
    # 0.025 ** (1/20) = 0.8318: the score below which 20 straight wins are unlikely
    assert lo == pytest.approx(elo_from_score(0.025 ** (1 / 20)))
    assert "above +" in sweep.describe()
    assert "below -" in MatchScore(0, 0, 20).describe()


def test_head_to_head_scores_each_pair_from_the_first_players_side() -> None:
    from treestrap.experiments.standings import format_head_to_head, head_to_head

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
