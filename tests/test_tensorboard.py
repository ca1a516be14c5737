"""``--tensorboard``: a training run's scalars read back from its event files equal its
``metrics.jsonl`` (one process or actors); logging leaves the weights bit for bit as
they are; a resumed run carries the log on with every game once; a new fit of
checkpoint ratings replaces the last; a missing package is an error line, not a
traceback."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
from test_distributed import InProcessBackend
from test_training_run import metric_rows, quick

from treestrap.cli import main
from treestrap.distributed.learner import train_distributed
from treestrap.evaluation.weight_files import load_weights
from treestrap.reproduce.serban2014.selfplay import run_dir, with_tensorboard
from treestrap.training.config import TrainConfig, network_config
from treestrap.training.run import train
from treestrap.training.tensorboard_log import (
    GAMES_PER_HOUR,
    METRIC_TAGS,
    PIECE_VALUES,
    STEP_SIZE,
    game_step_size,
    last_game_logged,
    log_ratings,
)

GAMES = 3


def tiny(games: int = GAMES, **changes: object) -> TrainConfig:
    # A decaying step, so that the logged step size differs from game to game.
    return quick("treestrap-ab", games, seed=5, max_plies=30, step_decay=2.0, **changes)


def scalars(folder: Path) -> dict[str, list[tuple[int, float]]]:
    """Every scalar series in ``folder``, as TensorBoard's own loader reads it."""
    board = EventAccumulator(str(folder))
    board.Reload()
    return {tag: [(s.step, s.value) for s in board.Scalars(tag)] for tag in board.Tags()["scalars"]}


def steps_on_disk(folder: Path) -> list[int]:
    """The step of every event with scalars in ``folder``'s files, repeats included."""
    steps = []
    for path in sorted(folder.glob("*tfevents*")):
        steps += [e.step for e in EventFileLoader(str(path)).Load() if e.summary.value]
    return sorted(steps)


def f32(value: float) -> float:
    """What a scalar event keeps of a value (a 32-bit float)."""
    return float(np.float32(value))


@pytest.fixture(scope="module")
def logged_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("logged")
    train(tiny(tensorboard=str(folder / "tb")), folder / "run")
    return folder / "run", folder / "tb"


def test_the_scalars_are_the_metrics_lines(logged_run: tuple[Path, Path]) -> None:
    run, board = logged_run
    rows = metric_rows(run)
    series = scalars(board)
    games = list(range(1, GAMES + 1))
    assert [row["game"] for row in rows] == games
    for tag, field in METRIC_TAGS.items():
        expected = [(r["game"], f32(r[field])) for r in rows if r.get(field) is not None]
        assert series.get(tag, []) == expected, tag
    assert series["error/mean_abs_delta"] and series["weights/norm"] and series["speed/nps"]
    hourly = [(r["game"], f32(3600 / r["seconds"])) for r in rows]
    assert series[GAMES_PER_HOUR] == hourly
    # Piece values: the meep material weights, in centipawns as metrics.jsonl has them.
    for piece in ("pawn", "knight", "bishop", "rook", "queen"):
        expected = [(r["game"], f32(r["material"][piece])) for r in rows]
        assert series[PIECE_VALUES + piece] == expected
    # The step halves after step_decay (2) games: 1, 2/3, 1/2 of the rule's step.
    steps = [value for _, value in series[STEP_SIZE]]
    base = steps[0]
    assert steps == pytest.approx([base, base * 2 / 3, base / 2], rel=1e-6)
    assert base == f32(game_step_size(tiny(), 1))


def test_logging_leaves_the_run_as_it_is(logged_run: tuple[Path, Path], tmp_path: Path) -> None:
    run, _ = logged_run
    train(tiny(), tmp_path / "plain")
    logged = load_weights(run / "weights.npz").weights
    plain = load_weights(tmp_path / "plain" / "weights.npz").weights
    assert logged.tobytes() == plain.tobytes()
    # config.json records what the run computes, not where it reports.
    assert (run / "config.json").read_text() == (tmp_path / "plain" / "config.json").read_text()
    assert "tensorboard" not in (run / "config.json").read_text()


def test_a_resumed_run_logs_every_game_once(tmp_path: Path) -> None:
    board = tmp_path / "tb"
    run = tmp_path / "run"
    train(tiny(games=1, tensorboard=str(board)), run)
    assert steps_on_disk(board) == [1]
    # A stretch without the log (game 2), then the log again: caught up from
    # metrics.jsonl, no game lost or written twice.
    train(tiny(games=2), run, resume=True)
    train(tiny(games=GAMES, tensorboard=str(board)), run, resume=True)
    assert steps_on_disk(board) == [1, 2, 3]
    assert last_game_logged(board) == GAMES
    rows = metric_rows(run)
    assert scalars(board)["game/plies"] == [(r["game"], f32(r["plies"])) for r in rows]
    # Resumed when finished: nothing new, nothing repeated.
    train(tiny(tensorboard=str(board)), run, resume=True)
    assert steps_on_disk(board) == [1, 2, 3]


def test_a_run_of_actors_logs_as_one_process_does(tmp_path: Path) -> None:
    board = tmp_path / "tb"
    train_distributed(
        tiny(2, tensorboard=str(board)), str(tmp_path / "run"), 1, InProcessBackend(1)
    )
    rows = metric_rows(tmp_path / "run")
    series = scalars(board)
    assert series["distributed/staleness"] == [(r["game"], f32(r["staleness"])) for r in rows]
    assert series["weights/norm"] == [(r["game"], f32(r["weight_norm"])) for r in rows]


def test_a_new_run_refuses_a_log_of_another(logged_run: tuple[Path, Path], tmp_path: Path) -> None:
    _, board = logged_run
    with pytest.raises(ValueError, match="already holds the games of another run"):
        train(tiny(tensorboard=str(board)), tmp_path / "other")
    assert not (tmp_path / "other").exists()


def test_a_new_fit_of_ratings_replaces_the_last(tmp_path: Path) -> None:
    folder = tmp_path / "ratings"
    log_ratings(folder, [(0, 250.0, np.nan, np.nan), (10, 400.0, 350.0, 450.0)])
    log_ratings(folder, [(0, 250.0, np.nan, np.nan), (20, 420.0, 380.0, 460.0)])
    series = scalars(folder)
    assert series["rating/elo"] == [(0, 250.0), (20, 420.0)]
    assert series["rating/lower95"] == [(20, 380.0)]


def test_serban_self_play_runs_log_one_folder_each(tmp_path: Path) -> None:
    config = network_config("logreg", games=1)
    logged = with_tensorboard(config, tmp_path / "tb", "RL-LogReg")
    # The TensorBoard run is named as the run directory is.
    assert logged.tensorboard == str(tmp_path / "tb" / run_dir(tmp_path, "RL-LogReg").name)
    assert logged.tensorboard.endswith("rl-logreg")
    assert with_tensorboard(config, None, "RL-LogReg") is config


def test_a_missing_package_is_an_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    for name in [m for m in sys.modules if m == "tensorboard" or m.startswith("tensorboard.")]:
        monkeypatch.setitem(sys.modules, name, None)
    run = tmp_path / "run"
    argv = ["train", "--preset", "quick", "--games", "1", "--out", str(run)]
    assert main([*argv, "--tensorboard", str(tmp_path / "tb")]) == 2
    err = capsys.readouterr().err
    assert "pip install 'treestrap[tensorboard]'" in err and "Traceback" not in err
    assert not run.exists()


def test_the_command_line_carries_the_log_on(tmp_path: Path) -> None:
    run, board = tmp_path / "run", tmp_path / "tb"
    argv = ["train", "--preset", "quick", "--max-plies", "20", "--out", str(run)]
    assert main([*argv, "--games", "1", "--tensorboard", str(board)]) == 0
    assert main(["train", "--resume", str(run), "--games", "2", "--tensorboard", str(board)]) == 0
    assert steps_on_disk(board) == [1, 2]


def test_a_connect4_run_logs_its_metrics_lines(tmp_path: Path) -> None:
    from treestrap.training.config import game_config

    config = game_config(
        "connect4",
        algorithm="treestrap-ab",
        games=4,
        depth=2,
        seed=3,
        tensorboard=str(tmp_path / "tb"),
    )
    train(config, tmp_path / "run")
    rows = metric_rows(tmp_path / "run")
    series = scalars(tmp_path / "tb")
    assert [r["game"] for r in rows] == [1, 2, 3, 4]
    for tag in ("error/mean_abs_delta", "weights/norm", "game/plies"):
        field = METRIC_TAGS[tag]
        assert series[tag] == [(r["game"], f32(r[field])) for r in rows], tag
    assert not any(tag.startswith(PIECE_VALUES) for tag in series)  # no chess material
