"""The interface every learning algorithm shares.

The trainer plays the games. Each time it is the learner's turn it runs the search the
algorithm asks for (``search_kind``), records what the algorithm needs in a
:class:`Step`, and calls :meth:`Rule.observe`; after the game it calls
:meth:`Rule.end_game`. Linear algorithms change ``model.weights`` in place (the compiled
evaluator shares that array), so the next search already uses the new weights; a
network's rule (:mod:`treestrap.learn.network_treestrap`) writes its parameters into the
evaluator after each step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from treestrap.evaluation.weights import LinearModel
from treestrap.learn.linear_hyper import Hyper
from treestrap.learn.optimizer import Optimizer, decay_factor, make_optimizer
from treestrap.learn.rules import RULES_BY_NAME
from treestrap.search.tree import SearchTree


@dataclass
class Step:
    """One search of the learner, at time step ``t`` of its game."""

    color: int  # 0 white, 1 black: the learner's colour at this step
    root_value: float  # search value V(s_t), side to move
    root_static: float  # H(s_t)
    root_idx: np.ndarray  # dH(s_t)/dtheta, sparse
    root_val: np.ndarray
    leaf_value: float = 0.0  # H of the principal leaf, from the root side's view
    leaf_idx: np.ndarray | None = None  # d(leaf value)/dtheta, root side's view
    leaf_val: np.ndarray | None = None
    tree: SearchTree | None = None  # the search read back (TT walk or minimax tree)
    predicted_reply: int = 0  # second move of the principal variation
    actual_reply: int = -1  # the opponent's reply once known (-1: not yet / none)


@dataclass
class UpdateStats:
    updates: int = 0
    abs_delta: list[float] = field(default_factory=list)

    def mean_abs_delta(self) -> float:
        return float(np.mean(self.abs_delta)) if self.abs_delta else 0.0


class Rule(Protocol):
    """What the game loop asks of an update rule: a linear model's :class:`Algorithm`,
    or a network's :class:`~treestrap.learn.network_treestrap.ReplayAlgorithm`."""

    name: str

    #: the search it learns from: ``rules.ALPHABETA`` or ``rules.MINIMAX``
    @property
    def search_kind(self) -> str: ...

    #: it learns from the search's tree (the minimax tree, or the table walk's)
    needs_tree: bool
    #: it learns from the principal leaf (``Step.leaf_*``)
    needs_leaf: bool
    #: it learns along the root's sparse gradient (``Step.root_idx``, ``root_val``)
    needs_root_gradient: bool
    stats: UpdateStats
    #: how its changes are applied, saved with the run (an adaptive optimizer's
    #: moments, a network's replay set and momentum)
    optimizer: Optimizer

    def start_game(self, number: int) -> None: ...

    def observe(self, step: Step) -> None: ...

    def end_game(self, steps: list[Step], outcome: float) -> None: ...

    def game_metrics(self) -> dict[str, Any]: ...


class Algorithm:
    """Base class of the linear rules: subclasses set ``name`` (their row of
    :data:`~treestrap.learn.rules.RULES`), ``needs_tree``, ``needs_leaf`` and implement
    :meth:`observe` and/or :meth:`end_game`."""

    name = "base"
    needs_tree = False
    needs_leaf = False
    needs_root_gradient = True

    def __init__(self, model: LinearModel, hyper: Hyper) -> None:
        self.model = model
        self.hyper = hyper
        self.stats = UpdateStats()
        self.optimizer = make_optimizer(hyper.optimizer, model.weights.shape[0], hyper.step_size)

    @property
    def search_kind(self) -> str:
        """The search it learns from (its row of the rule table)."""
        return RULES_BY_NAME[self.name].search

    def apply(self, delta_theta: np.ndarray) -> None:
        if self.hyper.frozen:
            delta_theta[list(self.hyper.frozen)] = 0.0
        self.optimizer.apply(self.model.weights, delta_theta)
        self.stats.updates += 1

    def start_game(self, number: int) -> None:
        """Called before game ``number`` (1-based): sets the step schedule's factor."""
        self.optimizer.scale = decay_factor(number, self.hyper.step_decay)

    def observe(self, step: Step) -> None:
        """Called after each of the learner's searches."""

    def end_game(self, steps: list[Step], outcome: float) -> None:
        """Called once per game with the learner's steps and the result for white
        (+1 win, 0 draw, -1 loss)."""

    def game_metrics(self) -> dict[str, Any]:
        """What a game's metrics line adds: nothing for a linear rule."""
        return {}
