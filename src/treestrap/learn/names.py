"""The names of the learning rules and their options, free of numba, so the command
line lists them instantly (``treestrap train --help``). Each tuple is the one source of
its names: the modules that implement them check their tables against it."""

from __future__ import annotations

#: The update rules (:data:`treestrap.learn.registry.ALGORITHMS` has the classes).
ALGORITHM_NAMES = (
    "td",
    "td-root",
    "td-leaf",
    "rootstrap-mm",
    "rootstrap-ab",
    "treestrap-mm",
    "treestrap-ab",
)

#: The update rule of network runs by default: Serban's Algorithm 7 learns from
#: full-tree minimax trees.
NETWORK_ALGORITHM = "treestrap-mm"
#: Network runs' update rules: Algorithm 7 over minimax trees, or over the training
#: alpha-beta's table walk with a one-sided loss (TreeStrap(alpha-beta) for networks).
NETWORK_ALGORITHMS = (NETWORK_ALGORITHM, "treestrap-ab")

#: Ways of applying updates (:mod:`treestrap.learn.optimizer` has the classes).
OPTIMIZERS = ("sgd", "adagrad", "adam")

#: RootStrap/TreeStrap errors of linear models (:mod:`treestrap.learn.targets`).
OBJECTIVES = ("squared", "cross-entropy", "squashed")

#: Network objectives (Serban 2014, Table 4.1) by their command-line names, each with
#: its name in :mod:`treestrap.learn.objectives_network`; taken only with ``--model``.
NETWORK_OBJECTIVES = {
    "squared": "squared",
    "hard-cross-entropy": "hard-ce",
    "soft-cross-entropy": "soft-ce",
    "reversed-kl": "reverse-kl",
}

#: What TreeStrap(alpha-beta) compares a node's bounds with (:mod:`treestrap.search.tt_walk`).
NODE_VALUES = ("static", "quiescence")
