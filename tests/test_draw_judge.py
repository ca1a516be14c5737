"""``benchmarks/draw_judge.py`` and the PGN reading it shares with ``loss_turns.py``:
the games of one player with their outcome for it, the material of a position from the
player's side, and the judge's verdict by its thresholds."""

from __future__ import annotations

import sys
from pathlib import Path

import chess
from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from draw_judge import material, verdict
from loss_turns import player_games

GAMES = """[White "p"]
[Black "q"]
[Result "1/2-1/2"]

1. e4 e5 1/2-1/2

[White "r"]
[Black "s"]
[Result "1-0"]

1. d4 d5 1-0

[White "q"]
[Black "p"]
[Result "1-0"]

1. c4 e5 1-0

[White "p"]
[Black "r"]
[Result "1-0"]

1. Nf3 d5 1-0
"""


def test_a_players_games_come_with_their_number_and_outcome(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    pgn.write_text(GAMES)
    found = [(n, white, outcome) for n, _, white, outcome in player_games(pgn, "p")]
    assert found == [(1, True, "drawn"), (3, False, "lost"), (4, True, "won")]


def test_the_material_is_the_players_first() -> None:
    board = chess.Board("8/8/R2n4/2k4K/8/8/8/6r1 w - - 0 1")
    assert material(board, white=True) == "KR-KRN"
    assert material(board, white=False) == "KRN-KR"


def test_the_verdict_follows_the_judges_score() -> None:
    assert verdict(-51) == "worse by the judge"
    assert [verdict(cp) for cp in (-50, 0, 49)] == ["level by the judge"] * 3
    assert verdict(50) == verdict(149) == "better by the judge"
    assert verdict(150) == "won by the judge"


def test_the_judges_own_searches_find_a_mate_in_one_and_score_it_as_won(tmp_path: Path) -> None:
    """``loss_judge.own_search`` (a preset's move) and ``draw_judge.rescorer`` (a weight
    file's score) both search with the engine that plays, through ``node_search``."""
    from draw_judge import rescorer
    from loss_judge import own_search

    from treestrap.evaluation.presets import preset_model

    board = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")  # Ra8 mates
    assert own_search("learned")(board, 2000) == chess.Move.from_uci("a1a8")
    preset_model("learned").save(tmp_path / "learned.npz")
    assert rescorer(tmp_path / "learned.npz", 2000)(board) > 50  # a mate, in pawns
    assert rescorer(tmp_path / "learned.npz", 2000)(chess.Board()) < 1
