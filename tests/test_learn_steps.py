"""Step options of the update rules: the node-normalised TreeStrap step and the
adaptive optimizers, each checked on hand-computable updates."""

from __future__ import annotations

import numpy as np
import pytest
from test_learn import ETA, MIXED_TREE, bitboard_model, change_after, dense, hand_tree, tree_step

from treestrap.learn.linear_hyper import Hyper
from treestrap.learn.optimizer import AdaGrad, Adam, decay_factor, make_optimizer
from treestrap.learn.targets import bounded_deltas
from treestrap.learn.treestrap import TreeStrapAlphaBeta


def test_normalised_step_divides_by_the_nodes_taking_part() -> None:
    # At d = 1 four nodes of MIXED_TREE take part (the quiescence and terminal nodes do
    # not); their summed change is {0: -60, 5: -120, 7: 30, 2: -180} (test_learn).
    tree = hand_tree(MIXED_TREE)
    change = change_after(
        TreeStrapAlphaBeta,
        bitboard_model(3),
        Hyper(step_size=ETA, normalise_step=True),
        lambda a: a.observe(tree_step(tree)),
    )
    expected = {0: -60.0 / 4, 5: -120.0 / 4, 7: 30.0 / 4, 2: -180.0 / 4}
    assert np.array_equal(change, dense(769, {i: ETA * v for i, v in expected.items()}))


def test_normalised_step_counts_quiescence_nodes_when_they_take_part() -> None:
    # d = 0 adds the quiescence node (delta +20 on index 3): five nodes in the mean.
    tree = hand_tree(MIXED_TREE)
    change = change_after(
        TreeStrapAlphaBeta,
        bitboard_model(3),
        Hyper(step_size=ETA, normalise_step=True, min_depth=0),
        lambda a: a.observe(tree_step(tree)),
    )
    expected = {0: -60.0, 5: -120.0, 7: 30.0, 2: -180.0, 3: 20.0}
    assert np.allclose(change, dense(769, {i: ETA * v / 5 for i, v in expected.items()}))


def test_adam_first_step_moves_each_touched_weight_by_the_step() -> None:
    # At t = 1 the bias-corrected moments are g and g^2: the change is step * sign(g).
    weights = np.zeros(6)
    opt = Adam(6, step_size=0.5)
    opt.apply(weights, 0.5 * np.array([3.0, -0.001, 0.0, 200.0, 0.0, -7.0]))
    assert np.allclose(weights, [0.5, -0.5, 0.0, 0.5, 0.0, -0.5], atol=1e-6)


def test_adam_second_step_by_hand() -> None:
    step = 0.25
    weights = np.zeros(1)
    opt = Adam(1, step_size=step)
    g1, g2 = 2.0, -1.0
    opt.apply(weights, np.array([step * g1]))
    opt.apply(weights, np.array([step * g2]))
    m = 0.9 * 0.1 * g1 + 0.1 * g2
    v = 0.999 * 0.001 * g1**2 + 0.001 * g2**2
    m_hat, v_hat = m / (1 - 0.9**2), v / (1 - 0.999**2)
    assert weights[0] == pytest.approx(step + step * m_hat / np.sqrt(v_hat))


def test_adagrad_steps_shrink_with_accumulated_evidence() -> None:
    step = 1.0
    weights = np.zeros(3)
    opt = AdaGrad(3, step_size=step)
    opt.apply(weights, np.array([3.0, 0.0, -4.0]))
    assert np.allclose(weights, [1.0, 0.0, -1.0])
    opt.apply(weights, np.array([4.0, 0.0, 3.0]))
    # second change: g2 / sqrt(g1^2 + g2^2) = 4/5 and 3/5
    assert np.allclose(weights, [1.0 + 0.8, 0.0, -1.0 + 0.6])


def test_frozen_weights_stay_put_under_adam() -> None:
    model = bitboard_model(3)
    tree = hand_tree(MIXED_TREE)
    change = change_after(
        TreeStrapAlphaBeta,
        model,
        Hyper(step_size=1.0, optimizer="adam", frozen=(5,)),
        lambda a: a.observe(tree_step(tree)),
    )
    assert change[5] == 0.0
    assert np.allclose(change[[0, 2]], [-1.0, -1.0], atol=1e-6)  # both descend
    assert change[7] == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("name", ["sgd", "adagrad", "adam"])
def test_optimizer_state_round_trip_continues_identically(name: str) -> None:
    rng = np.random.default_rng(0)
    grads = [rng.normal(size=5) for _ in range(6)]
    straight_w, straight = np.zeros(5), make_optimizer(name, 5, 0.1)
    for g in grads:
        straight.apply(straight_w, g)
    w, first = np.zeros(5), make_optimizer(name, 5, 0.1)
    for g in grads[:3]:
        first.apply(w, g)
    saved = {k: v.copy() for k, v in first.state().items()}
    second = make_optimizer(name, 5, 0.1)
    second.load_state(saved)
    for g in grads[3:]:
        second.apply(w, g)
    assert np.array_equal(w, straight_w)


def test_unknown_optimizer_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="unknown optimizer 'rmsprop'"):
        make_optimizer("rmsprop", 3, 1.0)


def test_decay_factor_by_hand() -> None:
    assert decay_factor(1, 200.0) == 1.0
    assert decay_factor(201, 200.0) == 0.5
    assert decay_factor(601, 200.0) == 0.25
    assert decay_factor(1000, 0.0) == 1.0  # no decay


@pytest.mark.parametrize("optimizer", ["sgd", "adagrad", "adam"])
def test_step_decay_halves_the_change_after_tau_games(optimizer: str) -> None:
    # The same update applied in game 1 and in game tau + 1 of a fresh rule: the second
    # moves every weight by half as much, whatever the optimizer.
    def change_in_game(number: int) -> np.ndarray:
        return change_after(
            TreeStrapAlphaBeta,
            bitboard_model(3),
            Hyper(step_size=ETA, optimizer=optimizer, step_decay=50.0),
            lambda a: (a.start_game(number), a.observe(tree_step(hand_tree(MIXED_TREE)))),
        )

    first, later = change_in_game(1), change_in_game(51)
    assert np.any(first != 0.0)
    assert np.allclose(later, 0.5 * first)


def test_target_clip_by_hand() -> None:
    # Bounds and values are compared as the clip maps them; the error is raw.
    static = np.array([1500.0, 500.0, 1500.0, 10500.0, -1200.0, 300.0])
    lower = np.array([9999.0, 9999.0, -np.inf, -np.inf, -np.inf, 100.0])
    upper = np.array([np.inf, np.inf, 200.0, np.inf, -9999.0, 200.0])
    clipped = bounded_deltas(static, lower, upper, clip=1000.0)
    # 1500 with a mate below: already past the clip, no pull. 500: pulled to 1000.
    # 1500 above a real upper bound of 200: down to it. 10500, unbounded above: no
    # false bound at the clip. -1200 with a mate against: past -1000, no pull.
    assert clipped.tolist() == [0.0, 500.0, -1300.0, 0.0, 0.0, -100.0]
    paper = bounded_deltas(static, lower, upper)  # the paper's clip, 9900
    assert paper.tolist() == [8400.0, 9400.0, -1300.0, 0.0, -8700.0, -100.0]


def test_target_clip_reaches_the_treestrap_update() -> None:
    tree = hand_tree(MIXED_TREE)
    wide = change_after(
        TreeStrapAlphaBeta,
        bitboard_model(3),
        Hyper(step_size=ETA),
        lambda a: a.observe(tree_step(tree)),
    )
    narrow = change_after(
        TreeStrapAlphaBeta,
        bitboard_model(3),
        Hyper(step_size=ETA, target_clip=1.0),
        lambda a: a.observe(tree_step(tree)),
    )
    # MIXED_TREE's errors are tens of points: a clip of 1 changes the update.
    assert np.abs(wide).sum() > 0 and not np.array_equal(wide, narrow)
