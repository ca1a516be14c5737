"""The RootStrap/TreeStrap objectives (``--objective``), checked on hand-computable
values and on the hand-made tree of ``test_learn``."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_learn import ETA, MIXED_TREE, bitboard_model, change_after, dense, hand_tree, tree_step

from treestrap.learn.linear_hyper import Hyper
from treestrap.learn.targets import objective_deltas
from treestrap.learn.temporal import BETA
from treestrap.learn.treestrap import TreeStrapAlphaBeta
from treestrap.search.value import VALUE_CLIP


def test_squared_error_is_the_plain_difference() -> None:
    static = np.array([0.0, 100.0, -300.0])
    target = np.array([25.0, 9900.0, 50.0])
    assert np.array_equal(objective_deltas(static, target, "squared"), target - static)


def test_cross_entropy_by_hand() -> None:
    # p(x) = (1 + tanh(beta x)) / 2; the soft cross-entropy's gradient in value units is
    # 2 (p(T) - p(H)) / beta = (tanh(beta T) - tanh(beta H)) / beta.
    h, t = 100.0, 300.0
    expected = (math.tanh(BETA * t) - math.tanh(BETA * h)) / BETA
    got = objective_deltas(np.array([h]), np.array([t]), "cross-entropy")[0]
    assert got == pytest.approx(expected, rel=1e-12)
    # One pawn (100) squashes to 0.25 (KnightCap), so a level position against a one-pawn
    # target gives 0.25 / beta.
    assert objective_deltas(np.array([0.0]), np.array([100.0]), "cross-entropy")[0] == (
        pytest.approx(0.25 / BETA)
    )


def test_squashed_error_carries_the_squash_slope() -> None:
    h, t = 200.0, -50.0
    th = math.tanh(BETA * h)
    expected = (math.tanh(BETA * t) - th) * (1 - th * th) / BETA
    got = objective_deltas(np.array([h]), np.array([t]), "squashed")[0]
    assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("objective", ["cross-entropy", "squashed"])
def test_small_errors_match_the_squared_error(objective: str) -> None:
    # Near level values every objective is T - H to first order: one step size serves all.
    got = objective_deltas(np.array([0.0]), np.array([1e-3]), objective)[0]
    assert got == pytest.approx(1e-3, rel=1e-6)


@pytest.mark.parametrize("objective", ["cross-entropy", "squashed"])
def test_a_mate_target_pulls_no_more_than_two_over_beta(objective: str) -> None:
    # The squashed objectives bound a node's error by 2 / beta (about 7.8 pawns) however
    # far the target; the squared error of a mate target from a level position is 99 pawns.
    static = np.linspace(-VALUE_CLIP, VALUE_CLIP, 41)
    for target in (-VALUE_CLIP, VALUE_CLIP):
        deltas = objective_deltas(static, np.full_like(static, target), objective)
        assert np.all(np.abs(deltas) <= 2.0 / BETA + 1e-9)
        # towards the target (values within a few pawns of the clip saturate to 0)
        assert np.all(deltas * target >= 0.0)
        assert np.all(np.sign(deltas[np.abs(static) < 2000.0]) == np.sign(target))
    level = objective_deltas(np.array([0.0]), np.array([VALUE_CLIP]), objective)[0]
    assert level == pytest.approx(1.0 / BETA, rel=1e-6)


def test_unknown_objective_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown objective"):
        objective_deltas(np.zeros(1), np.zeros(1), "hinge")


def test_treestrap_ab_cross_entropy_on_the_hand_tree() -> None:
    # MIXED_TREE at d = 1: node 0 (H 80, upper 50), node 1 (H -20, lower 10) and node 3
    # (H 100, upper 40) violate a bound; node 2 lies inside its bounds and gives nothing.
    def ce(h: float, t: float) -> float:
        return (math.tanh(BETA * t) - math.tanh(BETA * h)) / BETA

    d0, d1, d3 = ce(80.0, 50.0), ce(-20.0, 10.0), ce(100.0, 40.0)
    expected = {0: d0 * 1.0 + d1 * -1.0, 5: d0 * 2.0 + d3 * 1.0, 7: d1 * 1.0, 2: d3 * 3.0}
    change = change_after(
        TreeStrapAlphaBeta,
        bitboard_model(3),
        Hyper(step_size=ETA, objective="cross-entropy"),
        lambda a: a.observe(tree_step(hand_tree(MIXED_TREE))),
    )
    assert np.allclose(change, dense(769, {i: ETA * v for i, v in expected.items()}))
