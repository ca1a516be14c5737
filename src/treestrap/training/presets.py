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
}
