"""TreeStrap for networks: the update rule of a network run (Serban 2014, Algorithm 7).

After each search the tree's first K nodes join a replay set and mini-batch steps move
the network (:class:`~treestrap.learn.replay.ReplayTrainer`, which also writes the
parameters into the searches' evaluator). ``treestrap-mm`` learns from full-tree
minimax trees; ``treestrap-ab`` from the training alpha-beta's table walk, whose nodes
carry bounds, with a one-sided loss.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from treestrap.learn.base import Step, UpdateStats
from treestrap.learn.optimizer import Optimizer
from treestrap.learn.replay import ReplayTrainer, ReplayTrainerState
from treestrap.learn.rules import NETWORK_ALGORITHM, RULES_BY_NAME
from treestrap.search.value import VALUE_CLIP


class ReplayAlgorithm:
    """Algorithm 7 with the interface the game loop uses (that of
    :class:`~treestrap.learn.base.Rule`)."""

    needs_tree = True
    needs_leaf = False
    #: the root's sparse gradient is of no use: the steps take theirs through torch
    needs_root_gradient = False

    def __init__(self, trainer: ReplayTrainer, seed: int, name: str = NETWORK_ALGORITHM) -> None:
        self.name = name
        #: the search it learns from: its rule's row of the rule table
        self.search_kind = RULES_BY_NAME[name].search
        self.trainer = trainer
        self.seed = seed
        self.stats = UpdateStats()
        #: the replay set and the momentum, saved with the run as an optimizer's state
        self.optimizer: Optimizer = ReplayTrainerState(trainer)
        self.losses: list[float] = []

    def start_game(self, number: int) -> None:
        # Mini-batches drawn from (seed, game number), the replay set and momentum
        # restored with the run: a resumed run goes on as it would have.
        self.trainer.rng = np.random.default_rng([self.seed, number])
        self.trainer.start_game(number)
        self.losses = []

    def observe(self, step: Step) -> None:
        assert step.tree is not None
        self.losses.append(self.trainer.learn_from_tree(step.tree))
        target = float(np.clip(step.root_value, -VALUE_CLIP, VALUE_CLIP))
        self.stats.abs_delta.append(abs(target - step.root_static))
        self.stats.updates += 1

    def end_game(self, steps: list[Step], outcome: float) -> None:
        """Nothing at the end of a game: Algorithm 7 learns from every search."""

    def game_metrics(self) -> dict[str, Any]:
        """What a game's metrics line adds: the mean mini-batch loss and the replay size."""
        loss = float(np.mean(self.losses)) if self.losses else None
        return {"replay_loss": loss, "replay_positions": self.trainer.replay.size}

    def network_parameters(self) -> np.ndarray:
        """The network's flat parameters as they stand (those of a weight file)."""
        return self.trainer.parameters_of(self.trainer.model)
