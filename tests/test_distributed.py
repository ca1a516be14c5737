"""Actors and a learner (treestrap.distributed) on local processes: the update records
replay exactly, the learner commits games in the order they arrive, one actor gives the
one-process run's weights bit for bit, and an actor killed mid-game costs only its game."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import signal
from pathlib import Path

import numpy as np
import pytest
from kill_checks import check_training_run, soak, training_soak

from treestrap.cli import main
from treestrap.distributed import ray_support
from treestrap.distributed.actor import Actor
from treestrap.distributed.backend import Outcome, Traffic
from treestrap.distributed.learner import LearnerStats, run_learner, train_distributed
from treestrap.distributed.local import LocalBackend
from treestrap.distributed.messages import Job
from treestrap.distributed.updates import RecordingOptimizer, apply_updates
from treestrap.evaluation.presets import hand_set_model
from treestrap.evaluation.weight_files import load_weights
from treestrap.evaluation.weights import save_weights
from treestrap.learn.optimizer import make_optimizer
from treestrap.learn.rules import ALGORITHM_NAMES
from treestrap.training.config import TrainConfig, apply_preset
from treestrap.training.run import open_run, train


def tiny(games: int, **changes: object) -> TrainConfig:
    """Depth-2 self-play games of at most 24 plies: a second or two each."""
    config = apply_preset(TrainConfig(games=games, seed=5), "quick")
    settings = {"depth": 2, "max_plies": 24, "checkpoint_every": 2, **changes}
    return dataclasses.replace(config, **settings)


def metric_rows(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]


# --- update records --------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["sgd", "adagrad", "adam"])
def test_replayed_records_give_the_actors_weights_bit_for_bit(kind: str) -> None:
    rng = np.random.default_rng(1)
    start = rng.normal(size=50)
    actor_weights = start.copy()
    recorder = RecordingOptimizer(make_optimizer(kind, 50, 0.01))
    for scale in (1.0, 0.5, 0.25):
        recorder.scale = scale
        delta = np.where(rng.random(50) < 0.2, rng.normal(size=50) * 0.01, 0.0)
        recorder.apply(actor_weights, delta)
    records = recorder.take()
    assert len(records) == 3 and recorder.take() == []
    assert [r.scale for r in records] == [1.0, 0.5, 0.25]
    assert all(r.idx.size < 50 for r in records)  # sparse: only the changed features
    learner_weights = start.copy()
    apply_updates(make_optimizer(kind, 50, 0.01), learner_weights, records)
    assert np.array_equal(learner_weights, actor_weights)
    assert not np.array_equal(learner_weights, start)
    if kind != "sgd":  # adaptive steps depend on the order: the learner keeps it
        reordered = start.copy()
        apply_updates(make_optimizer(kind, 50, 0.01), reordered, records[::-1])
        assert not np.array_equal(reordered, actor_weights)


# --- the learner, with actors in this process ---------------------------------------


class InProcessBackend:
    """Actors in the test's own process; ``wait`` finishes the busy slot with the
    highest number first, so games arrive out of the order they were handed out."""

    name = "in-process"

    def __init__(self, count: int) -> None:
        self.count = count
        self.restarts = 0
        self.traffic = Traffic()
        self.jobs: dict[int, Job] = {}
        self.arrivals: list[tuple[int, int]] = []  # (slot, ticket) in arrival order
        self.actors: list[Actor] = []

    def start(self, config: TrainConfig) -> None:
        self.actors = [Actor(config) for _ in range(self.count)]

    def submit(self, slot: int, job: Job) -> None:
        self.jobs[slot] = job

    def wait(self) -> list[Outcome]:
        slot = max(self.jobs)
        job = self.jobs.pop(slot)
        self.arrivals.append((slot, job.ticket))
        return [(slot, self.actors[slot].play(job))]

    def restart(self, slot: int) -> None:
        raise AssertionError("no actor dies here")

    def pids(self) -> list[int]:
        return [os.getpid()] * self.count

    def close(self) -> None:
        for actor in self.actors:
            actor.close()


def test_the_learner_commits_games_in_arrival_order(tmp_path: Path) -> None:
    config = tiny(4, optimizer="adagrad")
    backend = InProcessBackend(2)
    opened = open_run(config, tmp_path / "run")
    applied: list[np.ndarray] = []
    state = run_learner(
        opened, backend, on_game=lambda s, st: applied.append(opened.model.weights.copy())
    )
    assert state.games == 4
    rows = metric_rows(tmp_path / "run")
    # Games are numbered as they are committed, and committed as they arrive.
    assert [r["game"] for r in rows] == [1, 2, 3, 4]
    assert [(r["actor"], r["ticket"]) for r in rows] == backend.arrivals
    assert [r["ticket"] for r in rows] == [2, 3, 4, 1]  # slot 0's game arrived last
    # Ticket 1 was played with the initial weights and committed after three games.
    assert (rows[-1]["weights_version"], rows[-1]["staleness"]) == (0, 3)
    assert [r["weights_version"] for r in rows[:3]] == [0, 1, 2]
    assert check_training_run(tmp_path / "run").ok, check_training_run(tmp_path / "run")
    # The weights after each game are the previous ones plus that game's records.
    assert not np.array_equal(applied[0], applied[1])
    assert np.array_equal(load_weights(tmp_path / "run" / "weights.npz").weights, applied[-1])


def test_one_actor_replays_the_one_process_run_exactly(tmp_path: Path) -> None:
    config = tiny(3, optimizer="adagrad", step_size=0.5)
    train(config, tmp_path / "sequential")
    backend = InProcessBackend(1)
    train_distributed(config, str(tmp_path / "actor"), actors=1, backend=backend)
    seq = load_weights(tmp_path / "sequential" / "weights.npz").weights
    one = load_weights(tmp_path / "actor" / "weights.npz").weights
    assert np.array_equal(seq, one)
    assert (tmp_path / "sequential" / "games.pgn").read_text() == (
        tmp_path / "actor" / "games.pgn"
    ).read_text()


@pytest.mark.parametrize("algorithm", sorted(ALGORITHM_NAMES))
def test_every_algorithm_learns_through_actors_as_in_one_process(
    algorithm: str, tmp_path: Path
) -> None:
    config = tiny(2, algorithm=algorithm, depth=1, max_plies=12, minimax_nodes=200)
    train(config, tmp_path / "sequential")
    train_distributed(config, str(tmp_path / "actor"), actors=1, backend=InProcessBackend(1))
    seq = load_weights(tmp_path / "sequential" / "weights.npz").weights
    one = load_weights(tmp_path / "actor" / "weights.npz").weights
    start = load_weights(tmp_path / "actor" / "checkpoints" / "game-000000.npz").weights
    assert not np.array_equal(one, start)  # it learned something
    assert np.array_equal(seq, one)


def test_an_opponent_plays_inside_each_actor(tmp_path: Path) -> None:
    opponent = tmp_path / "hand-set.npz"
    save_weights(hand_set_model("meep"), opponent)
    config = tiny(2, opponent=str(opponent), opponent_depth=1)
    train(config, tmp_path / "sequential")
    train_distributed(config, str(tmp_path / "actor"), actors=1, backend=InProcessBackend(1))
    assert np.array_equal(
        load_weights(tmp_path / "sequential" / "weights.npz").weights,
        load_weights(tmp_path / "actor" / "weights.npz").weights,
    )
    assert (tmp_path / "sequential" / "games.pgn").read_text() == (
        tmp_path / "actor" / "games.pgn"
    ).read_text()
    assert "weights:hand-set.npz" in (tmp_path / "actor" / "games.pgn").read_text()


def test_the_opponent_takes_over_after_the_self_play_games(tmp_path: Path) -> None:
    config = tiny(3, opponent="hand-set", opponent_depth=1, opponent_after=2)
    train(config, tmp_path / "sequential")
    train_distributed(config, str(tmp_path / "actor"), actors=1, backend=InProcessBackend(1))
    pgn = (tmp_path / "sequential" / "games.pgn").read_text()
    assert pgn == (tmp_path / "actor" / "games.pgn").read_text()
    games = pgn.split("[Event ")[1:]
    assert len(games) == 3
    assert ["hand-set" in game for game in games] == [False, False, True]
    with pytest.raises(ValueError, match="opponent after"):
        dataclasses.replace(config, opponent_after=-1).validate()


# --- actor processes -----------------------------------------------------------------


def test_one_actor_process_equals_the_sequential_run(tmp_path: Path) -> None:
    config = tiny(3)
    train(config, tmp_path / "sequential")
    stats = LearnerStats()
    train_distributed(config, str(tmp_path / "one"), actors=1, backend="local", stats=stats)
    assert np.array_equal(
        load_weights(tmp_path / "sequential" / "weights.npz").weights,
        load_weights(tmp_path / "one" / "weights.npz").weights,
    )
    assert stats.games == 3 and stats.updates > 0 and stats.game_bytes > stats.update_bytes > 0
    assert stats.job_bytes > 3 * 8 * 1830  # three weight vectors went out
    check = check_training_run(tmp_path / "one", reference=tmp_path / "sequential")
    assert check.ok, check


def test_an_actor_killed_mid_game_is_replaced_and_nothing_is_lost(tmp_path: Path) -> None:
    run = tmp_path / "run"
    backend = LocalBackend(2)
    killed: list[int] = []

    def on_game(summary, state) -> None:  # type: ignore[no-untyped-def]
        load_weights(run / "weights.npz")  # the commit point always loads
        if not killed:
            # The other slot was handed its game before this one ended: it is mid-game.
            other = 1 - metric_rows(run)[-1]["actor"]
            killed.append(backend.pids()[other])
            os.kill(killed[0], signal.SIGKILL)

    state = train_distributed(tiny(5), str(run), actors=2, backend=backend, on_game=on_game)
    assert state.games == 5
    assert backend.restarts == 1
    assert killed[0] not in backend.pids()
    check = check_training_run(run)
    assert check.ok, check
    rows = metric_rows(run)
    assert [r["game"] for r in rows] == [1, 2, 3, 4, 5]
    assert len({r["ticket"] for r in rows}) == 5  # the killed game is not among them
    assert {r["actor"] for r in rows} == {0, 1}
    # Resuming carries on, here with the one-process loop: the files are the same.
    assert main(["train", "--resume", str(run), "--games", "6"]) == 0
    assert [r["game"] for r in metric_rows(run)] == [1, 2, 3, 4, 5, 6]
    assert load_weights(run / "weights.npz").metadata["games"] == 6


def test_train_command_with_two_actors(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    run = tmp_path / "run"
    args = ["train", "--preset", "quick", "--games", "2", "--depth", "1", "--max-plies", "16"]
    assert main([*args, "--actors", "2", "--out", str(run)]) == 0
    rows = metric_rows(run)
    assert [r["game"] for r in rows] == [1, 2]
    assert all("weights_version" in r and "staleness" in r for r in rows)
    assert "2 games" in capsys.readouterr().out


@pytest.mark.parametrize("command", ["train", "tournament", "reproduce"])
def test_ray_backend_without_ray_says_how_to_install_it(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setattr(ray_support, "ray_available", lambda: False)
    args = {
        "train": ["train", "--out", str(tmp_path / "t"), "--actors", "2"],
        "tournament": ["tournament", "hand-set", "random", "--out", str(tmp_path / "u")],
        "reproduce": ["reproduce", "veness2009", "--out", str(tmp_path / "r")],
    }[command]
    assert main([*args, "--backend", "ray"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: the Ray backend needs the 'ray' package: pip install")
    assert "Traceback" not in err
    assert not any(tmp_path.iterdir())  # nothing written


def test_an_address_needs_the_ray_backend(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["train", "--out", str(tmp_path / "t"), "--address", "host:6379"]) == 2
    assert "--address names a Ray cluster" in capsys.readouterr().err


def test_train_with_actors_killed_whole_and_resumed(tmp_path: Path) -> None:
    """SIGKILL to ``treestrap train --actors 2`` and its actors together, at random
    moments, then ``--resume``: every game once, every file loads."""
    base = training_soak(games=4, max_plies=24)
    with_actors = dataclasses.replace(
        base,
        name="train-actors",
        start=lambda d: [*base.start(d), "--actors", "2"],
        resume=lambda d: [*base.resume(d), "--actors", "2"],
        seconds=base.seconds + 4.0,  # the actors' start-up
    )
    result = soak(with_actors, tmp_path, kills=2, rng=random.Random(15), log=print)
    assert result.kills == 2
    assert result.check.ok, result.check.problems
    assert result.check.games == 4 * result.runs


def test_a_teacher_is_refused_with_actors(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Actors search with the network they were sent (``--publish-every``): a network run
    with ``--teacher-every`` and actors ends in one error line, not a traceback."""
    args = ["train", "--model", "mlp:4", "--games", "1", "--teacher-every", "2"]
    assert main([*args, "--actors", "2", "--out", str(tmp_path / "t")]) == 2
    err = capsys.readouterr().err
    assert "\nerror: --teacher-every G is the one-process loop's" in err and "Traceback" not in err
