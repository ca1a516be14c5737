"""Supervised training runs: early stopping, resuming a killed run, checkpoints and
datasets that do not match, the report, and ``convert`` into engine weights."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from test_supervised_support import (
    data_of,
    random_boards,
    split_from_boards,
    split_from_dense,
    thirds,
)

from treestrap.cli import main
from treestrap.core.notation import parse_fen
from treestrap.evaluation.weight_files import load_weights
from treestrap.supervised.checkpoint import (
    BEST,
    LAST,
    CheckpointError,
    load_checkpoint,
    save_checkpoint,
)
from treestrap.supervised.convert import CENTIPAWNS_PER_LOGIT, centipawns, convert
from treestrap.supervised.errors import SupervisedError
from treestrap.supervised.inputs import encode
from treestrap.supervised.report import report
from treestrap.supervised.train import TrainConfig, evaluate, train_run, train_trial

torch.set_num_threads(1)
PNG = b"\x89PNG\r\n\x1a\n"


class Killed(Exception):
    """Stands in for a process killed right after an epoch's checkpoint."""


def _noisy_data(n: int = 600, seed: int = 0):
    """A weak rule under label noise, on few positions: a model that overfits, so the
    validation accuracy rises and falls over the epochs."""
    rng = np.random.default_rng(seed)
    dense = (rng.random((n, 769)) < 0.05).astype(np.float32)
    dense[:, 768] = rng.random(n) < 0.5
    signal = dense[:, 5] + dense[:, 70] - dense[:, 300]
    y = np.where(signal > 0, 0, np.where(signal < 0, 2, 1))
    flip = rng.random(n) < 0.35
    y[flip] = rng.integers(0, 3, flip.sum())
    return data_of(*thirds(split_from_dense(dense, y)))


def test_early_stopping_keeps_the_epoch_of_best_validation_accuracy(tmp_path) -> None:
    data = _noisy_data()
    config = TrainConfig(
        model="mlp", hidden=(16,), epochs=40, lr=0.5, batch_size=10, momentum=0.5, patience=3
    )
    result = train_trial(data, config, tmp_path, seed=0)
    accuracies = [r["validation_accuracy"] for r in result.history]
    best = int(np.argmax(accuracies)) + 1  # first epoch of the maximum
    assert result.best_epoch == best
    assert result.epochs_run == min(40, best + 3) < 40  # it did stop early
    assert max(accuracies) > accuracies[-1]  # a later epoch was worse: not trivially last
    # the model kept is that epoch's: its validation accuracy is the recorded best
    model = load_checkpoint(tmp_path / BEST).model()
    assert evaluate(model, data.validation, data.encoding).accuracy == max(accuracies)
    lines = (tmp_path / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(line)["epoch"] for line in lines] == list(range(1, result.epochs_run + 1))
    for key in ("loss", "train_accuracy", "validation_accuracy", "seconds", "positions_per_second"):
        assert key in json.loads(lines[0])


def test_a_killed_training_resumes_to_the_same_result(tmp_path) -> None:
    data = _noisy_data()
    config = TrainConfig(
        model="mlp",
        hidden=(6,),
        epochs=5,
        lr=0.3,
        batch_size=20,
        momentum=0.8,
        lr_decay=2.0,
        mean_subtract=True,
    )
    whole = train_trial(data, config, tmp_path / "whole", seed=7)

    def kill_after_two(record: dict) -> None:
        if record["epoch"] == 2:
            raise Killed

    with pytest.raises(Killed):
        train_trial(data, config, tmp_path / "split", seed=7, on_epoch_end=kill_after_two)
    # a metrics line written after the last checkpoint is dropped on resume
    with (tmp_path / "split" / "metrics.jsonl").open("a") as fh:
        fh.write(json.dumps({"epoch": 3, "stray": True}) + "\n")
    resumed = train_trial(data, config, tmp_path / "split", seed=7, resume=True)
    assert resumed.best_epoch == whole.best_epoch
    assert resumed.result["confusion"] == whole.result["confusion"]
    assert resumed.result["test_accuracy"] == whole.result["test_accuracy"]
    a = load_checkpoint(tmp_path / "whole" / LAST)
    b = load_checkpoint(tmp_path / "split" / LAST)
    for key, value in a.state.items():
        assert torch.equal(value, b.state[key]), key
    strip = [
        {k: v for k, v in r.items() if k not in ("seconds", "positions_per_second")}
        for r in whole.history
    ]
    lines = (tmp_path / "split" / "metrics.jsonl").read_text().splitlines()
    got = [
        {k: v for k, v in json.loads(x).items() if k not in ("seconds", "positions_per_second")}
        for x in lines
    ]
    assert got == strip


def test_resuming_with_other_options_or_another_dataset_is_refused(tmp_path) -> None:
    data = _noisy_data()
    config = TrainConfig(model="logreg", epochs=2, lr=0.1)
    train_run(data, config, tmp_path)
    with pytest.raises(SupervisedError, match="already holds a run"):
        train_run(data, config, tmp_path)
    with pytest.raises(SupervisedError, match=r"other options \(lr 0.1 -> 0.2\)"):
        train_run(data, TrainConfig(model="logreg", epochs=2, lr=0.2), tmp_path, resume=True)
    other = data_of(data.train, data.validation, data.test, manifest_hash="fedcba9876543210")
    with pytest.raises(SupervisedError, match="another dataset"):
        train_run(other, config, tmp_path, resume=True)
    with pytest.raises(CheckpointError, match="another dataset"):
        train_trial(other, config, tmp_path / "trial-0", seed=0, resume=True)
    # more epochs are allowed; finished trials are kept, a new one is trained
    results = train_run(
        data, TrainConfig(model="logreg", epochs=3, lr=0.1, trials=2), tmp_path, resume=True
    )
    assert [r.epochs_run for r in results] == [2, 3]


def test_mismatched_checkpoints_are_refused_with_the_reason(tmp_path) -> None:
    data = _noisy_data()
    train_trial(data, TrainConfig(model="logreg", epochs=1), tmp_path, seed=0)
    good = load_checkpoint(tmp_path / BEST)

    def altered(**changes) -> Path:
        ckpt = load_checkpoint(tmp_path / BEST)
        ckpt.header.update(changes)
        path = tmp_path / f"altered-{len(list(tmp_path.glob('altered-*')))}.pt"
        save_checkpoint(path, ckpt)
        return path

    with pytest.raises(CheckpointError, match="version 2, this build reads version 1"):
        load_checkpoint(altered(version=2))
    with pytest.raises(CheckpointError, match="another layout of feature set 'bitboard'"):
        load_checkpoint(altered(layouts={"bitboard": "0000000000000000"}))
    with pytest.raises(CheckpointError, match="unknown model kind 'svm'"):
        load_checkpoint(altered(model="svm"))
    with pytest.raises(CheckpointError, match="do not fit features 'meep'"):
        load_checkpoint(altered(features="meep"))
    with pytest.raises(CheckpointError, match="weights do not fit a mlp"):
        load_checkpoint(altered(model="mlp", sizes={"hidden": [4]}))
    with pytest.raises(CheckpointError, match="format tag missing"):
        load_checkpoint(altered(format="something-else"))
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint at all")
    with pytest.raises(CheckpointError, match="not a readable checkpoint"):
        load_checkpoint(junk)
    with pytest.raises(CheckpointError, match="no such checkpoint"):
        load_checkpoint(tmp_path / "missing.pt")
    assert good.header["features"] == "bitboard" and good.header["frame"] == "white"
    assert set(good.header) >= {"format", "version", "model", "sizes", "layouts", "dataset"}


def _runs(tmp_path: Path) -> list[Path]:
    data = _noisy_data(n=450)
    runs = []
    for name, config in (
        ("logreg-bitboard", TrainConfig(model="logreg", epochs=2, lr=0.1, trials=2)),
        ("mlp-10", TrainConfig(model="mlp", hidden=(10,), epochs=2, lr=0.2)),
    ):
        train_run(data, config, tmp_path / name)
        runs.append(tmp_path / name)
    return runs


def test_report_lines_tables_and_plots(tmp_path) -> None:
    runs = _runs(tmp_path)
    text, written = report(runs, tmp_path / "report")
    results = [json.loads((runs[0] / f"trial-{k}" / "result.json").read_text()) for k in (0, 1)]
    accuracies = np.array([r["test_accuracy"] for r in results])
    line = (
        f"logreg-bitboard test accuracy {100 * accuracies.mean():.2f}% +- "
        f"{100 * accuracies.std(ddof=1):.2f} (2 trials)"
    )
    assert line in text.splitlines()
    assert any(
        x.startswith("mlp-10 test accuracy ") and x.endswith("(1 trial)") for x in text.splitlines()
    )
    confusion = np.sum([r["confusion"] for r in results], axis=0)
    row = text.split("true \\ predicted")[1].splitlines()[1].split()
    assert row[:2] == ["white", "wins"] and [int(v) for v in row[2:]] == confusion[0].tolist()
    counts = np.array(results[0]["class_counts"])
    assert f"{100 * counts.max() / counts.sum():.2f}%" in text  # our test split's baseline
    for figure in ("40.95%", "57.34%", "64.48%", "~60-61%", "62.1-63.3%", "67.00%"):
        assert figure in text
    for name in ("accuracy-by-move.png", "accuracy-by-epoch.png"):
        assert (tmp_path / "report" / name).read_bytes().startswith(PNG)
    assert (tmp_path / "report" / "report.txt").read_text() == text
    assert set(written) >= {tmp_path / "report" / "report.txt"}


def test_report_cli_and_its_errors(tmp_path, capsys) -> None:
    runs = _runs(tmp_path)
    assert main(["supervised", "report", *map(str, runs), "--out", str(tmp_path / "r")]) == 0
    assert "mlp-10 test accuracy" in capsys.readouterr().out
    assert main(["supervised", "report", str(tmp_path / "nothing")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "not a supervised run" in err and "Traceback" not in err


def _real_split():
    boards = random_boards(8, seed=21)
    results = [(i // 7) % 3 for i in range(len(boards))]
    return boards, split_from_boards(boards, results)


@pytest.mark.parametrize("features", ["meep", "bitboard"])
def test_convert_gives_the_engine_the_models_centipawns(tmp_path, features) -> None:
    boards, split = _real_split()
    data = data_of(*thirds(split), features=features)
    config = TrainConfig(
        model="logreg", features=features, epochs=3, lr=0.05, mean_subtract=True, batch_size=16
    )
    train_run(data, config, tmp_path / "run")
    out = tmp_path / "w.npz"
    assert main(["supervised", "convert", str(tmp_path / "run"), "--out", str(out)]) == 0
    weights = load_weights(out)  # the engine's own checks pass
    assert weights.feature_set.name == features
    assert weights.metadata["mapping"] == "cp = (400 / ln 10) * (z_win - z_loss)"
    assert weights.metadata["centipawns_per_logit"] == pytest.approx(173.7178, abs=1e-4)
    model = load_checkpoint(tmp_path / "run" / "trial-0" / BEST).model()
    assert float(model.input_mean.abs().sum()) > 0  # the mean really is folded in
    rows = np.arange(len(boards))
    cp = centipawns(model, encode(split, data.encoding, rows))
    assert np.abs(cp).max() > 1.0  # the model says something
    # the engine scores for the side to move; a bitboard model predicts for white
    sign = np.where(split.white_to_move, 1.0, -1.0) if features == "bitboard" else 1.0
    engine = np.array([weights.evaluate(parse_fen(b.fen())) for b in boards])
    np.testing.assert_allclose(engine, sign * cp, rtol=1e-4, atol=1e-3)
    # and the definition of the mapping, on the raw class scores
    with torch.no_grad():
        z = model(torch.from_numpy(encode(split, data.encoding, rows[:3]))).double().numpy()
    np.testing.assert_allclose(cp[:3], CENTIPAWNS_PER_LOGIT * (z[:, 0] - z[:, 2]), rtol=1e-6)


def test_convert_refuses_what_has_no_engine_form(tmp_path, capsys) -> None:
    data = _noisy_data(n=300)
    train_run(data, TrainConfig(model="moe", epochs=1), tmp_path / "moe")
    with pytest.raises(SupervisedError, match="only logreg and mlp models run as networks"):
        convert(tmp_path / "moe")
    assert (
        main(["supervised", "convert", str(tmp_path / "none"), "--out", str(tmp_path / "w.npz")])
        == 2
    )
    assert capsys.readouterr().err.startswith("error: ")


def test_train_cli_refuses_bad_input_with_one_line(tmp_path, capsys) -> None:
    out = str(tmp_path / "run")
    cases = [
        (["--model", "convnet", "--features", "meep"], "reads bitboard planes"),
        (["--model", "stockfish", "--features", "bitboard"], "reads --features stockfish"),
        (["--nesterov"], "--nesterov needs --momentum > 0"),
        (["--moe-training", "em"], "applies to --model moe only"),
        (["--model", "convnet", "--conv", "5x5,5x5"], "fit an 8 x 8 board"),
        (["--lr", "-1"], "--lr must be > 0"),
    ]
    for extra, message in cases:
        code = main(["supervised", "train", "--data", str(tmp_path / "d"), "--out", out, *extra])
        err = capsys.readouterr().err
        assert code == 2, extra
        assert err.startswith("error: ") and message in err and err.count("\n") == 1, err
    with pytest.raises(SystemExit) as exc:
        main(["supervised", "train", "--data", "d", "--out", out, "--conv", "4x3"])
    assert exc.value.code == 2
    assert "expected square kernels" in capsys.readouterr().err


def _write_games(path: Path, n: int, seed: int) -> None:
    import random

    import chess
    import chess.pgn

    rng = random.Random(seed)
    with path.open("w") as fh:
        for g in range(n):
            board = chess.Board()
            for _ in range(rng.randrange(20, 60)):
                moves = list(board.legal_moves)
                if not moves:
                    break
                board.push(rng.choice(moves))
            game = chess.pgn.Game.from_board(board)
            game.headers["Event"] = f"test {g}"
            game.headers["Result"] = (
                board.result() if board.is_game_over() else ["1-0", "0-1", "1/2-1/2"][g % 3]
            )
            print(game, file=fh, end="\n\n")


def test_train_report_convert_on_a_built_dataset(tmp_path, capsys) -> None:
    """The command line from PGN to weights, through `treestrap dataset build`."""
    pgn = tmp_path / "games.pgn"
    _write_games(pgn, 30, seed=1)
    data = tmp_path / "data"
    build = ["dataset", "build", str(pgn), "--out", str(data), "--jobs", "1", "--no-progress"]
    assert main(build) == 0
    run = tmp_path / "run"
    train = [
        "supervised",
        "train",
        "--data",
        str(data),
        "--out",
        str(run),
        "--features",
        "meep",
        "--epochs",
        "2",
        "--threads",
        "1",
        "--batch-size",
        "50",
    ]
    assert main(train) == 0
    out = capsys.readouterr().out
    assert "trial-0: best epoch" in out and "mean test accuracy" in out
    assert main(["supervised", "report", str(run)]) == 0
    assert "run test accuracy" in capsys.readouterr().out
    assert (run / "report" / "accuracy-by-epoch.png").read_bytes().startswith(PNG)
    assert main(["supervised", "convert", str(run), "--out", str(tmp_path / "w.npz")]) == 0
    assert load_weights(tmp_path / "w.npz").metadata["dataset_manifest_hash"]
    # the same run cannot continue on a dataset built with other options
    other = tmp_path / "other"
    assert main([*build[:4], str(other), "--jobs", "1", "--no-progress", "--seed", "5"]) == 0
    capsys.readouterr()
    resume = [*train[:3], str(other), *train[4:], "--epochs", "3", "--resume"]
    assert main(resume) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "another dataset" in err
    # and no dataset at all is one line too
    assert (
        main(
            ["supervised", "train", "--data", str(tmp_path / "none"), "--out", str(tmp_path / "r2")]
        )
        == 2
    )
    assert capsys.readouterr().err.startswith("error: dataset directory not found")


def test_without_torch_every_command_says_how_to_install_it(tmp_path) -> None:
    import subprocess
    import sys

    script = """
import builtins
real = builtins.__import__
def no_torch(name, *args, **kwargs):
    if name == "torch" or name.startswith("torch."):
        raise ImportError("No module named 'torch'")
    return real(name, *args, **kwargs)
builtins.__import__ = no_torch
from treestrap.cli import main
commands = (["train", "--data", "d", "--out", "r"], ["report", "r"], ["convert", "r", "--out", "w"])
for argv in commands:
    assert main(["supervised", *argv]) == 2
"""
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 3 and all('pip install -e ".[torch]"' in line for line in lines), lines


def test_checkpoints_get_the_permissions_the_umask_gives(tmp_path) -> None:
    """Not mkstemp's 0600: under umask 022 others can read a checkpoint."""
    import os
    import stat

    old = os.umask(0o022)
    try:
        train_trial(_noisy_data(), TrainConfig(model="logreg", epochs=1), tmp_path, seed=0)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / BEST).stat().st_mode) == 0o644
