"""``benchmarks/loss_judge.py``: where a judge had a lost game turn, walked back from the
player's own fall, with a constructed judge in place of Stockfish."""

from __future__ import annotations

import io
import sys

import chess
import chess.pgn
from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from loss_judge import judge_game

MOVES = "1. e4 {+0.50} e5 2. Nf3 {+0.40} Nc6 3. Bc4 {+0.20} Nf6 4. Ng5 {0.00} d5 5. exd5 {-2.00}"


class FixedJudge:
    """Scores each position of the game by its ply, from White's side (the player's)."""

    def __init__(self, white_view: list[int]) -> None:
        game = chess.pgn.read_game(io.StringIO(MOVES))
        board = game.board()
        self.by_fen = {board.fen(): white_view[0]}
        for ply, move in enumerate(game.mainline_moves(), start=1):
            board.push(move)
            self.by_fen[board.fen()] = white_view[ply]

    def verdict(self, board: chess.Board) -> dict:
        white = self.by_fen[board.fen()]
        return {"cp": white if board.turn == chess.WHITE else -white, "move": None}


def lost_game() -> chess.pgn.Game:
    text = f'[White "p"]\n[Black "q"]\n[Result "0-1"]\n\n{MOVES} 0-1\n'
    return chess.pgn.read_game(io.StringIO(text))


def test_a_slide_is_walked_back_to_its_decisive_move_and_its_start() -> None:
    # the player's moves are plies 1, 3, 5, 7 and 9; its own score falls at ply 9
    view = [20, 20, 10, 10, -100, -200, -200, -250, -300, -400]
    fall = judge_game(1, lost_game(), "p", FixedJudge(view))
    assert fall is not None and fall.kind == "a slide"
    assert (fall.own_turn_ply, fall.decisive_ply) == (9, 5)
    assert (fall.judge_before, fall.judge_after, fall.own_score) == (-100, -200, 0.2)
    assert (fall.slide_ply, fall.own_score_at_slide) == (3, 0.4)
    assert (fall.worst_ply, fall.worst_loss, fall.worst_before) == (5, 100, -100)


def test_one_move_from_level_to_lost() -> None:
    view = [20, 20, 10, 10, 0, -300, -300, -300, -300, -400]
    fall = judge_game(1, lost_game(), "p", FixedJudge(view))
    assert fall is not None and fall.kind == "one move"
    assert (fall.decisive_ply, fall.slide_ply, fall.worst_loss) == (5, 5, 300)


def test_a_game_the_judge_does_not_call_lost_at_the_fall() -> None:
    view = [20] * 10
    fall = judge_game(1, lost_game(), "p", FixedJudge(view))
    assert fall is not None and fall.kind == "not lost by the judge"
    assert fall.decisive_ply is None


def test_a_player_whose_score_never_fell_has_no_fall() -> None:
    assert judge_game(1, lost_game(), "q", FixedJudge([0] * 10)) is None
