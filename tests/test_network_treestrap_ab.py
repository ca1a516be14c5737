"""``treestrap train --model ... --algorithm treestrap-ab``: TreeStrap(alpha-beta)
carried over to networks. The training alpha-beta searches, its table walk gives the
nodes with their bounds, and the replay mini-batches take a one-sided loss. A tiny run
writes a network that loads and plays over UCI, and lowers the one-sided loss on
held-out table positions."""

from __future__ import annotations

import json
from pathlib import Path

import chess
import numpy as np
import torch
from search_helpers import random_positions

from treestrap.cli import main
from treestrap.core.notation import parse_fen
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.torch_network import torch_network
from treestrap.evaluation.weight_files import load_weights
from treestrap.learn.objectives_network import bounded_loss, bounded_targets
from treestrap.learn.replay import ReplaySet, add_tree
from treestrap.search.training import TrainingSearch
from treestrap.search.tree import new_tree
from treestrap.search.tt_walk import walk_tt
from treestrap.training.config import TrainConfig
from treestrap.training.run import train

torch.set_num_threads(1)


def test_a_tiny_treestrap_ab_network_run_learns_and_its_weights_play(tmp_path: Path) -> None:
    run = tmp_path / "run"
    args = ["--model", "mlp:8", "--algorithm", "treestrap-ab", "--depth", "2"]
    tiny = ["--max-plies", "20", "--tree-nodes", "40", "--batch-size", "16"]
    assert main(["train", *args, *tiny, "--games", "2", "--out", str(run)]) == 0
    config = json.loads((run / "config.json").read_text())
    assert config["algorithm"] == "treestrap-ab" and config["model"] == "mlp:8"
    start = load_weights(run / "checkpoints" / "game-000000.npz")
    after = load_weights(run / "weights.npz")
    assert isinstance(start, NetworkModel) and isinstance(after, NetworkModel)
    assert after.metadata["algorithm"] == "treestrap-ab"
    assert not np.array_equal(start.weights, after.weights)  # it learned
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [r["game"] for r in rows] == [1, 2]
    assert all(np.isfinite(r["replay_loss"]) and r["replay_positions"] > 0 for r in rows)
    assert "treestrap-ab, mlp:8" in (run / "games.pgn").read_text()

    from test_uci import legal_in, start_engine

    p = start_engine("--weights", str(run / "weights.npz"))
    try:
        p.send("position startpos moves e2e4 e7e5")
        assert legal_in(chess.STARTING_FEN, ["e2e4", "e7e5"], p.go("depth 3")[1])
    finally:
        assert p.close() == 0


def _held_out(model: NetworkModel, fens: list[str]) -> ReplaySet:
    """Table entries of depth-2 training searches from ``fens`` with ``model``, the
    first 40 of each walk with their bounds (and their flips)."""
    ev = model.evaluator()
    search = TrainingSearch(tt_bits=14)
    tree = new_tree(20_000, features_per_node=40)
    replay = ReplaySet(10_000)
    for fen in fens:
        search.search(parse_fen(fen), ev, 2)
        walk_tt(parse_fen(fen), ev, search.tt, tree, search.ctx, 1)
        add_tree(replay, tree, 40)
    return replay


def _excess_loss(model: NetworkModel, replay: ReplaySet) -> float:
    """The mean one-sided soft cross-entropy above what a network could not remove
    (the entropy of each bound it is pulled towards): zero when every value lies in
    its bounds."""
    net = torch_network(model.sizes, model.weights)
    with torch.no_grad():
        s = net(torch.from_numpy(replay.inputs[: replay.size].astype(np.float32)))
    z = (s[:, 0] - s[:, 2]).numpy()
    lower, upper = replay.lower[: replay.size], replay.upper[: replay.size]
    loss = bounded_loss("soft-ce", z, lower, upper)
    targets, active = bounded_targets(z, lower, upper)
    v = np.clip(targets, 1e-12, 1 - 1e-12)
    entropy = -(v * np.log(v) + (1 - v) * np.log1p(-v))
    return float(np.mean(loss - np.where(active, entropy, 0.0)))


def test_a_tiny_treestrap_ab_run_lowers_the_one_sided_loss_on_held_out_positions(
    tmp_path: Path,
) -> None:
    """Three self-play games of an MLP from a random start (weights four times
    PyTorch's default scale, so that its searches disagree with it): on table
    positions of searches from positions no game played, with the start network's
    bounds as fixed targets, the trained network's one-sided loss (above its floor) is
    lower than the start's."""
    config = TrainConfig(
        model="mlp:8",
        feature_set="bitboard",
        algorithm="treestrap-ab",
        objective="soft-cross-entropy",
        games=3,
        depth=2,
        max_plies=40,
        tree_nodes=50,
        batch_size=32,
        replay_size=5000,
        replay_steps=4,
        step_size=0.05,
        init_scale=4.0,
    )
    train(config, tmp_path / "run")
    start = load_weights(tmp_path / "run" / "checkpoints" / "game-000000.npz")
    trained = load_weights(tmp_path / "run" / "weights.npz")
    assert isinstance(start, NetworkModel) and isinstance(trained, NetworkModel)
    held = _held_out(start, random_positions(30, seed=77, min_ply=6, max_ply=40))
    one_sided = held.lower[: held.size] < held.upper[: held.size]
    assert one_sided.mean() > 0.3  # mostly bounds, not values
    before, after = _excess_loss(start, held), _excess_loss(trained, held)
    assert after < 0.9 * before, (before, after)
