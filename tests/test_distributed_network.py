"""Network runs (``train --model``, Serban's Algorithm 7) as self-play actors and one
learner: the actors ship replay samples, the learner adds them in arrival order, takes
the mini-batch steps and publishes the network. A tiny two-actor run through the command
line writes loadable network checkpoints and weight versions; the learner's replay set
holds exactly what the actors shipped; hybrids ship their linear parts; a Ray run
completes."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import torch

from treestrap.cli import main
from treestrap.distributed.backend import Outcome
from treestrap.distributed.learner import LearnerStats, train_distributed
from treestrap.distributed.local import LocalBackend
from treestrap.distributed.updates import ReplaySample
from treestrap.evaluation.feature_sets.bitboard import SIDE_TO_MOVE
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.outcome import CENTIPAWNS_PER_LOGIT
from treestrap.evaluation.weight_files import load_weights
from treestrap.learn.rules import NETWORK_ALGORITHM
from treestrap.training.config import TrainConfig

torch.set_num_threads(1)

#: Depth-limited minimax trees of a few hundred nodes, short games.
TINY = [
    "--model",
    "mlp:8",
    "--depth",
    "1",
    "--minimax-nodes",
    "300",
    "--minimax-qnodes",
    "20",
    "--max-plies",
    "16",
    "--tree-nodes",
    "40",
    "--batch-size",
    "16",
    "--replay-size",
    "100000",
]


def tiny(games: int) -> TrainConfig:
    return TrainConfig(
        games=games,
        seed=3,
        model="mlp:8",
        algorithm=NETWORK_ALGORITHM,
        feature_set="bitboard",
        objective="soft-cross-entropy",
        depth=1,
        minimax_nodes=300,
        minimax_qnodes=20,
        max_plies=16,
        tree_nodes=40,
        batch_size=16,
        replay_size=100_000,
        checkpoint_every=2,
    )


def metric_rows(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]


def test_a_two_actor_mlp_run_writes_network_checkpoints_and_weight_versions(
    tmp_path: Path,
) -> None:
    run = tmp_path / "run"
    assert main(["train", *TINY, "--games", "3", "--actors", "2", "--out", str(run)]) == 0
    start = load_weights(run / "checkpoints" / "game-000000.npz")
    after = load_weights(run / "weights.npz")
    assert isinstance(start, NetworkModel) and isinstance(after, NetworkModel)
    assert after.sizes == [8, 1] and after.metadata["run_state"]["games"] == 3
    assert not np.array_equal(start.weights, after.weights)  # the learner learned
    for n in (1, 2, 3):
        assert isinstance(load_weights(run / "checkpoints" / f"game-{n:06d}.npz"), NetworkModel)
    rows = metric_rows(run)
    assert [r["game"] for r in rows] == [1, 2, 3]
    assert {r["actor"] for r in rows} == {0, 1}
    assert all(r["weights_version"] <= r["game"] - 1 for r in rows)
    assert all(np.isfinite(r["replay_loss"]) and r["replay_positions"] > 0 for r in rows)
    assert sorted(r["ticket"] for r in rows) == [1, 2, 3]


class CountingBackend(LocalBackend):
    """Local actors, counting the replay samples (tree nodes) each game ships."""

    def __init__(self, count: int) -> None:
        super().__init__(count)
        self.shipped: list[int] = []

    def wait(self) -> list[Outcome]:
        outcomes = super().wait()
        for _, played in outcomes:
            if played is not None:
                assert played.updates and all(isinstance(s, ReplaySample) for s in played.updates)
                self.shipped.append(sum(len(s.values) for s in played.updates))  # type: ignore[union-attr]
        return outcomes


def test_the_learners_replay_set_holds_what_the_actors_shipped(tmp_path: Path) -> None:
    run = tmp_path / "run"
    backend = CountingBackend(2)
    stats = LearnerStats()
    state = train_distributed(
        tiny(4), str(run), actors=2, backend=backend, publish_every=2, stats=stats
    )
    assert state.games == 4 and len(backend.shipped) == 4
    rows = metric_rows(run)
    # Every node enters with its colour flip, in the order the games were committed.
    assert [r["replay_positions"] for r in rows] == list(2 * np.cumsum(backend.shipped))
    assert stats.updates == sum(r["searches"] for r in rows)  # one sample record a search
    assert stats.update_bytes > 0
    # Published at the start and after game 2: versions 0 and 2 only.
    assert {r["weights_version"] for r in rows} <= {0, 2}
    assert stats.weight_sends >= 2


class SampleKeeper(LocalBackend):
    """Local actors, keeping every replay sample shipped."""

    def __init__(self, count: int) -> None:
        super().__init__(count)
        self.samples: list[ReplaySample] = []

    def wait(self) -> list[Outcome]:
        outcomes = super().wait()
        for _, played in outcomes:
            if played is not None:
                self.samples.extend(played.updates)  # type: ignore[arg-type]
        return outcomes


def test_treestrap_ab_actors_ship_bounds_and_jobs_carry_no_replay_state(tmp_path: Path) -> None:
    """A two-actor treestrap-ab network run: the samples carry their table bounds
    (minimax ones travel without), the learner's saved replay set holds one-sided
    bounds, and the published jobs carry the network but not the replay set."""
    run = tmp_path / "run"
    backend = SampleKeeper(2)
    stats = LearnerStats()
    config = dataclasses.replace(tiny(2), algorithm="treestrap-ab", depth=2)
    assert train_distributed(config, str(run), actors=2, backend=backend, stats=stats).games == 2
    bounded = [s for s in backend.samples if s.upper is not None]
    assert len(bounded) > len(backend.samples) // 2
    assert all(np.all(s.values <= s.upper) and np.any(s.values < s.upper) for s in bounded)
    with np.load(run / "optimizer.npz") as saved:
        n = int(saved["replay_ring"][0])
        assert n == 2 * sum(len(s.values) for s in backend.samples)
        assert np.any(saved["replay_lower"] < saved["replay_upper"])
    weights = load_weights(run / "weights.npz")
    assert stats.job_bytes < 2 * stats.weight_sends * weights.weights.nbytes


def test_a_ray_mlp_run_completes(ray_cluster: None, tmp_path: Path) -> None:
    run = tmp_path / "run"
    config = dataclasses.replace(tiny(2), seed=5)
    state = train_distributed(config, str(run), actors=2, backend="ray")
    assert state.games == 2
    after = load_weights(run / "weights.npz")
    assert isinstance(after, NetworkModel) and after.metadata["run_state"]["games"] == 2
    rows = metric_rows(run)
    assert [r["game"] for r in rows] == [1, 2]
    assert all("weights_version" in r and r["replay_positions"] > 0 for r in rows)


def test_hybrid_actors_search_with_the_linear_part_and_ship_it(tmp_path: Path) -> None:
    """A hybrid (``--linear-part learned``) on two actors: the first job carries the
    linear part, every search's samples carry their positions' linear values, and the
    learner's replay set holds them as logit offsets, each with its colour flip's."""
    run = tmp_path / "run"
    backend = SampleKeeper(2)
    config = dataclasses.replace(
        tiny(2), algorithm="treestrap-ab", depth=2, model="crelu:8", linear_part="learned"
    )
    assert train_distributed(config, str(run), actors=2, backend=backend).games == 2
    assert backend.samples and all(s.linear is not None for s in backend.samples)
    expected = []
    for s in backend.samples:
        assert s.linear is not None and np.any(s.linear != 0.0)
        white = s.inputs[:, SIDE_TO_MOVE] == 1
        offset = np.where(white, 1.0, -1.0) * s.linear / CENTIPAWNS_PER_LOGIT
        expected += [offset, -offset]
    with np.load(run / "optimizer.npz") as saved:
        n = int(saved["replay_ring"][0])
        assert np.array_equal(saved["replay_offset"][:n], np.concatenate(expected))
    weights = load_weights(run / "weights.npz")
    assert isinstance(weights, NetworkModel) and weights.linear is not None
