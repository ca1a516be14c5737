"""The chess side of the search-tree record: :func:`add_node` evaluates a chess
position and records it. The record itself (:class:`SearchTree`, its flags and
``meta`` slots, :func:`reset_tree`, :func:`tree_size`, :func:`node_gradient`) is
game-neutral and lives in :mod:`treestrap.core.search_tree`; it is re-exported here so
chess code keeps one import.
"""

from __future__ import annotations

from treestrap.core.jit import njit
from treestrap.core.position import Position, current_key
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
    record_node,
    reset_tree,
    tree_size,
)
from treestrap.core.search_tree import new_tree as _new_tree
from treestrap.evaluation.model import MAX_GRADIENT_PAIRS, Evaluator, evaluate_gradient

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
    "new_tree",
    "node_gradient",
    "reset_tree",
    "tree_size",
]


def new_tree(capacity: int, features_per_node: int = FEATURES_PER_NODE) -> SearchTree:
    """An empty record for up to ``capacity`` chess nodes (room for one extraction of
    the largest chess feature set beyond the average)."""
    return _new_tree(capacity, features_per_node, MAX_GRADIENT_PAIRS)


@njit
def add_node(
    tree: SearchTree,
    pos: Position,
    ev: Evaluator,
    parent: int,
    move: int,
    ply: int,
    depth: int,
    flags: int,
) -> tuple[int, float]:
    """Evaluate ``pos`` and record it; returns ``(node index or -1 if full, H(s))``."""
    h, n = evaluate_gradient(pos, ev)
    i = record_node(tree, ev.idx, ev.val, n, h, current_key(pos), parent, move, ply, depth, flags)
    return i, h
