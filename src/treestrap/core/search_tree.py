"""A search tree read back for learning: one record per node, in preallocated arrays.

Game-neutral (it imports nothing of chess), so every game's searches fill the same
record and the learning rules see one format. Both a full-tree minimax (every node,
exact values) and a walk over a training search's transposition table (nodes of
depth >= d, bounds) fill it: for node ``i``

* ``static[i]``: the model's value H(s) for the side to move (unclipped), and its
  gradient with respect to the weights as sparse pairs
  ``feat_idx[feat_start[i]:feat_start[i + 1]]``, ``feat_val[...]`` (for a linear model
  this is ``sign * phi(s)``);
* ``lower[i] <= V(s) <= upper[i]``: bounds on the search value (equal when exact,
  ``-inf``/``+inf`` when unknown), node-relative (win distances from the node);
* ``parent``, ``move`` (from the parent), ``ply``, ``depth`` (remaining depth, 0 in
  quiescence), ``flags`` (``QUIESCENCE``, ``TERMINAL``, ``BUDGET_LEAF``, ``NOISY``), ``key``.

A node that does not fit (``capacity`` or the feature pool) is not recorded, and
``meta[OVERFLOW]`` is set. Each game writes its own ``add_node`` (it evaluates that
game's position); :func:`record_node` is the part they share.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from treestrap.core.jit import njit

QUIESCENCE = 1
TERMINAL = 2
BUDGET_LEAF = 4
#: not quiet (chess's search/quiet.py): in check, or a capture or promotion that wins at once
NOISY = 8

# Slots of ``meta``.
COUNT = 0
FEATURES_USED = 1
OVERFLOW = 2

#: Average feature pairs reserved per node (meep writes about 100-250, bitboard <= 33).
FEATURES_PER_NODE = 160


class SearchTree(NamedTuple):
    parent: np.ndarray  # int32[capacity]
    move: np.ndarray  # int32[capacity]
    ply: np.ndarray  # int32[capacity]
    depth: np.ndarray  # int32[capacity]
    flags: np.ndarray  # int8[capacity]
    key: np.ndarray  # uint64[capacity]
    static: np.ndarray  # float64[capacity]
    lower: np.ndarray  # float64[capacity]
    upper: np.ndarray  # float64[capacity]
    feat_start: np.ndarray  # int64[capacity + 1]
    feat_idx: np.ndarray  # int32[pool]
    feat_val: np.ndarray  # float64[pool]
    meta: np.ndarray  # int64[4]


def new_tree(
    capacity: int, features_per_node: int = FEATURES_PER_NODE, spare_pairs: int = 0
) -> SearchTree:
    """An empty record for up to ``capacity`` nodes; the feature pool holds
    ``features_per_node`` pairs a node on average plus ``spare_pairs`` (a game passes
    its largest extraction, so the last node always fits)."""
    if capacity < 1:
        raise ValueError(f"tree capacity must be positive, got {capacity}")
    pool = capacity * features_per_node + spare_pairs
    return SearchTree(
        parent=np.zeros(capacity, dtype=np.int32),
        move=np.zeros(capacity, dtype=np.int32),
        ply=np.zeros(capacity, dtype=np.int32),
        depth=np.zeros(capacity, dtype=np.int32),
        flags=np.zeros(capacity, dtype=np.int8),
        key=np.zeros(capacity, dtype=np.uint64),
        static=np.zeros(capacity, dtype=np.float64),
        lower=np.zeros(capacity, dtype=np.float64),
        upper=np.zeros(capacity, dtype=np.float64),
        feat_start=np.zeros(capacity + 1, dtype=np.int64),
        feat_idx=np.zeros(pool, dtype=np.int32),
        feat_val=np.zeros(pool, dtype=np.float64),
        meta=np.zeros(4, dtype=np.int64),
    )


@njit
def reset_tree(tree: SearchTree) -> None:
    tree.meta[:] = 0
    tree.feat_start[0] = 0


@njit
def record_node(
    tree: SearchTree,
    idx: np.ndarray,
    val: np.ndarray,
    n: int,
    h: float,
    key: np.uint64,
    parent: int,
    move: int,
    ply: int,
    depth: int,
    flags: int,
) -> int:
    """Record a node of value ``h`` whose gradient is the ``n`` pairs in ``idx``/``val``;
    returns its index, or -1 (and ``meta[OVERFLOW]`` set) when it does not fit."""
    i = tree.meta[COUNT]
    start = tree.meta[FEATURES_USED]
    if i >= tree.parent.shape[0] or start + n > tree.feat_idx.shape[0]:
        tree.meta[OVERFLOW] = 1
        return -1
    for j in range(n):
        tree.feat_idx[start + j] = idx[j]
        tree.feat_val[start + j] = val[j]
    tree.feat_start[i + 1] = start + n
    tree.meta[FEATURES_USED] = start + n
    tree.meta[COUNT] = i + 1
    tree.parent[i] = parent
    tree.move[i] = move
    tree.ply[i] = ply
    tree.depth[i] = depth
    tree.flags[i] = flags
    tree.key[i] = key
    tree.static[i] = h
    tree.lower[i] = -np.inf
    tree.upper[i] = np.inf
    return i


def tree_size(tree: SearchTree) -> int:
    return int(tree.meta[COUNT])


def node_gradient(tree: SearchTree, i: int) -> tuple[np.ndarray, np.ndarray]:
    """(indices, values) of node ``i``'s gradient dH/dtheta."""
    a, b = int(tree.feat_start[i]), int(tree.feat_start[i + 1])
    return tree.feat_idx[a:b], tree.feat_val[a:b]
