"""The update rules, one row each: name, class, the paper's step size, the search it
learns from, whether its default step is in squashed units, and whether networks learn
by it. Every table of rules (the names the command line takes, the classes, the default
steps) is read from :data:`RULES`.

Veness et al. (2009, section 6.0.1): 1e-5 for TD-Leaf and RootStrap(alpha-beta), 1e-6
for TreeStrap(minimax), 5e-7 for TreeStrap(alpha-beta). TD and TD-Root, and
RootStrap(minimax), take the values of their closest relatives.

Free of numba, so the command line lists the rules instantly: each class is named by
its module and imported only when a run makes its rule (:mod:`treestrap.learn.registry`).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

#: The searches a rule learns from: the training alpha-beta (its table walk), or
#: full-tree minimax (every node with its exact value).
ALPHABETA = "alphabeta"
MINIMAX = "minimax"

#: Algorithm 7's default step (learning rate of the mini-batch SGD), as Serban's
#: supervised starting points were trained with; ``--step-size`` replaces it.
NETWORK_STEP_SIZE = 0.01


@dataclass(frozen=True)
class RuleEntry:
    """One update rule of linear models (and, where ``network``, of networks)."""

    name: str
    #: the class of the linear rule, as ``module.Class`` under ``treestrap.learn``
    linear_class: str
    #: the paper's step size, in the heuristic's own units (centipawns for chess)
    step: float
    #: the search it learns from: :data:`ALPHABETA` or :data:`MINIMAX`
    search: str
    #: with KnightCap's squash on (``Hyper.squash``) its errors and gradients are in
    #: squashed units, and its default step is converted to them
    squashes: bool = False
    #: networks learn by it too: Serban's Algorithm 7 from the trees of the same search
    #: (:class:`~treestrap.learn.network_treestrap.ReplayAlgorithm`)
    network: bool = False

    def rule_class(self) -> type:
        """The class of the linear rule (its module imported now)."""
        module, _, name = self.linear_class.rpartition(".")
        cls: type = getattr(importlib.import_module(f"treestrap.learn.{module}"), name)
        return cls


RULES = (
    RuleEntry("td", "td.TemporalDifference", 1e-5, ALPHABETA, squashes=True),
    RuleEntry("td-root", "td_root.TDRoot", 1e-5, ALPHABETA),
    RuleEntry("td-leaf", "td_leaf.TDLeaf", 1e-5, ALPHABETA, squashes=True),
    RuleEntry("rootstrap-mm", "rootstrap.RootStrapMinimax", 1e-5, MINIMAX),
    RuleEntry("rootstrap-ab", "rootstrap.RootStrap", 1e-5, ALPHABETA),
    RuleEntry("treestrap-mm", "treestrap.TreeStrapMinimax", 1e-6, MINIMAX, network=True),
    RuleEntry("treestrap-ab", "treestrap.TreeStrapAlphaBeta", 5e-7, ALPHABETA, network=True),
)

RULES_BY_NAME = {rule.name: rule for rule in RULES}

#: The rules by name, in the table's order (``--algorithm``'s choices).
ALGORITHM_NAMES = tuple(RULES_BY_NAME)

#: Network runs' rules: Algorithm 7 over minimax trees, or over the training
#: alpha-beta's table walk with a one-sided loss (TreeStrap(alpha-beta) for networks).
NETWORK_ALGORITHMS = tuple(rule.name for rule in RULES if rule.network)

#: The update rule of network runs by default: Serban's Algorithm 7 learns from
#: full-tree minimax trees.
NETWORK_ALGORITHM = "treestrap-mm"
