"""The rules made by name (:data:`treestrap.learn.rules.RULES`), and their default step
sizes.

The paper's step sizes are for errors in the heuristic's own units (centipawns here).
With KnightCap's tanh squash on, TD and TD-Leaf measure errors and gradients in
squashed units, each about ``BETA`` times smaller near zero, so
:func:`default_step_size` divides their step by ``BETA ** 2``: the same update as
unsquashed for small values.
"""

from __future__ import annotations

from collections.abc import Mapping

from treestrap.evaluation.weights import LinearModel
from treestrap.learn.base import Algorithm
from treestrap.learn.linear_hyper import Hyper
from treestrap.learn.network_treestrap import ReplayAlgorithm
from treestrap.learn.replay import ReplayTrainer
from treestrap.learn.rules import NETWORK_ALGORITHMS, RULES_BY_NAME
from treestrap.learn.temporal import BETA

#: Adaptive optimizers: each update moves a weight by about this much (centipawns for
#: meep), whatever the scale of its gradient.
ADAPTIVE_STEP_SIZE = 1.0
#: A node-normalised TreeStrap step stands for this many nodes' worth of the paper's
#: step: a tree of this size moves the weights as the unnormalised rule would.
NORMALISED_NODES = 1000


def default_step_size(
    name: str,
    squash: bool = True,
    optimizer: str = "sgd",
    normalise: bool = False,
    step_factors: Mapping[str, float] | None = None,
) -> float:
    """The paper's step size, converted to squashed units where the rule squashes; for
    an adaptive optimizer :data:`ADAPTIVE_STEP_SIZE`; scaled by
    :data:`NORMALISED_NODES` for a node-normalised TreeStrap step, and by the game's
    game's factor for the rule in ``step_factors``
    (:attr:`~treestrap.games.facts.GameFacts.step_factors`; none given or named: 1)."""
    if optimizer != "sgd":
        return ADAPTIVE_STEP_SIZE
    rule = RULES_BY_NAME[name]
    step = rule.step
    if step_factors:
        step *= step_factors.get(name, 1.0)
    if normalise and name.startswith("treestrap"):
        step *= NORMALISED_NODES
    return step / BETA**2 if squash and rule.squashes else step


def make_algorithm(name: str, model: LinearModel, hyper: Hyper | None = None) -> Algorithm:
    """A linear rule by name (the paper's step by default); ``ValueError`` lists the
    known names."""
    if name not in RULES_BY_NAME:
        raise ValueError(f"unknown algorithm {name!r} (known: {', '.join(RULES_BY_NAME)})")
    rule = RULES_BY_NAME[name]
    algorithm: Algorithm = rule.rule_class()(model, hyper or Hyper(step_size=rule.step))
    return algorithm


def make_network_algorithm(name: str, trainer: ReplayTrainer, seed: int) -> ReplayAlgorithm:
    """A network run's rule by name, stepping ``trainer``; ``ValueError`` lists the
    known names."""
    if name not in NETWORK_ALGORITHMS:
        known = ", ".join(NETWORK_ALGORITHMS)
        raise ValueError(f"unknown network algorithm {name!r} (known: {known})")
    return ReplayAlgorithm(trainer, seed, name)
