"""A Connect Four evaluation as the compiled searches take it: linear, or a network.

Linear: ``H(s) = theta . phi(s)`` for the side to move, phi from
:mod:`treestrap.connect4.features`. The evaluator carries the weights and scratch
buffers for one extraction, so the searches allocate nothing; :func:`evaluate_gradient`
leaves the gradient (phi itself) in them, and the search family's
:func:`~treestrap.search.node.add_node` records a position with it in a search tree.

N-tuples (:mod:`treestrap.connect4.ntuple`): a third buffer kind, told by its magic; it
has no gradient pairs (its tables learn by their own TD, not from search records).

Network: the same tuple with a network buffer as ``weights``
(:mod:`treestrap.connect4.network`; its length is never the linear ``SIZE``), so one
compiled search serves both. Its pairs are the network's active inputs, not dH/dtheta:
its learning reads the inputs back and takes gradients through torch.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from treestrap.connect4.board import Position
from treestrap.connect4.features import MAX_ACTIVE, SIZE, extract
from treestrap.connect4.network import is_network_buffer, network_value
from treestrap.connect4.ntuple import H_MAGIC as NTUPLE_H_MAGIC
from treestrap.connect4.ntuple import MAGIC as NTUPLE_MAGIC
from treestrap.connect4.ntuple import is_ntuple_buffer, ntuple_value
from treestrap.core.jit import njit
from treestrap.core.search_tree import SearchTree, new_tree


class Connect4Evaluator(NamedTuple):
    weights: np.ndarray  # float64[SIZE] or a network buffer, shared with its model
    idx: np.ndarray  # int32[MAX_ACTIVE] scratch: indices of the last extraction
    val: np.ndarray  # float64[MAX_ACTIVE] scratch: values at those indices


def make_evaluator(weights: np.ndarray) -> Connect4Evaluator:
    """An evaluator over ``weights`` (float64[SIZE], or a network buffer of
    :func:`treestrap.connect4.network.network_buffer`; a float64 array is shared, not
    copied, so a learner's in-place updates reach the searches)."""
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (SIZE,) and not (w.ndim == 1 and (is_network_buffer(w) or is_ntuple_buffer(w))):
        raise ValueError(f"Connect Four weights must have shape ({SIZE},), got {w.shape}")
    return Connect4Evaluator(
        weights=w,
        idx=np.zeros(MAX_ACTIVE, dtype=np.int32),
        val=np.zeros(MAX_ACTIVE, dtype=np.float64),
    )


@njit
def evaluate_gradient(pos: Position, ev: Connect4Evaluator) -> tuple[float, int]:
    """``(H(s), n)``: the value for the side to move, and the count of its gradient's
    pairs, left in ``ev.idx[:n]``, ``ev.val[:n]`` (a network's: its active inputs)."""
    if ev.weights.shape[0] != SIZE:
        if ev.weights[NTUPLE_H_MAGIC] == NTUPLE_MAGIC:
            return ntuple_value(pos, ev.weights, ev.idx)
        return network_value(pos, ev.weights, ev.idx, ev.val)
    n = extract(pos, ev.idx, ev.val)
    total = 0.0
    for i in range(n):
        total += ev.weights[ev.idx[i]] * ev.val[i]
    return total, n


@njit
def evaluate(pos: Position, ev: Connect4Evaluator) -> float:
    """``H(s)`` for the side to move (unclipped)."""
    return evaluate_gradient(pos, ev)[0]


#: Average feature pairs reserved per node: a mid-game position writes about 40-90 of
#: the ``MAX_ACTIVE`` (113) at most.
FEATURES_PER_NODE = 90


def new_connect4_tree(capacity: int) -> SearchTree:
    """An empty record for up to ``capacity`` Connect Four nodes."""
    return new_tree(capacity, FEATURES_PER_NODE, MAX_ACTIVE)
