"""The Ray backend on a local 2-CPU cluster: a training run with an actor killed
mid-game, a tournament that gives the local pool's results and resumes across backends,
and the commands' ``--backend ray``. Ray is in the ``dev`` extra: without it these
skip with a message (and fail under CI=true)."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import sqlite3
from pathlib import Path

from kill_checks import check_training_run

from treestrap.cli import main
from treestrap.distributed.learner import LearnerStats, train_distributed
from treestrap.distributed.ray_games import ray_runner
from treestrap.evaluation.weight_files import load_weights
from treestrap.play.gamepool import games_run_by
from treestrap.play.tournament import TournamentConfig, run_tournament
from treestrap.training.config import TrainConfig, apply_preset


def tiny(games: int) -> TrainConfig:
    config = apply_preset(TrainConfig(games=games, seed=7), "quick")
    return dataclasses.replace(config, depth=2, max_plies=24, checkpoint_every=2)


def metric_rows(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]


def test_ray_training_survives_a_killed_actor(ray_cluster: None, tmp_path: Path) -> None:
    from treestrap.distributed.ray_backend import RayBackend

    run = tmp_path / "run"
    backend = RayBackend(2)
    killed: list[int] = []
    stats = LearnerStats()

    def on_game(summary, state) -> None:  # type: ignore[no-untyped-def]
        load_weights(run / "weights.npz")
        if not killed:
            other = 1 - metric_rows(run)[-1]["actor"]
            killed.append(backend.pids()[other])
            os.kill(killed[0], signal.SIGKILL)  # the actor's worker process, mid-game

    state = train_distributed(
        tiny(5), str(run), actors=2, backend=backend, on_game=on_game, stats=stats
    )
    assert state.games == 5 and backend.restarts == 1
    assert killed[0] not in backend.pids()
    check = check_training_run(run)
    assert check.ok, check
    rows = metric_rows(run)
    assert [r["game"] for r in rows] == [1, 2, 3, 4, 5]
    assert len({r["ticket"] for r in rows}) == 5
    assert stats.game_bytes > stats.update_bytes > 0 and stats.job_bytes > 0


def _results(run: Path) -> list[tuple]:
    with sqlite3.connect(run / "results.sqlite") as db:
        return db.execute(
            "SELECT id, white, black, result, termination, plies FROM games ORDER BY id"
        ).fetchall()


def test_ray_tournament_matches_the_local_pool_and_resumes_across_backends(
    ray_cluster: None, tmp_path: Path
) -> None:
    config = TournamentConfig(
        players=["hand-set", "random:1"], games_per_pair=4, max_plies=40, tc="depth=1"
    )
    run_tournament(config, tmp_path / "local", progress=False)
    with games_run_by(ray_runner()):
        run_tournament(config, tmp_path / "ray", progress=False)
    local, ray_games = _results(tmp_path / "local"), _results(tmp_path / "ray")
    assert len(local) == 4 and ray_games == local  # depth-limited: the same games
    # A tournament played on Ray and cut short resumes on the local pool, and back.
    with sqlite3.connect(tmp_path / "ray" / "results.sqlite") as db:
        db.execute("DELETE FROM games WHERE id IN (1, 3)")
    run_tournament(config, tmp_path / "ray", resume=True, progress=False)
    assert _results(tmp_path / "ray") == local
    with sqlite3.connect(tmp_path / "local" / "results.sqlite") as db:
        db.execute("DELETE FROM games WHERE id = 0")
    with games_run_by(ray_runner()):
        run_tournament(config, tmp_path / "local", resume=True, progress=False)
    assert _results(tmp_path / "local") == local


def test_commands_with_the_ray_backend(ray_cluster: None, tmp_path: Path) -> None:
    tour = tmp_path / "tour"
    args = ["hand-set", "random:2", "--tc", "depth=1", "--max-plies", "30", "--quiet"]
    assert main(["tournament", *args, "--out", str(tour), "--backend", "ray"]) == 0
    assert len(_results(tour)) == 2
    run = tmp_path / "train"
    train = ["train", "--preset", "quick", "--games", "2", "--depth", "1", "--max-plies", "16"]
    assert main([*train, "--out", str(run), "--backend", "ray", "--actors", "2"]) == 0
    assert [r["game"] for r in metric_rows(run)] == [1, 2]
    assert check_training_run(run).ok
