"""``treestrap train`` and ``treestrap tournament`` killed with SIGKILL (workers too) at
random moments and resumed: no game lost or doubled, every file readable, and the
training run ends with the weights of a run never interrupted.

The kills are a small version of ``benchmarks/kill_soak.py`` (see ``kill_checks``);
the tests after them put a run directory in the states a kill can leave it in, one by
one, so that each is covered whether or not a random kill happens to produce it.
"""

from __future__ import annotations

import dataclasses
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from kill_checks import (
    check_tournament,
    check_training_run,
    soak,
    summary,
    tournament_soak,
    training_soak,
)

from treestrap.play.results_db import DB_NAME
from treestrap.play.tournament import TournamentConfig, load_config, run_tournament
from treestrap.training.checkpoints import RunState
from treestrap.training.config import TrainConfig
from treestrap.training.run import train

REPO = Path(__file__).resolve().parents[1]


def test_training_killed_four_times_resumes_to_the_uninterrupted_result(tmp_path: Path) -> None:
    result = soak(
        training_soak(games=6), tmp_path, kills=4, rng=random.Random(16), reference=True, log=print
    )
    print(summary("train", result))
    assert result.kills == 4
    assert result.check.ok, result.check.problems
    assert result.check.games == 6 * result.runs


def test_tournament_killed_three_times_resumes_with_every_game_once(tmp_path: Path) -> None:
    result = soak(tournament_soak(), tmp_path, kills=3, rng=random.Random(17), log=print)
    print(summary("tournament", result))
    assert result.kills == 3
    assert result.check.ok, result.check.problems
    assert result.check.games == 6 * result.runs


# --- the states a kill can leave, one by one ---------------------------------------


def _config(games: int = 4) -> TrainConfig:
    return TrainConfig(games=games, depth=1, max_plies=30, seed=2, checkpoint_every=2)


class Killed(Exception):
    pass


def _train_two_games(run: Path) -> None:
    """The 4-game run, stopped (as by a kill) right after game 2 is saved."""

    def stop(summary: object, state: RunState) -> None:
        if state.games == 2:
            raise Killed

    with pytest.raises(Killed):
        train(_config(), run, on_game=stop)


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("reference") / "run"
    train(_config(), run)
    return run


def test_torn_records_and_records_ahead_of_the_weights_are_cut(
    reference_run: Path, tmp_path: Path
) -> None:
    """Killed after game 3's records but before its weights, with game 4's records
    torn (as a full disk or a crash leaves them): resuming keeps games 1-2, replays 3-4."""
    run = tmp_path / "run"
    _train_two_games(run)
    pgn, metrics = (reference_run / "games.pgn").read_text(), reference_run / "metrics.jsonl"
    game_3, game_4 = pgn.split("\n\n[Event ")[2:4]
    lines = metrics.read_text().splitlines()
    with open(run / "games.pgn", "a", encoding="utf-8") as fh:
        fh.write(f"[Event {game_3}\n\n[Event {game_4[:40]}")  # torn in its tags
    with open(run / "metrics.jsonl", "a", encoding="utf-8") as fh:
        fh.write(f"{lines[2]}\n{lines[3][:25]}")
    train(TrainConfig(games=0), run, resume=True)
    check = check_training_run(run, reference=reference_run)
    assert check.ok and check.games == 4, check.problems


def test_temporaries_of_killed_writes_are_removed_on_resume(
    reference_run: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    _train_two_games(run)
    for leftover in (".weights.npz.k2j4.tmp", "checkpoints/.game-000002.npz.x9.tmp"):
        (run / leftover).write_bytes(b"PK\x03\x04 half a zip")
    train(TrainConfig(games=0), run, resume=True)
    assert check_training_run(run, reference=reference_run).ok


def test_a_run_killed_before_its_first_weights_resumes_from_the_start(
    reference_run: Path, tmp_path: Path
) -> None:
    """Only ``config.json`` was written (atomically): ``--resume`` starts the run."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text(json.dumps(dataclasses.asdict(_config())))
    train(TrainConfig(games=0), run, resume=True)
    assert check_training_run(run, reference=reference_run).ok


def test_resuming_a_directory_without_a_run_says_so(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="holds no training run"):
        train(TrainConfig(games=0), tmp_path, resume=True)
    (tmp_path / "config.json").write_text('{"games": 4, "dep')  # not from train
    with pytest.raises(ValueError, match=r"config\.json is not a training config"):
        train(TrainConfig(games=0), tmp_path, resume=True)


#: A tournament whose creation dies (``os._exit``: no cleanup, as SIGKILL) after the
#: tables exist but before the config is stored.
_DIES_CREATING = """
import os, sqlite3, sys
from treestrap.play import results_db
from treestrap.play.tournament import TournamentConfig, run_tournament

class Dying:
    def __init__(self, conn):
        self.conn = conn
    def __getattr__(self, name):
        return getattr(self.conn, name)
    def __enter__(self):
        return self.conn.__enter__()
    def __exit__(self, *exc):
        return self.conn.__exit__(*exc)
    def execute(self, sql, *args):
        if sql.startswith("INSERT INTO meta"):
            self.conn.commit()
            os._exit(9)
        return self.conn.execute(sql, *args)

connect = sqlite3.connect
results_db.sqlite3 = type(sys)("sqlite3_dying")
results_db.sqlite3.__dict__.update(sqlite3.__dict__)
results_db.sqlite3.connect = lambda *a, **k: Dying(connect(*a, **k))
run_tournament(TournamentConfig.from_json(sys.argv[1]), sys.argv[2], progress=False)
"""


def test_a_tournament_killed_while_creating_its_database_starts_again(tmp_path: Path) -> None:
    """Neither a new run nor ``--resume`` could use a database without its config:
    it is built under a temporary name, so the directory holds none at all."""
    run = tmp_path / "run"
    config = TournamentConfig(
        ["hand-set", "random:1"], tc="depth=1", max_plies=30, games_per_pair=2, workers=1
    )
    died = subprocess.run(
        [sys.executable, "-c", _DIES_CREATING, config.to_json(), str(run)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert died.returncode == 9, died.stderr[-2000:]
    assert not (run / DB_NAME).exists()
    assert any(run.glob(".*.tmp*")), "the creation did not get as far as the tables"
    result = run_tournament(config, run, progress=False)
    assert len(result.games) == 2 and load_config(run) == config
    assert not any(run.glob(".*.tmp*"))
    assert check_tournament(run).ok
