"""tools/random_openings.py: distinct, reproducible starts a few random plies past a book."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import chess

REPO_ROOT = Path(__file__).resolve().parents[1]


def _tool():
    spec = importlib.util.spec_from_file_location(
        "random_openings", REPO_ROOT / "tools" / "random_openings.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_random_openings_are_distinct_reproducible_and_past_the_book(tmp_path: Path) -> None:
    book = tmp_path / "book.pgn"
    book.write_text('[Event "a"]\n\n1. e4 e5 *\n\n[Event "b"]\n\n1. d4 d5 *\n')
    tool = _tool()
    lines = tool.random_openings(str(book), plies=2, count=200, seed=3)
    assert len(lines) == 200 and len(set(lines)) == 200
    assert tool.random_openings(str(book), plies=2, count=200, seed=3) == lines
    assert tool.random_openings(str(book), plies=2, count=200, seed=4) != lines
    after_book = {
        chess.Board("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1").epd(),
        chess.Board("rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 1").epd(),
    }
    for epd in lines:
        board = chess.Board(epd + " 0 1")
        assert board.is_valid() and not board.is_game_over()
        assert board.turn == chess.WHITE  # two plies past a two-ply line
        assert epd not in after_book
