"""TreeStrap(alpha-beta) with quiescence node values for networks (issue 26): the table
walk records every node through its principal quiescence leaf, the replay samples carry
the leaf's inputs with the node's bounds in the leaf's frame, and the gradient that
moves a sample is the gradient of the node's quiescence value Q(s), checked against a
finite difference of Q(s) computed by the compiled quiescence search."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from search_helpers import node_position, quiescence_walk, random_positions

from treestrap.evaluation.feature_sets.bitboard import SIDE_TO_MOVE
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.outcome import CENTIPAWNS_PER_LOGIT
from treestrap.evaluation.torch_network import random_network_parameters, torch_network
from treestrap.learn.replay import leaf_sign, tree_inputs, tree_samples
from treestrap.search.context import new_context
from treestrap.search.quiescence import quiescence
from treestrap.search.tree import TERMINAL, tree_size
from treestrap.search.value import clip_value

torch.set_num_threads(1)

SIZES = [16, 1]
FENS = random_positions(8, seed=5, min_ply=8, max_ply=40)


def _model(scale: float = 8.0) -> NetworkModel:
    # Several times PyTorch's default scale: values of a few hundred centipawns, so
    # that quiescence searches capture and leaves sit below their nodes.
    return NetworkModel(SIZES, random_network_parameters(SIZES, seed=3, scale=scale))


def _leaf_scores(model: NetworkModel, rows: np.ndarray) -> np.ndarray:
    """Side-to-move scores of ``bitboard`` rows by the torch copy of ``model``."""
    net = torch_network(model.sizes, model.weights)
    with torch.no_grad():
        s = net(torch.from_numpy(rows.astype(np.float64)))
    white = CENTIPAWNS_PER_LOGIT * (s[:, 0] - s[:, 2]).numpy()
    return np.where(rows[:, SIDE_TO_MOVE] == 1, white, -white)


@pytest.mark.parametrize("fen", FENS[:4])
def test_every_node_carries_its_quiescence_value_through_its_leaf(fen: str) -> None:
    model = _model()
    tree = quiescence_walk(model, fen)
    n = tree_size(tree)
    nodes = np.array([i for i in range(n) if not tree.flags[i] & TERMINAL])
    rows = tree_inputs(tree, nodes)
    signed = leaf_sign(tree, nodes) * _leaf_scores(model, rows)
    ctx = new_context()
    ev = model.evaluator()
    for node, value in zip(nodes, signed, strict=True):
        q = quiescence(node_position(fen, tree, int(node)), ev, ctx)
        assert clip_value(value) == pytest.approx(q, abs=1e-6)
    assert (leaf_sign(tree, nodes) < 0).any()  # some leaves are the other side's


def test_samples_put_the_node_bounds_in_the_leaf_frame() -> None:
    model = _model()
    fen = FENS[0]
    tree = quiescence_walk(model, fen)
    rows, lower, upper = tree_samples(tree, 10_000, leaves=True)
    n = tree_size(tree)
    nodes = np.argsort(tree.ply[:n], kind="stable")
    nodes = nodes[(tree.flags[nodes] & TERMINAL) == 0]
    nodes = nodes[np.isfinite(tree.lower[nodes]) | np.isfinite(tree.upper[nodes])]
    sign = leaf_sign(tree, nodes)
    assert len(rows) == len(nodes) and (lower <= upper).all()
    leaf = _leaf_scores(model, rows)
    # The leaf's value is outside its bounds exactly when Q(s) is outside the node's.
    q = sign * leaf
    outside_node = (q < tree.lower[nodes]) | (q > tree.upper[nodes])
    outside_leaf = (leaf < lower) | (leaf > upper)
    assert (outside_node == outside_leaf).all() and outside_node.any()


def _flat_gradient(model: NetworkModel, row: np.ndarray) -> np.ndarray:
    """d(side-to-move score of ``row``)/d(flat parameters), by torch."""
    net = torch_network(model.sizes, model.weights)
    s = net(torch.from_numpy(row[None, :].astype(np.float64)))
    z = s[0, 0] - s[0, 2]
    z.backward()
    parts = []
    for k, linear in enumerate(net.net.linears()):
        g = linear.weight.grad.numpy()
        parts.append((g.T if k == 0 else g).reshape(-1))
        parts.append(linear.bias.grad.numpy().copy())
    stm = 1.0 if row[SIDE_TO_MOVE] == 1 else -1.0
    return stm * CENTIPAWNS_PER_LOGIT * np.concatenate(parts)


def test_the_leaf_gradient_is_the_gradient_of_the_quiescence_value() -> None:
    """dQ(s)/dtheta = (-1)^k dH(l(s))/dtheta, against central differences of Q(s) as
    the compiled quiescence search computes it, for nodes whose leaf is below them."""
    model = _model()
    rng = np.random.default_rng(0)
    eps = 1e-6
    checked = 0
    for fen in FENS:
        tree = quiescence_walk(model, fen)
        n = tree_size(tree)
        nodes = np.array([i for i in range(n) if not tree.flags[i] & TERMINAL])
        signs = leaf_sign(tree, nodes)
        for node, sign in zip(nodes[signs < 0][:2], signs[signs < 0][:2], strict=False):
            row = tree_inputs(tree, np.array([node]))[0]
            grad = sign * _flat_gradient(model, row)
            pos = node_position(fen, tree, int(node))
            # Parameters that move this leaf: its pieces' first-layer columns and the
            # deeper layers.
            active = np.flatnonzero(grad)
            for j in rng.choice(active, size=6, replace=False):
                values = []
                for step in (eps, -eps):
                    params = model.weights.copy()
                    params[j] += step
                    ev = NetworkModel(model.sizes, params).evaluator()
                    values.append(quiescence(pos, ev, new_context()))
                fd = (values[0] - values[1]) / (2 * eps)
                assert fd == pytest.approx(grad[j], rel=1e-4, abs=1e-6)
            checked += 1
        if checked >= 4:
            break
    assert checked >= 4
