"""The Ray backend on a local 2-CPU cluster: a training run with an actor killed
mid-game, a tournament that gives the local pool's results and resumes across backends,
and the commands' ``--backend ray``. Ray is in the ``dev`` extra: without it these
skip with a message (and fail under CI=true)."""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import os
import signal
import sqlite3
from pathlib import Path

from conftest import require
from kill_checks import check_training_run

from treestrap.cli import main
from treestrap.distributed.learner import LearnerStats, train_distributed
from treestrap.distributed.ray_games import ray_runner
from treestrap.distributed.ray_support import MULTI_MACHINE_ENV, bound_hosts, is_loopback
from treestrap.evaluation.weight_files import load_weights
from treestrap.play.gamepool import games_run_by
from treestrap.play.tournament import TournamentConfig, run_tournament
from treestrap.training.config import TrainConfig, apply_preset


def _listening(port: int) -> list[str]:
    """The addresses that sockets listening on TCP ``port`` are bound to (Linux's
    /proc/net tables: hexadecimal, each 32-bit word in the host's byte order)."""
    found = []
    for table in (Path("/proc/net/tcp"), Path("/proc/net/tcp6")):
        for line in table.read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            host, hex_port = local.split(":")
            if state != "0A" or int(hex_port, 16) != port:  # 0A: LISTEN
                continue
            raw = b"".join(
                int(host[i : i + 8], 16).to_bytes(4, "little") for i in range(0, len(host), 8)
            )
            address = ipaddress.ip_address(raw)
            if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
                address = address.ipv4_mapped
            found.append(str(address))
    return found


def test_a_local_cluster_listens_on_127_0_0_1_only(ray_cluster: None) -> None:
    import ray

    hosts = bound_hosts(ray)
    assert len(hosts) >= 2 and all(map(is_loopback, hosts)), hosts
    require(Path("/proc/net/tcp").exists(), "the listening sockets are read from /proc/net")
    gcs_port = int(ray.get_runtime_context().gcs_address.rsplit(":", 1)[1])
    node_ports = [node["NodeManagerPort"] for node in ray.nodes() if node["Alive"]]
    for port in [gcs_port, *node_ports]:
        bound = _listening(port)
        assert bound and all(address == "127.0.0.1" for address in bound), (port, bound)
    # set for the processes Ray starts while the session lasts (ray_support restores it)
    assert os.environ.get(MULTI_MACHINE_ENV) == "0"


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
