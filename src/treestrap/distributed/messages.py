"""What travels between the learner and its actors: a :class:`Job` out, a
:class:`Played` game back. Both are plain picklable data."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from treestrap.distributed.updates import Record
from treestrap.training.game import GameSummary


@dataclass
class Job:
    """Play one game."""

    #: the opening and colours are drawn from it as a one-process run draws them from
    #: the game number (with one actor it is the game number)
    ticket: int
    #: games the learner had applied when it published the weights below
    version: int
    #: the published weights (a network run's: its flat parameters), or None when the
    #: actor already has this version
    weights: np.ndarray | None = None
    #: an adaptive optimizer's state published with the weights (empty for sgd)
    optimizer_state: dict[str, np.ndarray] | None = None
    #: the ladder's current Stockfish level, if any
    elo: int | None = None
    #: a hybrid network's linear part, weights and feature set name, sent with the
    #: weights (it stays fixed while the network learns)
    linear: tuple[np.ndarray, str] | None = None


@dataclass
class Played:
    """One finished game and every update its searches made, in order (a network
    run's: every search's replay samples)."""

    ticket: int
    version: int
    summary: GameSummary
    updates: list[Record]

    @property
    def update_bytes(self) -> int:
        return sum(u.nbytes for u in self.updates)
