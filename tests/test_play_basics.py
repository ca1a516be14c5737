"""Opening books and the match runner's bookkeeping."""

from __future__ import annotations

import chess
import pytest
from conftest import data_dir, require

from treestrap.play.match import GameRecord, MatchResult, TimeControl
from treestrap.play.openings import built_in_book, load_openings, pick_openings
from treestrap.rating.elo import MatchScore


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
    require(tsv.exists() and pgn.exists(), f"opening files missing from {data_dir()}")
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


def test_match_between_two_engines_of_one_name_scores_as_first_with_white() -> None:
    """A self-play match (``--first treestrap --second treestrap``) names both engines
    alike; every game then counts as the first engine's with White."""
    r = MatchResult("treestrap", "treestrap")
    r.games += [
        GameRecord("treestrap", "treestrap", "1-0", "checkmate", "x", "", 40),
        GameRecord("treestrap", "treestrap", "1-0", "checkmate", "x", "", 40),
        GameRecord("treestrap", "treestrap", "1/2-1/2", "stalemate", "x", "", 40),
        GameRecord("treestrap", "treestrap", "0-1", "checkmate", "x", "", 40),
    ]
    assert r.score() == MatchScore(2, 1, 1)
