"""One Connect Four game between two players from a position given by its moves, played
through the game contract (:func:`~treestrap.play.contract_game.play_contract_game`):
the games of the measurement against perfect play. Results use the chess words: the
first player is White, so ``1-0`` is a first-player win.
"""

from __future__ import annotations

from dataclasses import dataclass

from treestrap.games.connect4_game import CONNECT4_GAME
from treestrap.games.contract import MovePlayer
from treestrap.play.contract_game import play_contract_game
from treestrap.play.loop import DRAWN, FIRST_WINS, SECOND_WINS

__all__ = ["DRAWN", "FIRST_WINS", "SECOND_WINS", "Connect4Game", "play_connect4_game"]


@dataclass(frozen=True)
class Connect4Game:
    """A finished game: ``moves`` holds the opening's and the players' columns."""

    first: str
    second: str
    opening: str
    moves: str
    result: str  # FIRST_WINS, SECOND_WINS or DRAWN

    @property
    def plies(self) -> int:
        return len(self.moves)

    def score_of(self, name: str) -> float:
        """1, 1/2 or 0 for the player named (first or second)."""
        won = FIRST_WINS if name == self.first else SECOND_WINS
        return 1.0 if self.result == won else 0.5 if self.result == DRAWN else 0.0


def play_connect4_game(
    first: MovePlayer, second: MovePlayer, opening: str, seed: int
) -> Connect4Game:
    """Play from ``opening`` (columns 1-7) to the end; ``seed`` seeds both players'
    random choices."""
    columns = [int(c) - 1 for c in opening]
    played = play_contract_game(CONNECT4_GAME, first, second, columns, seed)
    moves = "".join(played.opening + played.moves)
    return Connect4Game(first.name, second.name, opening, moves, played.result)
