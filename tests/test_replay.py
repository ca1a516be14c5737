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
from treestrap.evaluation.colour_flip import flip_bitboard
from treestrap.evaluation.feature_sets import get_feature_set
from treestrap.evaluation.feature_sets.feature_set import dense_features
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.outcome import CENTIPAWNS_PER_LOGIT
from treestrap.evaluation.presets import hand_set_bitboard
from treestrap.evaluation.torch_network import random_network_parameters
from treestrap.learn.objectives_network import (
    OBJECTIVES,
    bounded_gradient,
    bounded_loss,
    objective_gradient,
    objective_loss,
)
from treestrap.learn.replay import ReplaySet, add_tree, minibatch_step
from treestrap.search.minimax import MinimaxLimits, MinimaxSearch
from treestrap.search.training import TrainingSearch
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
        assert np.array_equal(flip_bitboard(x), mirrored)
        assert np.array_equal(flip_bitboard(x), flip_bitboard(x.astype(np.float32)))
        assert np.array_equal(flip_bitboard(flip_bitboard(x)), x)


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
    x, v, upper = replay.sample(16, np.random.default_rng(0))
    assert x.shape == (16, 769) and x.dtype == np.float32 and np.all((v >= 0) & (v <= 1))
    assert np.array_equal(v, upper)  # minimax values: exact bounds


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
    from treestrap.learn.replay import ReplayTrainer
    from treestrap.learn.replay_hyper import ReplayHyper
    from treestrap.supervised.convert import network_parameters

    model = build_model(ModelSpec("mlp", 769, hidden=(8,)), seed=0)
    gen = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for p in model.net.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * 0.2)
    ev = NetworkModel(*network_parameters(model, "bitboard")).evaluator()
    hyper = ReplayHyper(
        replay_size=4000, batch_size=32, tree_nodes=200, replay_steps=5, step_size=0.05
    )
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


# TreeStrap(alpha-beta) for networks: the one-sided loss over table bounds.

#: Outputs and bounds (on V = sigmoid(z)) where H lies below, inside and above them.
Z = np.array([-6.0, -2.0, -0.5, 0.0, 0.4, 1.5, 3.0, 7.0])


def _sig(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


@pytest.mark.parametrize("objective", OBJECTIVES)
@pytest.mark.parametrize(("lo", "hi"), [(0.3, 0.7), (0.0, 0.45), (0.6, 1.0), (0.02, 0.98)])
def test_one_sided_gradient_is_zero_inside_and_the_objectives_outside(
    objective: str, lo: float, hi: float
) -> None:
    lower, upper = np.full_like(Z, lo), np.full_like(Z, hi)
    h = _sig(Z)
    inside = (h >= lo) & (h <= hi)
    below, above = h < lo, h > hi
    assert inside.any() and (below | above).any()  # both cases are exercised
    loss = bounded_loss(objective, Z, lower, upper)
    grad = bounded_gradient(objective, Z, lower, upper)
    assert np.all(loss[inside] == 0.0) and np.all(grad[inside] == 0.0)
    # Outside: the objective towards the violated bound, loss and gradient.
    np.testing.assert_array_equal(loss[below], objective_loss(objective, Z, lower)[below])
    np.testing.assert_array_equal(grad[below], objective_gradient(objective, Z, lower)[below])
    np.testing.assert_array_equal(loss[above], objective_loss(objective, Z, upper)[above])
    np.testing.assert_array_equal(grad[above], objective_gradient(objective, Z, upper)[above])
    # And the gradient is the one-sided loss's own (no z here lies within eps of a bound).
    eps = 1e-6
    numeric = (
        bounded_loss(objective, Z + eps, lower, upper)
        - bounded_loss(objective, Z - eps, lower, upper)
    ) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-7)
    # Moving towards the bound never raises the loss (the objective pulls that way).
    if objective != "hard-ce":
        assert np.all(grad[below] <= 0.0) and np.all(grad[above] >= 0.0)


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_exact_bounds_give_the_minimax_loss(objective: str) -> None:
    for v in (0.0, 1e-9, 0.2, 0.5, 0.83, 1.0):
        vs = np.full(Z.size + 1, v)
        # Every z, the one whose H is the target included: an exact sample always pulls.
        z = np.append(Z, np.log(v / (1 - v)) if 0 < v < 1 else 0.0)
        np.testing.assert_array_equal(
            bounded_loss(objective, z, vs, vs), objective_loss(objective, z, vs)
        )
        np.testing.assert_array_equal(
            bounded_gradient(objective, z, vs, vs), objective_gradient(objective, z, vs)
        )


def test_bounds_map_through_the_side_to_move_and_the_flip() -> None:
    """A side-to-move lower bound bounds V from below when white is to move and from
    above when black is; unknown bounds become 0 and 1; the flipped copy holds
    ``[1 - upper, 1 - lower]``."""
    white = dense_features(parse_fen(chess.STARTING_FEN), BITBOARD)[None]
    black = dense_features(
        parse_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"), BITBOARD
    )[None]
    replay = ReplaySet(8)
    replay.add(np.vstack([white, black]), np.array([-400.0, -400.0]), np.array([400.0, np.inf]))
    p = 10.0 / 11.0  # 400 centipawns for the mover: odds of 10 to 1
    # Rows: white original, black original, then their flips.
    # Black to move, at least -400 for black: white's V is at most 10/11.
    np.testing.assert_allclose(replay.lower[:4], [1 - p, 0.0, 1 - p, 1 - p], rtol=1e-12)
    np.testing.assert_allclose(replay.upper[:4], [p, p, p, 1.0], rtol=1e-12)
    assert np.array_equal(replay.inputs[2], flip_bitboard(white)[0])
    assert np.all(replay.lower[:4] <= replay.upper[:4])


def _walk_tree(ev, fen: str, depth: int = 3):  # type: ignore[no-untyped-def]
    from treestrap.search.tree import new_tree
    from treestrap.search.tt_walk import walk_tt

    search = TrainingSearch(tt_bits=14)
    search.search(parse_fen(fen), ev, depth)
    tree = new_tree(20_000, features_per_node=40)
    walk_tt(parse_fen(fen), ev, search.tt, tree, search.ctx, 1)
    return search, tree


def test_table_walk_samples_carry_their_entries_bounds_and_inputs() -> None:
    from treestrap.learn.replay import tree_samples
    from treestrap.search.tree import tree_size

    ev = NetworkModel([8, 1], random_network_parameters([8, 1], seed=2, scale=3.0)).evaluator()
    fen = random_positions(1, seed=4, min_ply=8)[0]
    search, tree = _walk_tree(ev, fen)
    n = tree_size(tree)
    inputs, lower, upper = tree_samples(tree, 10_000)
    assert len(lower) == n > 10 and np.all(lower <= upper)
    assert lower[0] == upper[0] == search.search(parse_fen(fen), ev, 3).value  # the root
    assert np.any(lower < upper)  # cut nodes: one-sided
    assert np.any(np.isinf(lower) | np.isinf(upper))
    assert np.array_equal(inputs[0], dense_features(parse_fen(fen), BITBOARD))
    replay = ReplaySet(10_000)
    assert add_tree(replay, tree, 30) == 30 and replay.size == 60


def test_replay_state_restores_the_ring_and_the_momentum_exactly() -> None:
    """A trainer restored from another's state (parameters, replay ring wrapped,
    momentum built up) takes the same next steps to the same parameters, bit for bit;
    one given the parameters alone does not."""
    from treestrap.evaluation.torch_network import network_parameters_of, torch_network
    from treestrap.learn.replay import ReplayTrainer
    from treestrap.learn.replay_hyper import ReplayHyper

    sizes = [6, 1]
    params = random_network_parameters(sizes, seed=5, scale=2.0)
    hyper = ReplayHyper(
        replay_size=70, batch_size=16, tree_nodes=25, replay_steps=3, step_size=0.05, momentum=0.9
    )

    def trainer() -> ReplayTrainer:
        model = NetworkModel(sizes, params)
        return ReplayTrainer(
            torch_network(sizes, params), model.evaluator(), network_parameters_of, hyper
        )

    ev = NetworkModel(sizes, params).evaluator()
    trees = [_walk_tree(ev, fen)[1] for fen in random_positions(4, seed=6, min_ply=6)]
    a = trainer()
    for tree in trees[:2]:
        a.learn_from_tree(tree)
    assert a.replay.size == 70 and a.replay.next != 0  # wrapped
    saved = {k: v.copy() for k, v in a.state().items()}
    assert saved["momentum"].size == params.size and saved["replay_inputs"].shape == (70, 97)
    b, fresh = trainer(), trainer()
    fresh.model.load_state_dict(a.model.state_dict())  # the parameters alone
    b.load_state(saved)  # the parameters too
    assert np.array_equal(network_parameters_of(b.model), network_parameters_of(a.model))
    for name in ("inputs", "lower", "upper"):
        assert np.array_equal(getattr(b.replay, name), getattr(a.replay, name))
    assert (b.replay.size, b.replay.next) == (a.replay.size, a.replay.next)
    for t in (a, b, fresh):
        t.rng = np.random.default_rng(11)
        for tree in trees[2:]:
            t.learn_from_tree(tree)
    assert np.array_equal(network_parameters_of(b.model), network_parameters_of(a.model))
    assert not np.array_equal(network_parameters_of(fresh.model), network_parameters_of(a.model))


def test_network_step_decay_and_weight_decay_reach_the_sgd() -> None:
    """``--step-decay`` sets a network's learning rate game by game as it sets a linear
    rule's step (halved after tau games), and ``--weight-decay`` pulls parameters towards
    0: with no data to fit (all lr on decay), a step shrinks every parameter by lr*L2."""
    import torch

    from treestrap.evaluation.torch_network import network_parameters_of, torch_network
    from treestrap.learn.replay import ReplayTrainer
    from treestrap.learn.replay_hyper import ReplayHyper

    sizes = [6, 1]
    params = random_network_parameters(sizes, seed=5, scale=2.0)
    hyper = ReplayHyper(step_size=0.04, momentum=0.0, weight_decay=0.5, step_decay=10.0)
    model = NetworkModel(sizes, params)
    t = ReplayTrainer(torch_network(sizes, params), model.evaluator(), network_parameters_of, hyper)
    t.set_schedule(1)
    assert t.optimizer.param_groups[0]["lr"] == 0.04
    t.set_schedule(11)
    assert t.optimizer.param_groups[0]["lr"] == 0.02
    before = [p.detach().clone() for p in t.model.parameters()]
    t.optimizer.zero_grad()
    for p in t.model.parameters():
        p.grad = torch.zeros_like(p)
    t.optimizer.step()
    for b, p in zip(before, t.model.parameters(), strict=True):
        assert torch.allclose(p.detach(), b * (1 - 0.02 * 0.5))


def test_a_teacher_holds_the_searches_network_for_its_games_and_through_a_resume() -> None:
    """``teacher_every`` G: the searches' evaluator gets the network at games 1, G + 1,
    ... and not after each search, while the steps go on; a trainer restored from the
    state searches with the teacher's parameters, not the newest ones."""
    from treestrap.evaluation.torch_network import network_parameters_of, torch_network
    from treestrap.learn.replay import ReplayTrainer
    from treestrap.learn.replay_hyper import ReplayHyper

    sizes = [6, 1]
    params = random_network_parameters(sizes, seed=5, scale=2.0)
    hyper = ReplayHyper(
        replay_size=70,
        batch_size=16,
        tree_nodes=25,
        replay_steps=3,
        step_size=0.05,
        teacher_every=2,
    )
    written: list[np.ndarray] = []

    def trainer() -> ReplayTrainer:
        def write(_evaluator: object, parameters: np.ndarray) -> None:
            written.append(parameters.copy())

        return ReplayTrainer(
            torch_network(sizes, params), None, network_parameters_of, hyper, write=write
        )

    ev = NetworkModel(sizes, params).evaluator()
    trees = [_walk_tree(ev, fen)[1] for fen in random_positions(3, seed=6, min_ply=6)]
    a = trainer()
    a.start_game(1)
    count = len(written)
    for tree in trees[:2]:
        a.learn_from_tree(tree)
    a.start_game(2)
    assert len(written) == count  # the searches still have the first network
    assert np.array_equal(a.search_parameters, params)
    stepped = network_parameters_of(a.model)
    assert not np.array_equal(stepped, params)

    saved = {k: v.copy() for k, v in a.state().items()}
    b = trainer()
    b.load_state(saved)
    assert np.array_equal(written[-1], params)  # restored: the teacher, not the newest
    assert np.array_equal(network_parameters_of(b.model), stepped)

    a.start_game(3)  # game G + 1: the newest network
    assert np.array_equal(written[-1], stepped) and np.array_equal(a.search_parameters, stepped)
    hyper.teacher_every = 0
    a.learn_from_tree(trees[2])  # without a teacher: after every search
    assert np.array_equal(written[-1], network_parameters_of(a.model))


def test_the_packed_ring_keeps_rows_as_if_written_one_by_one() -> None:
    """Rows go into the ring bit-packed; batches larger than the ring keep their last
    rows, in slots and with bounds as a row-by-row ring would put them."""
    rng = np.random.default_rng(3)
    replay = ReplaySet(7)
    slots = [np.zeros(BITBOARD.size, dtype=np.uint8)] * 7
    values: list[float] = [0.0] * 7
    nxt = 0
    for n in (3, 12, 5):
        rows = (rng.random((n, BITBOARD.size)) < 0.1).astype(np.uint8)
        lo = rng.random(n)
        replay._put(rows, lo, lo, np.zeros(n))
        for row, v in zip(rows, lo, strict=True):
            slots[nxt], values[nxt] = row, v
            nxt = (nxt + 1) % 7
        assert replay.next == nxt
        assert np.array_equal(replay.inputs, np.array(slots))
        assert np.array_equal(replay.lower, np.array(values))
    assert replay.size == 7 and replay.packed.shape == (7, 97)
