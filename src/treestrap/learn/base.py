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
from treestrap.learn.optimizer import Optimizer, decay_factor, make_optimizer
from treestrap.search.tree import SearchTree
from treestrap.search.value import VALUE_CLIP

ALPHABETA = "alphabeta"
MINIMAX = "minimax"


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
class Hyper:
    """Hyperparameters shared by the update rules (each uses what applies)."""

    step_size: float
    lam: float = 0.7
    min_depth: int = 1
    squash: bool = True
    #: KnightCap: zero positive temporal differences unless the reply was predicted.
    predicted_only: bool = True
    #: KnightCap: learn towards the game outcome (+1/0/-1) at the end of the game.
    use_outcome: bool = True
    #: indices of weights that never change (e.g. ``tempo``, see ``TrainConfig.freeze``)
    frozen: tuple[int, ...] = ()
    #: how a rule's change is applied: "sgd" (the paper), "adagrad" or "adam"
    optimizer: str = "sgd"
    #: TreeStrap: divide the summed tree update by the number of nodes in it, so that
    #: one search moves the weights by the same amount whatever the tree's size
    normalise: bool = False
    #: RootStrap and TreeStrap: the error each node's value is moved by, in value units
    #: ("squared", the paper's; "cross-entropy" or "squashed", see learn/targets.py)
    objective: str = "squared"
    #: games after which the step has halved (``tau / (tau + games)``); 0 = fixed step
    step_decay: float = 0.0
    #: TreeStrap: nodes flagged ``NOISY`` take no part in updates (search/quiet.py)
    quiet_only: bool = False
    #: TreeStrap: bounds are clipped to +-this before they become targets (the paper:
    #: the heuristic range, 9900); a smaller clip keeps a found mate from pulling a
    #: linear evaluation towards 99 pawns (learn/targets.py)
    target_clip: float = VALUE_CLIP


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
    #: the search it learns from: ALPHABETA or MINIMAX
    search_kind: str
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
    """Base class of the linear rules: subclasses set ``name``, ``search_kind``,
    ``needs_tree``, ``needs_leaf`` and implement :meth:`observe` and/or
    :meth:`end_game`."""

    name = "base"
    search_kind = ALPHABETA
    needs_tree = False
    needs_leaf = False
    needs_root_gradient = True

    def __init__(self, model: LinearModel, hyper: Hyper) -> None:
        self.model = model
        self.hyper = hyper
        self.stats = UpdateStats()
        self.optimizer = make_optimizer(hyper.optimizer, model.weights.shape[0], hyper.step_size)

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
