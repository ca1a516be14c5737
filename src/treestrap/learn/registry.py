"""The update rules by name: the seven of linear models, with the paper's step sizes
as defaults, and those of networks (Serban's Algorithm 7, :data:`NETWORK_RULES`).

Veness et al. (2009, section 6.0.1): 1e-5 for TD-Leaf and RootStrap(alpha-beta), 1e-6
for TreeStrap(minimax), 5e-7 for TreeStrap(alpha-beta). TD and TD-Root, and
RootStrap(minimax), take the values of their closest relatives.

Those step sizes are for errors in the heuristic's own units (centipawns here). With
KnightCap's tanh squash on, TD and TD-Leaf measure errors and gradients in squashed
units, each about ``BETA`` times smaller near zero, so :func:`default_step_size` divides
their step by ``BETA ** 2``: the same update as unsquashed for small values.
"""

from __future__ import annotations

from treestrap.evaluation.weights import LinearModel
from treestrap.games.registry import DEFAULT_GAME, game_facts
from treestrap.learn.base import Algorithm, Hyper
from treestrap.learn.names import ALGORITHM_NAMES, NETWORK_ALGORITHMS
from treestrap.learn.network_treestrap import ReplayAlgorithm
from treestrap.learn.replay import ReplayTrainer
from treestrap.learn.rootstrap import RootStrap, RootStrapMinimax
from treestrap.learn.td import TemporalDifference
from treestrap.learn.td_leaf import TDLeaf
from treestrap.learn.td_root import TDRoot
from treestrap.learn.temporal import BETA
from treestrap.learn.treestrap import TreeStrapAlphaBeta, TreeStrapMinimax

ALGORITHMS: dict[str, type[Algorithm]] = {
    "td": TemporalDifference,
    "td-root": TDRoot,
    "td-leaf": TDLeaf,
    "rootstrap-mm": RootStrapMinimax,
    "rootstrap-ab": RootStrap,
    "treestrap-mm": TreeStrapMinimax,
    "treestrap-ab": TreeStrapAlphaBeta,
}
assert tuple(ALGORITHMS) == ALGORITHM_NAMES, "learn/names.py lists every rule, in order"

#: Network runs' rules: Algorithm 7 each, learning from the search its name asks for
#: (``ReplayAlgorithm.search_kind``): minimax trees, or the table walk's bounds.
NETWORK_RULES: dict[str, type[ReplayAlgorithm]] = {
    "treestrap-mm": ReplayAlgorithm,
    "treestrap-ab": ReplayAlgorithm,
}
assert tuple(NETWORK_RULES) == NETWORK_ALGORITHMS, "learn/names.py lists every network rule"

DEFAULT_STEP_SIZE: dict[str, float] = {
    "td": 1e-5,
    "td-root": 1e-5,
    "td-leaf": 1e-5,
    "rootstrap-mm": 1e-5,
    "rootstrap-ab": 1e-5,
    "treestrap-mm": 1e-6,
    "treestrap-ab": 5e-7,
}


#: The rules that squash values when ``Hyper.squash`` is on.
SQUASHING = ("td", "td-leaf")


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
    game: str = DEFAULT_GAME,
) -> float:
    """The paper's step size, converted to squashed units where the rule squashes; for
    an adaptive optimizer :data:`ADAPTIVE_STEP_SIZE`; scaled by
    :data:`NORMALISED_NODES` for a node-normalised TreeStrap step, and by the game's
    factor for the rule (:attr:`~treestrap.games.facts.GameFacts.step_factors`)."""
    if optimizer != "sgd":
        return ADAPTIVE_STEP_SIZE
    step = DEFAULT_STEP_SIZE[name]
    step *= game_facts(game).step_factors.get(name, 1.0)
    if normalise and name.startswith("treestrap"):
        step *= NORMALISED_NODES
    return step / BETA**2 if squash and name in SQUASHING else step


def make_algorithm(name: str, model: LinearModel, hyper: Hyper | None = None) -> Algorithm:
    """An algorithm by name; ``ValueError`` lists the known names."""
    if name not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {name!r} (known: {', '.join(ALGORITHMS)})")
    return ALGORITHMS[name](model, hyper or Hyper(step_size=DEFAULT_STEP_SIZE[name]))


def make_network_algorithm(name: str, trainer: ReplayTrainer, seed: int) -> ReplayAlgorithm:
    """A network run's rule by name, stepping ``trainer``; ``ValueError`` lists the
    known names."""
    if name not in NETWORK_RULES:
        known = ", ".join(NETWORK_RULES)
        raise ValueError(f"unknown network algorithm {name!r} (known: {known})")
    return NETWORK_RULES[name](trainer, seed, name)
