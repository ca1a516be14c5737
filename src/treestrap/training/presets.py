"""Training presets, kept free of heavy imports so the command line can list them
instantly (``treestrap train --help``)."""

from __future__ import annotations

from typing import Any

#: Names of the update rules (``treestrap.learn.registry.ALGORITHMS`` has the classes).
ALGORITHM_NAMES = (
    "td",
    "td-root",
    "td-leaf",
    "rootstrap-mm",
    "rootstrap-ab",
    "treestrap-mm",
    "treestrap-ab",
)

#: Ways of applying updates (``treestrap.learn.optimizer`` has the classes).
OPTIMIZERS = ("sgd", "adagrad", "adam")

#: RootStrap/TreeStrap errors (``treestrap.learn.targets`` computes them).
OBJECTIVES = ("squared", "cross-entropy", "squashed")

#: What TreeStrap(alpha-beta) compares a node's bounds with (``treestrap.search.tt_walk``).
NODE_VALUES = ("static", "quiescence")

#: Network objectives (Serban 2014, Table 4.1) by their command-line names, each with
#: its name in ``treestrap.learn.objectives_network``; taken only with ``--model``.
NETWORK_OBJECTIVES = {
    "squared": "squared",
    "hard-cross-entropy": "hard-ce",
    "soft-cross-entropy": "soft-ce",
    "reversed-kl": "reverse-kl",
}

PRESETS: dict[str, dict[str, Any]] = {
    # Veness et al. 2009, section 6: 1m+1s Fischer clocks with learning time charged to
    # the clock, greedy moves after a small book, small random initial weights.
    "paper": {"clock": 60.0, "increment": 1.0, "depth": None, "init": "random"},
    # Minutes for tens of games on 2 cores: a fixed shallow search.
    "quick": {
        "depth": 3,
        "clock": None,
        "nodes": None,
        "minimax_nodes": 1500,
        "minimax_qnodes": 100,
        "max_plies": 200,
        "checkpoint_every": 5,
    },
    # The best measured combination for TreeStrap(alpha-beta) on 2 cores (README,
    # "Learning strength"): depth-3 searches, a step 40 times the paper's 5e-7, and 200
    # games. The paper's step was chosen for the far larger trees of 1m+1s searches;
    # with depth-3 trees it leaves the weights' scale (pinned by the +-9900 mate
    # targets) reached only after hundreds of games: at 200 games the 2e-5 step scored
    # +407 Elo over the paper's. Past 200 games this step gets worse again (the same
    # run's checkpoint at 200 games beat those at 500, 1000 and 1738 games 32-0 at
    # depth 4): a larger --games needs a smaller or decaying step.
    "strong": {
        "algorithm": "treestrap-ab",
        "games": 200,
        "depth": 3,
        "clock": None,
        "nodes": None,
        "step_size": 2e-5,
        "optimizer": "sgd",
        "max_plies": 200,
        "checkpoint_every": 100,
    },
}
