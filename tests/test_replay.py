"""Non-linear TreeStrap's pieces (Serban 2014, Algorithm 7 and Table 4.1): each
objective's gradient against finite differences, colour flipping of inputs and values,
the replay set filled from minimax trees, and mini-batch steps that lower the loss on
held-out tree positions."""

from __future__ import annotations

import chess
import numpy as np
import pytest
import torch
from search_helpers import random_positions

from treestrap.core.notation import parse_fen
from treestrap.core.position import ST_SIDE
from treestrap.evaluation.features import dense_features, get_feature_set
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.outcome import CENTIPAWNS_PER_LOGIT
from treestrap.evaluation.presets import hand_set_bitboard
from treestrap.learn.objectives_network import (
    OBJECTIVES,
    objective_gradient,
    objective_loss,
)
from treestrap.learn.replay import ReplaySet, add_tree, flip_inputs, minibatch_step
from treestrap.search.minimax import MinimaxLimits, MinimaxSearch
from treestrap.search.training import TrainingSearch
from treestrap.supervised.inputs import flip_bitboard
from treestrap.supervised.models import ModelSpec, build_model

torch.set_num_threads(1)
BITBOARD = get_feature_set("bitboard")


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_objective_gradients_match_finite_differences(objective: str) -> None:
    z = np.array([-8.0, -2.5, -0.3, 0.0, 0.7, 3.0, 9.0])
    for v in (0.0, 1e-9, 0.1, 0.5, 0.73, 0.999, 1.0):
        vs = np.full_like(z, v)
        h = 1e-6
        numeric = (objective_loss(objective, z + h, vs) - objective_loss(objective, z - h, vs)) / (
            2 * h
        )
        analytic = objective_gradient(objective, z, vs)
        np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-7, err_msg=str(v))


def test_objectives_by_hand() -> None:
    z, v = np.array([0.0]), np.array([0.8])
    assert objective_loss("soft-ce", z, v)[0] == pytest.approx(np.log(2.0))
    assert objective_loss("hard-ce", z, v)[0] == pytest.approx(np.log(2.0))
    assert objective_gradient("hard-ce", z, v)[0] == pytest.approx(-0.5)
    assert objective_loss("squared", z, v)[0] == pytest.approx(np.log(4.0) ** 2)
    # The divergence is zero exactly where the prediction is the target.
    assert objective_loss("reverse-kl", np.array([np.log(4.0)]), v)[0] == pytest.approx(0.0)
    with pytest.raises(ValueError, match="unknown objective"):
        objective_loss("hinge", z, v)


def test_flipping_maps_inputs_as_documented_and_matches_python_chess() -> None:
    for fen in random_positions(20, seed=5):
        board = chess.Board(fen)
        x = dense_features(parse_fen(fen), BITBOARD)[None]
        mirrored = dense_features(parse_fen(board.mirror().fen()), BITBOARD)[None]
        assert np.array_equal(flip_inputs(x), mirrored)
        assert np.array_equal(flip_inputs(x), flip_bitboard(x.astype(np.float32)))
        assert np.array_equal(flip_inputs(flip_inputs(x)), x)


def _material_network() -> NetworkModel:
    """Logistic regression scoring the hand-set material: colour symmetric."""
    return NetworkModel([1], np.concatenate([hand_set_bitboard() / CENTIPAWNS_PER_LOGIT, [0.0]]))


def test_flipped_copies_carry_the_value_of_the_mirrored_position() -> None:
    ev = _material_network().evaluator()
    search = TrainingSearch()
    for fen in random_positions(6, seed=8, min_ply=6):
        board = chess.Board(fen)
        v = search.search(parse_fen(fen), ev, 2).value
        v_mirror = search.search(parse_fen(board.mirror().fen()), ev, 2).value
        assert v_mirror == v  # the mover stands the same in the mirrored position
        replay = ReplaySet(4)
        replay.add(dense_features(parse_fen(fen), BITBOARD)[None], np.array([v]))
        direct = ReplaySet(4)
        direct.add(dense_features(parse_fen(board.mirror().fen()), BITBOARD)[None], [v_mirror])
        # entry 1 is the flipped copy of the original: the mirrored position's entry
        assert np.array_equal(replay.inputs[1], direct.inputs[0])
        assert replay.targets[1] == pytest.approx(direct.targets[0])
        assert replay.targets[0] + replay.targets[1] == pytest.approx(1.0)
        white = parse_fen(fen).st[ST_SIDE] == 0
        assert (replay.targets[0] > 0.5) == ((v > 0) == white) or v == 0


def test_replay_set_from_a_minimax_tree_and_its_ring() -> None:
    ev = _material_network().evaluator()
    mm = MinimaxSearch(capacity=50_000, limits=MinimaxLimits(max_qnodes_per_leaf=50))
    fen = random_positions(1, seed=2, min_ply=8)[0]
    mm.search(parse_fen(fen), ev, 2)
    replay = ReplaySet(60)
    added = add_tree(replay, mm.tree, 25)
    assert added == 25 and replay.size == 50 and replay.next == 50
    # The root comes first, with its exact minimax value as target.
    assert np.array_equal(replay.inputs[0], dense_features(parse_fen(fen), BITBOARD))
    add_tree(replay, mm.tree, 25)  # wraps: the oldest entries are overwritten
    assert replay.size == 60 and replay.next == 40
    x, v = replay.sample(16, np.random.default_rng(0))
    assert x.shape == (16, 769) and x.dtype == np.float32 and np.all((v >= 0) & (v <= 1))


def _replay_from(fens: list[str], capacity: int) -> ReplaySet:
    """Depth-1 minimax trees of a material evaluator, ten nodes of each (and flips)."""
    ev = _material_network().evaluator()
    mm = MinimaxSearch(capacity=50_000, limits=MinimaxLimits(max_qnodes_per_leaf=30))
    replay = ReplaySet(capacity)
    for fen in fens:
        mm.search(parse_fen(fen), ev, 1)
        add_tree(replay, mm.tree, 10)
    return replay


def _loss(model: torch.nn.Module, replay: ReplaySet, objective: str) -> float:
    with torch.no_grad():
        s = model(torch.from_numpy(replay.inputs[: replay.size].astype(np.float32)))
    z = (s[:, 0] - s[:, 2]).double().numpy()
    return float(objective_loss(objective, z, replay.targets[: replay.size]).mean())


@pytest.mark.parametrize("objective", ["soft-ce", "squared"])
def test_minibatch_steps_lower_the_loss_on_held_out_tree_positions(objective: str) -> None:
    """An MLP from the supervised start (zero top layer) fitted by Algorithm 7's steps
    to the values of material searches: the loss falls on the replay set and, less,
    on tree positions of other games (bitboard inputs generalise slowly)."""
    fens = random_positions(200, seed=31, min_ply=10, max_ply=60)
    train, held = _replay_from(fens[:160], 5000), _replay_from(fens[160:], 5000)
    assert train.size == 3200
    model = build_model(ModelSpec("mlp", 769, hidden=(8,)), seed=0)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, nesterov=True)
    before_train, before_held = _loss(model, train, objective), _loss(model, held, objective)
    rng = np.random.default_rng(0)
    for _ in range(300):
        minibatch_step(model, optimizer, train, 32, objective, rng)
    assert _loss(model, train, objective) < 0.8 * before_train
    assert _loss(model, held, objective) < 0.97 * before_held


def test_a_tiny_self_play_run_keeps_the_compiled_network_equal_to_torch() -> None:
    """Algorithm 7 end to end on a few moves: search with the compiled network, learn
    from the tree, play on. After every step the searches' evaluator gives the torch
    model's scores (the parameters moved by code, stale accumulators forgotten)."""
    from treestrap.core.makemove import make_move
    from treestrap.evaluation.model import evaluate
    from treestrap.learn.replay import ReplayHyper, ReplayTrainer
    from treestrap.supervised.convert import network_parameters

    model = build_model(ModelSpec("mlp", 769, hidden=(8,)), seed=0)
    gen = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for p in model.net.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * 0.2)
    ev = NetworkModel(*network_parameters(model, "bitboard")).evaluator()
    hyper = ReplayHyper(capacity=4000, batch=32, nodes=200, steps=5, lr=0.05)
    trainer = ReplayTrainer(model, ev, lambda m: network_parameters(m, "bitboard")[1], hyper)
    mm = MinimaxSearch(capacity=100_000, limits=MinimaxLimits(max_qnodes_per_leaf=30))
    pos = parse_fen(chess.STARTING_FEN)
    probe = [parse_fen(f) for f in random_positions(5, seed=9)]
    before = [evaluate(p, ev) for p in probe]
    for _ in range(6):
        result = mm.search(pos, ev, 2)
        assert not result.stopped
        loss = trainer.learn_from_tree(mm.tree)
        assert np.isfinite(loss)
        for p in [*probe, pos]:
            x = torch.from_numpy(dense_features(p, BITBOARD).astype(np.float32))[None]
            with torch.no_grad():
                z = model(x)[0].double().numpy()
            white = CENTIPAWNS_PER_LOGIT * (z[0] - z[2])
            ref = white if p.st[ST_SIDE] == 0 else -white
            size = CENTIPAWNS_PER_LOGIT * (abs(z[0]) + abs(z[2])) + 1.0
            assert abs(evaluate(p, ev) - ref) <= 1e-5 * size
        make_move(pos, result.best_move)
    assert trainer.replay.size == 6 * 2 * 200
    assert [evaluate(p, ev) for p in probe] != before  # the network did learn
