"""One Connect Four game between two players, from a random opening, and its record.

Openings are a few uniformly random plies, seeded: none ends the game, and the side to
move after them cannot win at once (as in the reference positions), so neither side
starts lost on the spot. Results use the chess words: the first player is White, so
``1-0`` is a first-player win; a record is a PGN game whose moves are columns 1-7,
which ``treestrap rate`` reads as it reads chess games.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass

import numpy as np

from treestrap.connect4.board import (
    LOSS,
    MAX_MOVES,
    NOT_TERMINAL,
    Position,
    can_play,
    format_moves,
    legal_moves,
    make_move,
    new_position,
    terminal_value,
    unmake_move,
)
from treestrap.games.connect4_game import CONNECT4_GAME
from treestrap.play.connect4.players import Player
from treestrap.play.contract_game import DRAWN, FIRST_WINS, SECOND_WINS, play_contract_game

#: Tries at a random opening before giving up (each try is cheap; few fail).
OPENING_TRIES = 1000


def can_win_now(pos: Position) -> bool:
    """Whether the side to move has a column that makes four."""
    buf = np.zeros(MAX_MOVES, dtype=np.int64)
    for i in range(legal_moves(pos, buf)):
        make_move(pos, int(buf[i]))
        won = terminal_value(pos) == LOSS
        unmake_move(pos)
        if won:
            return True
    return False


def random_opening(rng: random.Random, plies: int) -> str:
    """``plies`` random columns (a move string, 1-7) after which the game goes on and
    the side to move cannot win at once."""
    for _ in range(OPENING_TRIES):
        pos = new_position()
        for _ in range(plies):
            cols = [c for c in range(7) if can_play(pos, c)]
            make_move(pos, rng.choice(cols))
            if terminal_value(pos) != NOT_TERMINAL:
                break
        else:
            if not can_win_now(pos):
                return format_moves(pos)
    raise ValueError(f"no opening of {plies} plies found in {OPENING_TRIES} tries")


def random_openings(count: int, plies: int, seed: int) -> list[str]:
    """``count`` openings, the same for the same seed."""
    rng = random.Random(f"connect4-openings/{seed}/{plies}")
    return [random_opening(rng, plies) for _ in range(count)]


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

    def pgn(self, event: str, round_: str) -> str:
        """The game as PGN: the usual tags, a ``Variant`` tag and columns as moves."""
        date = datetime.datetime.now(datetime.UTC).strftime("%Y.%m.%d")
        tags = [
            ("Event", event),
            ("Site", "treestrap"),
            ("Date", date),
            ("Round", round_),
            ("White", self.first),
            ("Black", self.second),
            ("Result", self.result),
            ("Variant", "Connect Four"),
            ("Opening", self.opening),
            ("PlyCount", str(self.plies)),
        ]
        head = "\n".join(f'[{key} "{value}"]' for key, value in tags)
        return f"{head}\n\n{' '.join(self.moves)} {self.result}"


def play_connect4_game(first: Player, second: Player, opening: str, seed: int) -> Connect4Game:
    """Play from ``opening`` to the end through the game contract
    (:func:`~treestrap.play.contract_game.play_contract_game`); ``seed`` seeds both
    players' random choices."""
    columns = [int(c) - 1 for c in opening]
    played = play_contract_game(CONNECT4_GAME, first, second, columns, seed)
    moves = "".join(played.opening + played.moves)
    return Connect4Game(first.name, second.name, opening, moves, played.result)
