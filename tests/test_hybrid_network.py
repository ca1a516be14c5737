"""Hybrid networks (issue 26): a network on the bitboard inputs added to fixed linear
meep weights. The compiled score is the sum of the two parts, the table walk carries
each node's linear part (through its quiescence leaf) to the replay set as a logit
offset, files round-trip, and ``treestrap train --linear-part`` starts as its linear
part exactly and keeps it fixed while the network learns."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest
import torch
from search_helpers import node_position, quiescence_walk, random_positions

from treestrap.commands.train import add_parser
from treestrap.core.makemove import make_move, unmake_move
from treestrap.core.notation import legal_moves, parse_fen
from treestrap.core.position import current_key
from treestrap.evaluation.feature_sets.bitboard import SIDE_TO_MOVE
from treestrap.evaluation.feature_sets.meep import meep_material_score
from treestrap.evaluation.model import (
    LINEAR_PART_INPUT,
    evaluate,
    evaluate_gradient,
    material_estimate,
)
from treestrap.evaluation.network_weights import NetworkModel, describe_network
from treestrap.evaluation.outcome import CENTIPAWNS_PER_LOGIT
from treestrap.evaluation.presets import learned_model
from treestrap.evaluation.torch_network import random_network_parameters, torch_network
from treestrap.evaluation.weight_file_format import (
    WeightFileError,
    read_weight_file,
    write_weight_file,
)
from treestrap.evaluation.weight_files import load_weights
from treestrap.learn.replay import (
    ReplaySet,
    hybrid_tree_samples,
    leaf_sign,
    linear_parts,
    minibatch_step,
    tree_inputs,
)
from treestrap.search.context import new_context, static_value
from treestrap.search.quiescence import quiescence
from treestrap.search.tournament import _stand_pat
from treestrap.search.tree import TERMINAL, tree_size
from treestrap.search.value import INFINITE, clip_value

torch.set_num_threads(1)

SIZES = [16, 1]
FENS = random_positions(6, seed=11, min_ply=8, max_ply=40)


def _hybrid(scale: float = 8.0, zero_output: bool = False) -> NetworkModel:
    params = random_network_parameters(SIZES, seed=4, scale=scale)
    if zero_output:
        params[-(SIZES[0] + 1) :] = 0.0
    return NetworkModel(SIZES, params, linear=learned_model().weights)


def test_the_score_is_the_linear_part_plus_the_network_along_games() -> None:
    hybrid = _hybrid()
    plain = NetworkModel(SIZES, hybrid.weights)
    linear = learned_model()
    zero = _hybrid(zero_output=True)
    evs = [m.evaluator() for m in (hybrid, plain, linear, zero)]
    rng = np.random.default_rng(1)
    checked = 0
    for fen in FENS[:3]:
        pos = parse_fen(fen)
        played = []
        for _ in range(30):  # the accumulators follow the game incrementally
            h, p, lin, z = (float(evaluate(pos, ev)) for ev in evs)
            assert h == pytest.approx(p + lin, abs=1e-9)
            assert z == lin  # an output layer of zeros adds exactly nothing
            checked += 1
            moves = legal_moves(pos)
            if len(moves) == 0:
                break
            move = int(moves[rng.integers(len(moves))])
            make_move(pos, move)
            played.append(move)
        for _ in played:
            unmake_move(pos)
        assert float(evaluate(pos, evs[0])) == pytest.approx(
            float(evaluate(parse_fen(fen), hybrid.evaluator())), abs=1e-9
        )
    assert checked >= 60


def test_the_gradient_pairs_are_the_inputs_and_one_linear_pair() -> None:
    hybrid = _hybrid()
    ev = hybrid.evaluator()
    plain_ev = NetworkModel(SIZES, hybrid.weights).evaluator()
    for fen in FENS:
        pos = parse_fen(fen)
        score, n = evaluate_gradient(pos, ev)
        _, n_plain = evaluate_gradient(pos, plain_ev)
        assert n == n_plain + 1
        assert list(ev.idx[: n - 1]) == list(plain_ev.idx[:n_plain])
        assert ev.idx[n - 1] == LINEAR_PART_INPUT
        assert ev.val[n - 1] == pytest.approx(learned_model().evaluate(pos), abs=1e-9)
        assert score == pytest.approx(float(evaluate(pos, ev)), abs=1e-9)


def test_samples_carry_the_linear_part_of_each_quiescence_leaf() -> None:
    """Each sample's offset is the linear part at its leaf, for the leaf's side to move;
    with the torch network's score it makes up the node's quiescence value."""
    hybrid = _hybrid()
    net = torch_network(SIZES, hybrid.weights)
    ctx = new_context()
    ev = hybrid.evaluator()
    other_side = 0
    for fen in FENS[:3]:
        tree = quiescence_walk(hybrid, fen)
        n = tree_size(tree)
        nodes = np.array([i for i in range(n) if not tree.flags[i] & TERMINAL])[:40]
        rows = tree_inputs(tree, nodes)
        sign = leaf_sign(tree, nodes)
        other_side += int((sign < 0).sum())
        with torch.no_grad():
            s = net(torch.from_numpy(rows.astype(np.float64)))
        white = CENTIPAWNS_PER_LOGIT * (s[:, 0] - s[:, 2]).numpy()
        network_part = np.where(rows[:, SIDE_TO_MOVE] == 1, white, -white)
        leaf_linear = sign * linear_parts(tree, nodes)
        for node, lin, net_value, sg in zip(nodes, leaf_linear, network_part, sign, strict=True):
            pos = node_position(fen, tree, int(node))
            q = quiescence(pos, ev, ctx)
            assert clip_value(sg * (lin + net_value)) == pytest.approx(q, abs=1e-6)
    assert other_side > 0
    tree = quiescence_walk(hybrid, FENS[0])
    _, lower, _, offsets = hybrid_tree_samples(tree, 10_000, leaves=True)
    assert len(offsets) == len(lower) and np.any(offsets != 0)


def test_the_replay_set_keeps_offsets_through_flips_and_state() -> None:
    hybrid = _hybrid()
    tree = quiescence_walk(hybrid, FENS[1])
    inputs, lower, upper, linear = hybrid_tree_samples(tree, 50, leaves=True)
    replay = ReplaySet(1000)
    replay.add(inputs, lower, upper, linear)
    k = len(inputs)
    white = np.where(inputs[:, SIDE_TO_MOVE] == 1, 1.0, -1.0)
    expected = white * linear / CENTIPAWNS_PER_LOGIT
    assert replay.offset[:k] == pytest.approx(expected)
    assert replay.offset[k : 2 * k] == pytest.approx(-expected)
    again = ReplaySet(1000)
    again.load_state(replay.state())
    assert np.array_equal(again.offset, replay.offset)
    # A state saved before offsets existed loads with offsets of 0.
    old = {key: v for key, v in replay.state().items() if key != "replay_offset"}
    again.load_state(old)
    assert not again.offset.any()


def test_a_minibatch_step_fits_the_network_to_what_the_linear_part_leaves() -> None:
    """Targets equal to the offsets: a zero network already fits them (no loss beyond
    the targets' own entropy moves it); targets away from them move it."""
    rng = np.random.default_rng(0)
    replay = ReplaySet(400)
    rows = tree_inputs(quiescence_walk(_hybrid(), FENS[2]), np.arange(100))
    linear = rng.normal(0, 200, len(rows))
    replay.add(rows, linear, linear.copy(), linear)
    params = random_network_parameters(SIZES, seed=4)
    params[-(SIZES[0] + 1) :] = 0.0
    net = torch_network(SIZES, params)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    before = [p.detach().clone() for p in net.parameters()]

    def moved() -> float:
        after = net.parameters()
        return max(float((a - b.detach()).abs().max()) for a, b in zip(before, after, strict=True))

    loss = minibatch_step(net, opt, replay, 64, "squared", rng)
    assert loss < 1e-20 and moved() < 1e-12  # only rounding
    replay.add(rows, linear + 300, linear + 300, linear)
    assert minibatch_step(net, opt, replay, 64, "squared", rng) > 0.1
    assert moved() > 1e-3


def test_files_round_trip_and_say_they_are_hybrids(tmp_path: Path) -> None:
    hybrid = _hybrid()
    path = tmp_path / "hybrid.npz"
    hybrid.save(path)
    loaded = load_weights(path)
    assert isinstance(loaded, NetworkModel) and loaded.linear is not None
    assert np.array_equal(loaded.weights, hybrid.weights)
    assert np.array_equal(loaded.linear, learned_model().weights)
    assert loaded.describe() == "mlp 16 + linear meep"
    assert "linear part: " in describe_network(loaded)
    meta, weights = read_weight_file(path)
    assert meta["linear"]["feature_set"] == "meep" and meta["shape"] == [weights.size]
    # A linear part of another layout is refused by name.
    meta["linear"]["layout_hash"] = "0" * 16
    bad = tmp_path / "bad.npz"
    write_weight_file(bad, weights, meta)
    with pytest.raises(WeightFileError, match="linear part"):
        load_weights(bad)


def _train(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="treestrap")
    add_parser(parser.add_subparsers())
    args = parser.parse_args(["train", *argv])
    return int(args.func(args))


def test_a_hybrid_run_keeps_its_linear_part_and_learns_the_network(tmp_path: Path) -> None:
    out = tmp_path / "run"
    argv = ["--model", "mlp:8", "--linear-part", "learned", "--algorithm", "treestrap-ab"]
    argv += ["--node-value", "quiescence", "--depth", "1", "--games", "1", "--max-plies", "16"]
    assert _train([*argv, "--out", str(out)]) == 0
    model = load_weights(out / "weights.npz")
    assert isinstance(model, NetworkModel) and model.linear is not None
    assert np.array_equal(model.linear, learned_model().weights)
    assert np.any(model.weights[-9:] != 0)  # the output layer left zero
    assert json.loads((out / "config.json").read_text())["linear_part"] == "learned"
    assert _train(["--resume", str(out), "--games", "2"]) == 0
    resumed = load_weights(out / "weights.npz")
    assert np.array_equal(resumed.linear, model.linear)
    # on two actors too, keeping the same linear part
    assert _train([*argv, "--actors", "2", "--out", str(tmp_path / "two")]) == 0
    two = load_weights(tmp_path / "two" / "weights.npz")
    assert isinstance(two, NetworkModel) and np.array_equal(two.linear, model.linear)


def test_the_lazy_estimate_of_a_hybrid_is_its_linear_material_part_plus_the_network() -> None:
    """What the tournament search's lazy stand pat reads: the linear part's material and
    piece-square score plus the whole network score (so only the linear part's other
    terms are left out, as for the linear weights alone)."""
    linear = learned_model()
    for activation in ("tanh", "crelu"):
        params = random_network_parameters(SIZES, seed=4, scale=8.0)
        hybrid = NetworkModel(SIZES, params, linear=linear.weights, activation=activation)
        ev, lin_ev = hybrid.evaluator(), linear.evaluator()
        for fen in FENS:
            pos = parse_fen(fen)
            network = float(evaluate(pos, ev)) - float(evaluate(pos, lin_ev))
            expected = float(meep_material_score(pos, linear.weights)) + network
            assert float(material_estimate(pos, ev)) == pytest.approx(expected, abs=1e-9)
    plain = NetworkModel(SIZES, random_network_parameters(SIZES, seed=4)).evaluator()
    assert np.isnan(material_estimate(parse_fen(FENS[0]), plain))


def test_the_stand_pat_of_a_hybrid_is_its_static_value_or_the_lazy_bound() -> None:
    """The tournament search's stand pat computes a hybrid's network score once for the
    lazy estimate and the exact value: with the window out of the estimate's reach it
    is the static value bit for bit (also read back from the cache), and far below the
    estimate it is the lazy bound, estimate - margin."""
    linear = learned_model()
    margin = 300.0
    for activation in ("tanh", "crelu"):
        params = random_network_parameters(SIZES, seed=4, scale=8.0)
        ev = NetworkModel(SIZES, params, linear=linear.weights, activation=activation).evaluator()
        ctx = new_context()
        for fen in FENS:
            pos = parse_fen(fen)
            key = np.uint64(current_key(pos))
            exact = float(static_value(pos, ev))
            for _ in range(2):  # computed, then read back from the evaluation cache
                stand = _stand_pat(pos, ev, ctx, key, margin, -INFINITE, INFINITE)
                assert float(stand) == exact
            low = float(material_estimate(pos, ev)) - margin
            assert float(_stand_pat(pos, ev, ctx, key, margin, -INFINITE, low)) == low


def test_a_crelu_hybrid_trains_resumes_and_says_its_activation(tmp_path: Path) -> None:
    out = tmp_path / "run"
    argv = ["--model", "crelu:8", "--linear-part", "learned", "--algorithm", "treestrap-ab"]
    argv += ["--node-value", "quiescence", "--depth", "1", "--games", "1", "--max-plies", "16"]
    assert _train([*argv, "--out", str(out)]) == 0
    model = load_weights(out / "weights.npz")
    assert isinstance(model, NetworkModel) and model.activation == "crelu"
    assert model.describe() == "crelu 8 + linear meep"
    assert "crelu hidden units" in describe_network(model)
    assert read_weight_file(out / "weights.npz")[0]["activation"] == "crelu"
    assert _train(["--resume", str(out), "--games", "2"]) == 0
    assert load_weights(out / "weights.npz").activation == "crelu"
    # a tanh network file does not start a crelu run
    tanh = tmp_path / "tanh.npz"
    NetworkModel([8, 1], random_network_parameters([8, 1], seed=1)).save(tanh)
    assert _train(["--model", "crelu:8", "--init", str(tanh), "--out", str(tmp_path / "x")]) == 2
