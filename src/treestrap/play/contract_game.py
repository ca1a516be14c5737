"""One game between two in-process players, through the game contract
(:class:`~treestrap.games.contract.Game`): any game that fills the contract plays here.

The loop (:mod:`treestrap.play.loop`) asks the contract alone: the start position, the
opening's moves made in turn, whose move it is, the legal moves (a player's choice is
checked against them; an illegal one is the player's bug, not a loss), and when and why
the game is over. Results use the chess words (the first player is White):
``1-0`` is a first-player win. Tournaments of in-process players play their games here
(:mod:`treestrap.play.contract_tournament`), and so do Connect Four's measurements
(:mod:`treestrap.play.connect4.game`); chess in-process players can too, though chess
tournaments run engines with clocks (:mod:`treestrap.play.game`, the same loop).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from treestrap.games.contract import Game, MovePlayer
from treestrap.play.loop import DRAWN, FIRST_WINS, SECOND_WINS, Ending, Turn, play_out

#: Why a game stopped at its length limit.
LENGTH_LIMIT = "adjudicated draw: maximum length"


@dataclass(frozen=True)
class PlayedGame:
    """A finished game: the opening's moves and the players' moves as the game writes
    them, the result, why it ended and the CPU time both players spent choosing."""

    first: str
    second: str
    opening: tuple[str, ...]
    moves: tuple[str, ...]
    result: str  # FIRST_WINS, SECOND_WINS or DRAWN
    termination: str
    cpu_seconds: float = 0.0

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


class ContractTable:
    """A contract game's position as the loop (:func:`~treestrap.play.loop.play_out`)
    asks it, ``plies`` made so far; with ``write`` it keeps each move's text."""

    def __init__(self, game: Game, pos: Any, plies: int, write: bool = True) -> None:
        self.game = game
        self.pos = pos
        self.buffer = game.new_move_buffer()
        self.count = plies
        self.write = write
        self.texts: list[str] = []

    def ending(self) -> Ending | None:
        value, why = self.game.terminal(self.pos, self.buffer)
        if value is None:
            return None
        if value == 0.0:
            return Ending(DRAWN, why)
        first_won = (value > 0) == (self.game.side_to_move(self.pos) == 0)  # the mover's
        return Ending(FIRST_WINS if first_won else SECOND_WINS, why)

    def side(self) -> int:
        return self.game.side_to_move(self.pos)

    def plies(self) -> int:
        return self.count

    def refusal(self, move: int) -> str | None:
        if move in _legal(self.game, self.pos, self.buffer):
            return None
        return f"chose {self.game.move_text(self.pos, move)}, which is not a legal move"

    def make(self, move: int) -> None:
        if self.write:
            self.texts.append(self.game.move_text(self.pos, move))
        self.game.make_move(self.pos, move)
        self.count += 1


class _ContractMover:
    """An in-process player: its choice is the move; an illegal one is its bug."""

    def __init__(self, player: MovePlayer) -> None:
        self.player = player
        self.cpu_seconds = 0.0  # its choices' CPU time: the player runs in this process

    def turn(self, table: ContractTable) -> Turn:
        start = time.process_time()
        move = int(self.player.choose(table.pos))
        self.cpu_seconds += time.process_time() - start
        return Turn(move)

    def refused(self, why: str) -> Ending:
        raise ValueError(f"{self.player.name} {why}")


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
    table = ContractTable(game, pos, len(opening))
    movers = (_ContractMover(first), _ContractMover(second))
    ending = play_out(table, movers, max_plies) or Ending(DRAWN, LENGTH_LIMIT)
    return PlayedGame(
        first.name,
        second.name,
        tuple(opening_texts),
        tuple(table.texts),
        ending.result,
        ending.termination,
        sum(mover.cpu_seconds for mover in movers),
    )
