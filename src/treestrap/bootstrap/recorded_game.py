"""One self-play game that writes its own training data, for every game: the game loop
(:mod:`treestrap.play.loop`) over the game's contract, the run's player on both sides.

A game's :class:`Recorder` is that player: each turn it searches, keeps the position's
record when the game's rules of what to keep allow, and may end the game by its own
search (a score that stays decided, a proven result). Once the game has ended, every
kept record gets the result from its side's point of view.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from treestrap.bootstrap.chunks import results_by_side
from treestrap.games.contract import Game
from treestrap.play.contract_game import LENGTH_LIMIT, ContractTable
from treestrap.play.loop import DRAWN, FIRST_WINS, SECOND_WINS, Ending, Turn, play_out


class Recorder(ABC):
    """The player of a self-play game, keeping records as it plays both sides."""

    def __init__(self) -> None:
        self.kept: list[np.ndarray] = []
        self.sides: list[int] = []  # the side to move of each kept record
        self.nodes = 0

    @abstractmethod
    def turn(self, table: ContractTable) -> Turn:
        """Search ``table.pos``, keep its record if it is of use, and return the move
        (or the ending the search decided)."""

    def keep(self, record: np.ndarray, side: int) -> None:
        self.kept.append(record)
        self.sides.append(side)

    def refused(self, why: str) -> Ending:
        raise ValueError(f"the self-play search {why}")  # its own search's move: a bug


def play_recorded_game(
    game: Game,
    pos: Any,
    start: int,
    recorder: Recorder,
    record_type: np.dtype,
    max_plies: int | None = None,
) -> tuple[np.ndarray, str, int, int]:
    """Play from ``pos``, ``start`` plies into the game (its opening made), to the end,
    or a draw at ``max_plies`` plies from the game's start; returns the records (results
    filled in), the result for the first player (``FIRST_WINS``, ...), the plies played
    and the nodes searched."""
    table = ContractTable(game, pos, start, write=False)
    ending = play_out(table, (recorder, recorder), max_plies) or Ending(DRAWN, LENGTH_LIMIT)
    records = np.concatenate(recorder.kept) if recorder.kept else np.zeros(0, dtype=record_type)
    first_score = {FIRST_WINS: 1, SECOND_WINS: -1}.get(ending.result, 0)
    records["result"] = results_by_side(recorder.sides, first_score)
    return records, ending.result, table.plies() - start, recorder.nodes
