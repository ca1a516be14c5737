"""One game between two in-process players, through the game contract
(:class:`~treestrap.games.contract.Game`): any game that fills the contract plays here.

The loop asks the contract alone: the start position, the opening's moves made in turn,
whose move it is, the legal moves (a player's choice is checked against them), and when
and why the game is over. Results use the chess words (the first player is White):
``1-0`` is a first-player win. Tournaments of in-process players play their games here
(:mod:`treestrap.play.contract_tournament`), and so do Connect Four's measurements
(:mod:`treestrap.play.connect4.game`); chess in-process players can too, though chess
tournaments run engines with clocks (:mod:`treestrap.play.game`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from treestrap.games.contract import Game, MovePlayer

FIRST_WINS, SECOND_WINS, DRAWN = "1-0", "0-1", "1/2-1/2"
#: Why a game stopped at its length limit.
LENGTH_LIMIT = "adjudicated draw: maximum length"


@dataclass(frozen=True)
class PlayedGame:
    """A finished game: the opening's moves and the players' moves as the game writes
    them, the result and why it ended."""

    first: str
    second: str
    opening: tuple[str, ...]
    moves: tuple[str, ...]
    result: str  # FIRST_WINS, SECOND_WINS or DRAWN
    termination: str

    @property
    def plies(self) -> int:
        return len(self.opening) + len(self.moves)


def _legal(game: Game, pos: Any, buffer: np.ndarray) -> set[int]:
    return {int(m) for m in buffer[: game.legal_moves(pos, buffer)]}


class RandomMovePlayer:
    """A uniformly random legal move of any game, repeatable game by game."""

    def __init__(self, game: Game, name: str = "random") -> None:
        self.game = game
        self.name = name
        self.buffer = game.new_move_buffer()
        self.rng = random.Random(0)

    def new_game(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, pos: Any) -> int:
        return self.rng.choice(sorted(_legal(self.game, pos, self.buffer)))


def play_contract_game(
    game: Game,
    first: MovePlayer,
    second: MovePlayer,
    opening: Sequence[int],
    seed: int,
    max_plies: int | None = None,
) -> PlayedGame:
    """Play ``game`` from the position after ``opening`` to its end (or, with
    ``max_plies``, to a draw at that many plies); ``seed`` seeds both players' random
    choices (``2 * seed`` the first's, ``2 * seed + 1`` the second's). ``ValueError``
    for an opening move or a player's move that is not legal."""
    pos = game.start_position()
    buffer = game.new_move_buffer()
    opening_texts = []
    for move in opening:
        if int(move) not in _legal(game, pos, buffer):
            raise ValueError(f"opening move {move} is not legal after {''.join(opening_texts)}")
        opening_texts.append(game.move_text(pos, int(move)))
        game.make_move(pos, int(move))
    first.new_game(2 * seed)
    second.new_game(2 * seed + 1)
    players = (first, second)
    moves: list[str] = []
    result, termination = DRAWN, LENGTH_LIMIT
    while max_plies is None or len(opening) + len(moves) < max_plies:
        value, why = game.terminal(pos, buffer)
        if value is not None:
            termination = why
            if value != 0.0:  # the side to move's result
                first_won = (value > 0) == (game.side_to_move(pos) == 0)
                result = FIRST_WINS if first_won else SECOND_WINS
            break
        mover = players[game.side_to_move(pos)]
        move = int(mover.choose(pos))
        if move not in _legal(game, pos, buffer):
            text = game.move_text(pos, move)
            raise ValueError(f"{mover.name} chose {text}, which is not a legal move")
        moves.append(game.move_text(pos, move))
        game.make_move(pos, move)
    return PlayedGame(
        first.name, second.name, tuple(opening_texts), tuple(moves), result, termination
    )
