"""The output bounds a packed network keeps in its header (what the tournament search's
lazy stand pat reads instead of evaluating the network): every position scores within
them, they are tight for one hidden layer, they follow new parameters, and they are
unknown (infinite) where no cheap bound exists."""

from __future__ import annotations

import numpy as np
import pytest
from search_helpers import random_positions

from treestrap.core.notation import parse_fen
from treestrap.core.position import current_key
from treestrap.evaluation.model import (
    evaluate,
    hybrid_material,
    network_score,
    network_score_floor,
)
from treestrap.evaluation.network import H_LOGIT_HIGH, H_LOGIT_LOW, HEADER, network_value
from treestrap.evaluation.network_weights import NetworkModel, update_network_evaluator
from treestrap.evaluation.presets import learned_model
from treestrap.learn.torch_network import random_network_parameters
from treestrap.search.context import new_context
from treestrap.search.tournament import _stand_pat
from treestrap.search.value import clip_value

FENS = random_positions(40, seed=5, min_ply=4, max_ply=60)


def _network(sizes: list[int], activation: str, seed: int, hybrid: bool = False) -> NetworkModel:
    # a large scale, so that some units saturate at both ends
    params = random_network_parameters(sizes, seed=seed, scale=30.0)
    linear = learned_model().weights if hybrid else None
    return NetworkModel(sizes, params, linear=linear, activation=activation)


@pytest.mark.parametrize("activation", ["crelu", "tanh"])
def test_every_position_scores_within_the_bounds_and_the_floor(activation: str) -> None:
    ev = _network([24, 1], activation, seed=3).evaluator()
    low, high = ev.weights[H_LOGIT_LOW], ev.weights[H_LOGIT_HIGH]
    assert np.isfinite(low) and np.isfinite(high) and low < high
    logits = []
    for fen in FENS:
        pos = parse_fen(fen)
        logit = network_value(pos, ev.weights)
        logits.append(logit)
        assert low - 1e-9 <= logit <= high + 1e-9
        assert network_score_floor(pos, ev) <= network_score(pos, ev) + 1e-9
    # the bounds are not vacuous: the positions use a good part of the range
    assert max(logits) - min(logits) > 0.05 * (high - low)


def test_the_bounds_are_the_output_layer_at_the_ends_of_the_units() -> None:
    for activation, unit_low in (("crelu", 0.0), ("tanh", -1.0)):
        model = _network([8, 1], activation, seed=4)
        w = model.weights[-9:-1]
        bias = model.weights[-1]
        buf = model.evaluator().weights
        ends = np.stack([w * unit_low, w])
        assert buf[H_LOGIT_LOW] == pytest.approx(bias + ends.min(axis=0).sum())
        assert buf[H_LOGIT_HIGH] == pytest.approx(bias + ends.max(axis=0).sum())


def test_new_parameters_bring_new_bounds() -> None:
    model = _network([8, 1], "crelu", seed=6)
    ev = model.evaluator()
    before = ev.weights[H_LOGIT_HIGH]
    params = model.weights.copy()
    params[-9:-1] = np.abs(params[-9:-1]) + 1.0  # every output weight positive
    params[-1] = 0.5
    update_network_evaluator(ev, params)
    assert ev.weights[H_LOGIT_LOW] == pytest.approx(0.5)
    assert ev.weights[H_LOGIT_HIGH] == pytest.approx(0.5 + params[-9:-1].sum())
    assert ev.weights[H_LOGIT_HIGH] != before
    assert ev.weights[HEADER : HEADER + 3].tolist() == pytest.approx(params[:3].tolist())


@pytest.mark.parametrize("sizes", [[1], [8, 6, 1]])
def test_no_cheap_bound_is_infinite(sizes: list[int]) -> None:
    buf = _network(sizes, "crelu", seed=7).evaluator().weights
    assert buf[H_LOGIT_LOW] == -np.inf and buf[H_LOGIT_HIGH] == np.inf


def test_a_lazy_stand_pat_from_the_floor_is_below_the_evaluated_estimate() -> None:
    """Where the network's floor already clears beta the lazy stand pat returns it
    without evaluating the network, and never more than the estimate with the network
    evaluated (so it is at least as safe a lower bound as before)."""
    ev = _network([16, 1], "crelu", seed=8, hybrid=True).evaluator()
    ctx = new_context()
    margin = 400.0
    from_floor = 0
    for fen in FENS:
        pos = parse_fen(fen)
        key = np.uint64(current_key(pos))
        material = hybrid_material(pos, ev)
        floor = material + network_score_floor(pos, ev) - margin
        rough = material + network_score(pos, ev) - margin
        for beta in (floor - 1.0, floor + 1.0, rough - 1.0, rough + 1.0):
            lazy = _stand_pat(pos, ev, ctx, key, margin, beta - 1.0, beta)
            if beta <= floor:
                assert lazy == floor
                from_floor += 1
            elif beta <= rough:
                assert lazy == rough
            else:  # no cut-off: the exact value
                assert lazy == clip_value(evaluate(pos, ev))
            assert floor <= rough
    assert from_floor == len(FENS)
