"""The game loop through the game contract (play/contract_game.py): chess and Connect
Four games of in-process players, checked against python-chess and the Connect Four
board's own rules."""

from __future__ import annotations

import chess
import pytest

from treestrap.connect4.board import LOSS, parse_moves, terminal_value
from treestrap.games.chess_game import CHESS_GAME
from treestrap.games.connect4_game import CONNECT4_GAME
from treestrap.play.contract_game import (
    DRAWN,
    FIRST_WINS,
    LENGTH_LIMIT,
    SECOND_WINS,
    RandomMovePlayer,
    play_contract_game,
)


def test_chess_games_through_the_contract_follow_python_chess() -> None:
    ends = set()
    for seed in range(12):
        first = RandomMovePlayer(CHESS_GAME, "a")
        second = RandomMovePlayer(CHESS_GAME, "b")
        game = play_contract_game(CHESS_GAME, first, second, [], seed, max_plies=300)
        board = chess.Board()
        for text in game.moves:
            move = chess.Move.from_uci(text)
            assert move in board.legal_moves, (seed, text)
            board.push(move)
        ends.add(game.termination)
        if game.termination == "checkmate":
            assert board.is_checkmate()
            winner_white = board.turn == chess.BLACK
            assert game.result == (FIRST_WINS if winner_white else SECOND_WINS)
        else:
            assert game.result == DRAWN
            if game.termination == "stalemate":
                assert board.is_stalemate()
            elif game.termination == LENGTH_LIMIT:
                assert game.plies == 300 and not board.is_checkmate()
            else:  # insufficient material, fifty moves, threefold repetition
                assert board.outcome(claim_draw=True) is not None
    assert len(ends) >= 2  # random games end in more than one way


def test_a_chess_opening_is_played_before_the_players_move() -> None:
    e4 = chess.Move.from_uci("e2e4")
    pos = CHESS_GAME.start_position()
    buf = CHESS_GAME.new_move_buffer()
    moves = [int(m) for m in buf[: CHESS_GAME.legal_moves(pos, buf)]]
    opening = [m for m in moves if CHESS_GAME.move_text(pos, m) == e4.uci()]
    first, second = RandomMovePlayer(CHESS_GAME, "a"), RandomMovePlayer(CHESS_GAME, "b")
    game = play_contract_game(CHESS_GAME, first, second, opening, 3, max_plies=6)
    assert game.opening == ("e2e4",) and len(game.moves) == 5
    assert game.termination == LENGTH_LIMIT and game.plies == 6


def test_connect4_games_through_the_contract_end_by_the_boards_rules() -> None:
    for seed in range(30):
        first = RandomMovePlayer(CONNECT4_GAME, "a")
        second = RandomMovePlayer(CONNECT4_GAME, "b")
        game = play_contract_game(CONNECT4_GAME, first, second, [3], seed)
        pos = parse_moves("".join(game.opening + game.moves))
        if game.result == DRAWN:
            assert game.plies == 42 and game.termination == "full board"
        else:
            assert terminal_value(pos) == LOSS and game.termination == "four in a row"
            # the last disc made four: odd plies are the first player's discs
            assert game.result == (FIRST_WINS if game.plies % 2 else SECOND_WINS)


class _Stubborn:
    """Always the same move, legal or not."""

    name = "stubborn"

    def __init__(self, move: int) -> None:
        self.move = move

    def new_game(self, seed: int) -> None:
        pass

    def choose(self, pos: object) -> int:
        return self.move


def test_an_illegal_choice_or_opening_is_refused() -> None:
    # column 1 (move 0) is full after six discs: the seventh is refused
    with pytest.raises(ValueError, match="stubborn chose 1, which is not a legal move"):
        play_contract_game(CONNECT4_GAME, _Stubborn(0), _Stubborn(0), [], 1)
    with pytest.raises(ValueError, match="opening move 9 is not legal"):
        play_contract_game(CONNECT4_GAME, _Stubborn(0), _Stubborn(1), [3, 9], 1)
