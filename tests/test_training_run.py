"""Training runs end to end: a short TreeStrap(alpha-beta) run learns something, every
algorithm runs, runs are deterministic by depth, and a killed run resumes into the
same result."""

from __future__ import annotations

import dataclasses
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest
from search_helpers import random_positions

from treestrap.core.notation import parse_fen
from treestrap.evaluation.presets import random_model
from treestrap.evaluation.weight_files import load_weights
from treestrap.evaluation.weights import LinearModel
from treestrap.learn.rules import ALGORITHM_NAMES
from treestrap.search.training import TrainingSearch
from treestrap.training import run as run_module
from treestrap.training.checkpoints import is_log_checkpoint
from treestrap.training.config import TrainConfig, apply_preset
from treestrap.training.run import train

REPO_ROOT = Path(__file__).resolve().parents[1]
PAWN, QUEEN = 0, 4  # meep: material/pawn, material/queen

# --- helpers -------------------------------------------------------------------------


def quick(algorithm: str, games: int, seed: int = 0, **changes) -> TrainConfig:
    config = apply_preset(TrainConfig(algorithm=algorithm, games=games, seed=seed), "quick")
    return dataclasses.replace(config, **changes)


def metric_rows(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]


def pgn_games(run: Path) -> list[chess.pgn.Game]:
    games = []
    with open(run / "games.pgn", encoding="utf-8") as fh:
        while (game := chess.pgn.read_game(fh)) is not None:
            assert not game.errors, game.errors
            games.append(game)
    return games


def checkpoint_numbers(run: Path) -> list[int]:
    return sorted(int(p.stem.split("-")[1]) for p in (run / "checkpoints").glob("*.npz"))


def searched_mse(model: LinearModel, fens: list[str], depth: int = 3) -> float:
    """Mean squared error between H(s) and the depth-``depth`` search value (clipped)."""
    ev = model.evaluator()
    search = TrainingSearch(tt_bits=16)
    errors = []
    for fen in fens:
        h = model.evaluate(parse_fen(fen))
        v = float(np.clip(search.search(parse_fen(fen), ev, depth).value, -9900.0, 9900.0))
        errors.append((v - h) ** 2)
    return float(np.mean(errors))


# --- a short TreeStrap(alpha-beta) run learns -----------------------------------------

LEARNING_GAMES = 40
#: Initial weights uniform in [-30, 30] (the default is [-1, 1]). The squared error of
#: H against the search value grows with the square of the weights' scale, so from the
#: default start, where H is nearly 0 everywhere, any learning raises it (16.6 -> 1247
#: over 60 games of this run with scale 1, while the piece values grow as they should):
#: only from a noisy start can the error show the learning.
LEARNING_SCALE = 30.0
#: Held out: positions 4 to 16 random plies from the start, not from the training games
#: (which start from book lines). Later, wilder positions make depth-3 searches with the
#: noisy initial weights slow (millions of quiescence nodes), and a position with a mate
#: in reach puts a (9900 - H)^2 term in the mean that swamps everything else.
HELD_OUT = random_positions(30, seed=20240607, min_ply=4, max_ply=16)


def test_short_treestrap_run_learns(tmp_path: Path) -> None:
    config = dataclasses.replace(
        quick("treestrap-ab", LEARNING_GAMES, seed=1),
        depth=3,
        init_scale=LEARNING_SCALE,
        checkpoint_every=LEARNING_GAMES,
        # Every weight learns, as in the paper: this checks the update rule against its
        # own objective. (A frozen tempo, the default, plays better but cannot absorb
        # the searched values' side-to-move bias, so its squared error falls slower.)
        freeze=[],
    )
    start = time.perf_counter()
    state = train(config, tmp_path)
    seconds = time.perf_counter() - start
    assert state.games == LEARNING_GAMES
    initial = load_weights(tmp_path / "checkpoints" / "game-000000.npz")
    final = load_weights(tmp_path / "weights.npz")
    assert np.array_equal(initial.weights, random_model("meep", 1, LEARNING_SCALE).weights)
    before = searched_mse(initial, HELD_OUT)
    after = searched_mse(final, HELD_OUT)
    w = final.weights
    print(
        f"\n{LEARNING_GAMES} games in {seconds:.1f} s; held-out MSE {before:.1f} -> {after:.1f}"
        f" ({after / before:.3f}); material before {np.round(initial.weights[:5], 2)}"
        f" after {np.round(w[:5], 2)}"
    )
    assert after < before
    assert w[QUEEN] > w[PAWN]
    assert w[PAWN] > 0


# --- every algorithm runs --------------------------------------------------------------


@pytest.mark.parametrize("algorithm", list(ALGORITHM_NAMES))
def test_every_algorithm_runs_two_quick_games(tmp_path: Path, algorithm: str) -> None:
    # Short games and small minimax trees: the quick preset's budgets cost about 0.5 s
    # a search, ~25 s a game of 60 plies.
    config = quick(algorithm, 2, seed=3, max_plies=40, minimax_nodes=300, minimax_qnodes=30)
    state = train(config, tmp_path)
    assert state.games == 2
    assert state.wins + state.draws + state.losses == 2
    assert (tmp_path / "config.json").exists()
    final = load_weights(tmp_path / "weights.npz")
    assert final.metadata["algorithm"] == algorithm
    assert final.metadata["games"] == 2
    initial = load_weights(tmp_path / "checkpoints" / "game-000000.npz")
    assert np.array_equal(initial.weights, random_model("meep", 3).weights)
    assert not np.array_equal(final.weights, initial.weights)
    tempo = final.feature_set.names.index("tempo")  # frozen by default
    assert final.weights[tempo] == initial.weights[tempo]
    assert checkpoint_numbers(tmp_path) == [0, 1, 2]
    assert np.array_equal(
        load_weights(tmp_path / "checkpoints" / "game-000002.npz").weights, final.weights
    )
    games = pgn_games(tmp_path)
    assert [g.headers["Round"] for g in games] == ["1", "2"]
    rows = metric_rows(tmp_path)
    assert [r["game"] for r in rows] == [1, 2]
    for row, game in zip(rows, games, strict=True):
        assert row["result"] == game.headers["Result"] in ("1-0", "0-1", "1/2-1/2")
        assert row["nodes"] > 0
        assert set(row["material"]) == {"pawn", "knight", "bishop", "rook", "queen"}
    assert rows[-1]["material"]["pawn"] == round(float(final.weights[PAWN]), 3)


# --- determinism and resuming ----------------------------------------------------------

RESUME_GAMES = 8


def resume_config() -> TrainConfig:
    return quick("treestrap-ab", RESUME_GAMES, seed=5, checkpoint_every=2, max_plies=80)


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("reference")
    train(resume_config(), run)
    return run


def test_same_seed_same_weights(reference_run: Path, tmp_path: Path) -> None:
    train(resume_config(), tmp_path)
    a = load_weights(reference_run / "weights.npz").weights
    b = load_weights(tmp_path / "weights.npz").weights
    assert np.array_equal(a, b)
    moves_a = [[m.uci() for m in g.mainline_moves()] for g in pgn_games(reference_run)]
    moves_b = [[m.uci() for m in g.mainline_moves()] for g in pgn_games(tmp_path)]
    assert moves_a == moves_b
    drop = {"seconds", "nps", "cpu_seconds", "cpu_total"}  # timings
    rows_a = [{k: v for k, v in r.items() if k not in drop} for r in metric_rows(reference_run)]
    rows_b = [{k: v for k, v in r.items() if k not in drop} for r in metric_rows(tmp_path)]
    assert rows_a == rows_b


_CHILD = """
import sys
from treestrap.training.config import TrainConfig
from treestrap.training.run import train
train(TrainConfig(**{config!r}), sys.argv[1])
"""


def test_resume_after_kill(reference_run: Path, tmp_path: Path) -> None:
    config = resume_config()
    run = tmp_path / "run"
    code = _CHILD.format(config=dataclasses.asdict(config))
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(run)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    metrics = run / "metrics.jsonl"
    deadline = time.monotonic() + 180
    try:
        while True:
            lines = metrics.read_text().count("\n") if metrics.exists() else 0
            if lines >= 2:
                break
            if proc.poll() is not None:
                pytest.fail(f"the run ended before it was killed: {proc.communicate()[1][-2000:]}")
            if time.monotonic() > deadline:
                pytest.fail("no two games within 180 s")
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run finished before the kill"
    # The kill may land after game 2's records but before its weights: then game 2 is
    # replayed on resume.
    killed_at = load_weights(run / "weights.npz").metadata["games"]
    assert 1 <= killed_at < RESUME_GAMES
    print(f"\nkilled after {killed_at} saved games ({lines} metric lines)")

    state = train(config, run, resume=True)
    assert state.games == RESUME_GAMES
    rows = metric_rows(run)
    assert [r["game"] for r in rows] == list(range(1, RESUME_GAMES + 1))
    games = pgn_games(run)
    assert [g.headers["Round"] for g in games] == [str(i) for i in range(1, RESUME_GAMES + 1)]
    # No checkpoint lost or corrupt.
    assert checkpoint_numbers(run) == [0, 1, 2, 4, 5, 6, 8]
    for path in (run / "checkpoints").glob("*.npz"):
        load_weights(path)
    for n in (0, 2, 4, 6, 8):
        name = f"game-{n:06d}.npz"
        assert np.array_equal(
            load_weights(run / "checkpoints" / name).weights,
            load_weights(reference_run / "checkpoints" / name).weights,
        ), name
    # The same result as a run never interrupted.
    assert np.array_equal(
        load_weights(run / "weights.npz").weights,
        load_weights(reference_run / "weights.npz").weights,
    )
    ref_moves = [[m.uci() for m in g.mainline_moves()] for g in pgn_games(reference_run)]
    assert [[m.uci() for m in g.mainline_moves()] for g in games] == ref_moves


def test_log_spaced_checkpoints() -> None:
    marked = [n for n in range(1, 1001) if is_log_checkpoint(n)]
    assert marked == [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]


def test_time_limit_stops_after_a_game_and_resume_goes_on(tmp_path: Path) -> None:
    config = quick("treestrap-ab", 3, seed=4, max_plies=20)
    state = train(config, tmp_path, time_limit=0.0)
    assert state.games == 0  # the limit was already reached before the first game
    state = train(dataclasses.replace(config, games=0), tmp_path, resume=True, time_limit=1e9)
    assert state.games == 3


def test_frozen_features_keep_their_initial_weights(tmp_path: Path) -> None:
    config = quick("treestrap-ab", 2, seed=6, max_plies=30, freeze=["tempo", "material/queen"])
    train(config, tmp_path)
    start = load_weights(tmp_path / "checkpoints" / "game-000000.npz")
    final = load_weights(tmp_path / "weights.npz")
    names = final.feature_set.names
    frozen = [names.index("tempo"), QUEEN]
    assert np.array_equal(final.weights[frozen], start.weights[frozen])
    assert np.count_nonzero(final.weights != start.weights) > 100
    with pytest.raises(ValueError, match="no feature starts with nonsense"):
        train(dataclasses.replace(config, freeze=["nonsense"]), tmp_path / "bad")
    assert not (tmp_path / "bad").exists()


def test_resume_after_kill_between_weights_and_checkpoint(
    reference_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kill can land after ``weights.npz`` of game 2 is written but before its
    checkpoint is: the resumed run must still end with every checkpoint."""
    save_checkpoint = run_module.save_checkpoint

    class Killed(Exception):
        pass

    def dies_at_game_2(model, config, state, run, origin=None):
        if state.games == 2:
            raise Killed
        save_checkpoint(model, config, state, run, origin)

    monkeypatch.setattr(run_module, "save_checkpoint", dies_at_game_2)
    with pytest.raises(Killed):
        train(resume_config(), tmp_path)
    monkeypatch.setattr(run_module, "save_checkpoint", save_checkpoint)
    train(resume_config(), tmp_path, resume=True)
    assert checkpoint_numbers(tmp_path) == [0, 1, 2, 4, 5, 6, 8]
    assert np.array_equal(
        load_weights(tmp_path / "weights.npz").weights,
        load_weights(reference_run / "weights.npz").weights,
    )


def test_a_resumed_runs_progress_bar_counts_to_the_runs_own_games(tmp_path: Path) -> None:
    from treestrap.commands.train import _saved_games

    train(quick("treestrap-ab", 1, seed=4, max_plies=10), tmp_path)
    assert _saved_games(str(tmp_path)) == 1
    assert _saved_games(str(tmp_path / "missing")) == 0
