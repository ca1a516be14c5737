"""The chess side of the search-tree record: :func:`add_node` evaluates a chess
position and records it. The record itself (:class:`SearchTree`, its flags and
``meta`` slots, :func:`reset_tree`, :func:`tree_size`, :func:`node_gradient`) is
game-neutral and lives in :mod:`treestrap.core.search_tree`; it is re-exported here so
chess code keeps one import.
"""

from __future__ import annotations

import sys

from treestrap.core.position import current_key
from treestrap.core.search_tree import (
    BUDGET_LEAF,
    COUNT,
    FEATURES_PER_NODE,
    FEATURES_USED,
    NOISY,
    OVERFLOW,
    QUIESCENCE,
    TERMINAL,
    SearchTree,
    node_gradient,
    reset_tree,
    tree_size,
)
from treestrap.core.search_tree import new_tree as _new_tree
from treestrap.evaluation.model import MAX_GRADIENT_PAIRS, evaluate_gradient
from treestrap.search import node as record_family
from treestrap.search.family import instantiate

__all__ = [
    "BUDGET_LEAF",
    "COUNT",
    "FEATURES_PER_NODE",
    "FEATURES_USED",
    "NOISY",
    "OVERFLOW",
    "QUIESCENCE",
    "TERMINAL",
    "SearchTree",
    "add_node",
    "evaluate_gradient",  # with position_key: what search/node.py calls as game.name
    "new_tree",
    "node_gradient",
    "reset_tree",
    "tree_size",
]


def new_tree(capacity: int, features_per_node: int = FEATURES_PER_NODE) -> SearchTree:
    """An empty record for up to ``capacity`` chess nodes (room for one extraction of
    the largest chess feature set beyond the average)."""
    return _new_tree(capacity, features_per_node, MAX_GRADIENT_PAIRS)


#: What the family's node recording (:mod:`treestrap.search.node`) calls as ``game.name``:
#: this module is chess's game module for it.
position_key = current_key
#: Evaluate a chess position and record it: ``(node index or -1 if full, H(s))``.
add_node = instantiate(record_family.add_node, sys.modules[__name__])
