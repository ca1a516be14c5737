"""The compiled mini-batch steps of non-linear TreeStrap equal torch's: two trainers
from the same network, the same samples and the same random stream, one stepping with
torch and one compiled, end with the same parameters, momentum buffers and losses (to
rounding) for every shape and activation, with and without momentum, weight decay and
a hybrid's linear part; and a real search's tree trains the same either way."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from search_helpers import random_positions

from treestrap.core.notation import parse_fen
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.torch_network import (
    network_parameters_of,
    random_network_parameters,
    torch_network,
)
from treestrap.games.network_inputs import CHESS_INPUTS, CONNECT4_INPUTS, ReplayInputs
from treestrap.learn.compiled_step import compiled_steps
from treestrap.learn.replay import ReplayTrainer
from treestrap.learn.replay_hyper import ReplayHyper
from treestrap.search.minimax import MinimaxLimits, MinimaxSearch

torch.set_num_threads(1)


def _samples(layout: ReplayInputs, n: int, seed: int, hybrid: bool) -> tuple[np.ndarray, ...]:
    """Random positions' inputs (a few dozen of the inputs on), bounds on their values
    (some exact, some one-sided) and, for a hybrid, linear parts."""
    rng = np.random.default_rng(seed)
    inputs = (rng.random((n, layout.size)) < 0.05).astype(np.uint8)
    values = rng.normal(0.0, 300.0, n)
    upper = values + rng.choice([0.0, np.inf, 150.0], n)
    lower = np.where(rng.random(n) < 0.2, -np.inf, values)
    linear = rng.normal(0.0, 100.0, n) if hybrid else None
    return inputs, lower, upper, linear


def _trainer(
    sizes: list[int], activation: str, hyper: ReplayHyper, layout: ReplayInputs, compiled: bool
) -> ReplayTrainer:
    params = random_network_parameters(sizes, seed=4, scale=3.0, n_inputs=layout.size)
    model = torch_network(sizes, params, n_inputs=layout.size, activation=activation)
    written: list[np.ndarray] = []
    return ReplayTrainer(
        model,
        None,
        network_parameters_of,
        hyper,
        layout=layout,
        write=lambda _ev, p: written.append(p),
        compiled=compiled,
    )


CASES = [
    ([16, 1], "crelu", 0.9, 0.0, False, CHESS_INPUTS),
    ([16, 1], "tanh", 0.9, 0.0, True, CHESS_INPUTS),
    ([8, 6, 1], "crelu", 0.9, 0.01, True, CHESS_INPUTS),
    ([8, 6, 5, 1], "tanh", 0.0, 0.0, False, CHESS_INPUTS),
    ([1], "tanh", 0.5, 0.1, True, CHESS_INPUTS),
    ([12, 1], "tanh", 0.9, 0.0, False, CONNECT4_INPUTS),
]


@pytest.mark.parametrize(("sizes", "activation", "momentum", "decay", "hybrid", "layout"), CASES)
def test_compiled_steps_equal_torch_steps(
    sizes: list[int],
    activation: str,
    momentum: float,
    decay: float,
    hybrid: bool,
    layout: ReplayInputs,
) -> None:
    hyper = ReplayHyper(
        replay_size=500,
        batch_size=32,
        replay_steps=3,
        step_size=0.05,
        momentum=momentum,
        weight_decay=decay,
        seed=7,
    )
    slow = _trainer(sizes, activation, hyper, layout, compiled=False)
    fast = _trainer(sizes, activation, hyper, layout, compiled=True)
    assert fast.compiled and not slow.compiled
    for batch in range(4):
        samples = _samples(layout, 60, seed=batch, hybrid=hybrid)
        loss_slow = slow.learn_from_samples(*samples)
        loss_fast = fast.learn_from_samples(*samples)
        assert loss_fast == pytest.approx(loss_slow, rel=1e-9, abs=1e-12)
    a, b = slow.state(), fast.state()
    np.testing.assert_allclose(b["parameters"], a["parameters"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(b["momentum"], a["momentum"], rtol=1e-9, atol=1e-12)
    start = random_network_parameters(sizes, seed=4, scale=3.0, n_inputs=layout.size)
    moved = np.abs(network_parameters_of(fast.model) - start).max()
    assert moved > 1e-3  # the steps did something


def test_a_search_tree_trains_the_same_either_way() -> None:
    """Chess trees from a search with the network (as a run makes them), quiescence
    leaves and all: the same parameters after a few searches."""
    sizes = [16, 1]
    params = random_network_parameters(sizes, seed=2, scale=2.0)
    hyper = ReplayHyper(
        replay_size=5000, batch_size=64, tree_nodes=300, replay_steps=4, step_size=0.02, seed=3
    )
    trainers = []
    for compiled in (False, True):
        model = NetworkModel(sizes, params, activation="crelu")
        twin = torch_network(sizes, params, activation="crelu")
        trainers.append(
            ReplayTrainer(twin, model.evaluator(), network_parameters_of, hyper, compiled=compiled)
        )
    search = MinimaxSearch(capacity=100_000, limits=MinimaxLimits(max_qnodes_per_leaf=30))
    for fen in random_positions(3, seed=8, min_ply=6):
        for t in trainers:
            search.search(parse_fen(fen), t.evaluator, 2)
            t.learn_from_tree(search.tree)
    a, b = (network_parameters_of(t.model) for t in trainers)
    np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-12)
    assert np.abs(b - params).max() > 1e-4


def test_other_models_step_with_torch() -> None:
    from treestrap.supervised.models import ModelSpec, build_model

    model = build_model(ModelSpec("mlp", 769, hidden=(8,)), seed=1)
    hyper = ReplayHyper()
    trainer = ReplayTrainer(model, None, lambda m: np.zeros(1), hyper, write=lambda *_: None)
    assert not trainer.compiled
    with pytest.raises(ValueError, match="torch twin"):
        compiled_steps(model, trainer.optimizer, trainer.replay, 4, "soft-ce", 1, None)
