"""Provenance written by the tools (``treestrap.evaluation.provenance``): a training
run's and a distilled network's records hold the figures of what made them, the chain
goes back to the random start with hashes that a reader checks, and the shipping tool
takes only files the tools wrote."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from test_training_run import quick

from treestrap.cli import main
from treestrap.evaluation.presets import hand_set_model, random_model
from treestrap.evaluation.provenance import (
    KEY,
    command_line,
    set_command_line,
    stored_weights,
    weights_sha256,
)
from treestrap.evaluation.weight_file_format import read_weight_file, write_weight_file
from treestrap.evaluation.weight_files import load_weights
from treestrap.provenance_audit import commit_is_committed
from treestrap.training.run import train

REPO = Path(__file__).resolve().parents[1]


def record(path: Path) -> dict:
    return load_weights(path).metadata[KEY]


def _ship_tool():
    spec = importlib.util.spec_from_file_location("ship_preset", REPO / "tools/ship_preset.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def self_play_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three self-play games from random weights, through the command line."""
    run = tmp_path_factory.mktemp("prov") / "run"
    argv = ["train", "--preset", "quick", "--games", "3", "--seed", "5", "--max-plies", "40"]
    assert main([*argv, "--out", str(run)]) == 0
    return run


def test_a_training_run_records_its_command_games_cpu_and_random_start(
    self_play_run: Path,
) -> None:
    model = load_weights(self_play_run / "weights.npz")
    prov = model.metadata[KEY]
    assert prov["tool"] == "treestrap train"
    assert prov["command"].startswith("treestrap train --preset quick --games 3 --seed 5")
    assert prov["games"] == {"self-play": 3}
    state = model.metadata["run_state"]
    assert prov["cpu_seconds"] == round(state["cpu_seconds"], 1) > 0
    assert prov["sha256"] == weights_sha256(model.weights)
    (start,) = prov["parents"]
    assert (start["kind"], start["seed"], start["scale"]) == ("random", 5, 1.0)
    drawn = random_model("meep", seed=5, scale=1.0)
    assert start["sha256"] == weights_sha256(drawn.weights)
    assert start["sha256"] == weights_sha256(
        load_weights(self_play_run / "checkpoints" / "game-000000.npz").weights
    )
    assert prov["self_play_only"] is True
    # The checkpoint after game 1 counts one game.
    assert record(self_play_run / "checkpoints" / "game-000001.npz")["games"] == {"self-play": 1}


def test_games_against_an_opponent_or_a_hand_written_start_are_not_self_play(
    tmp_path: Path,
) -> None:
    versus = quick("treestrap-ab", 2, seed=1, max_plies=30, opponent="hand-set", opponent_after=1)
    train(versus, tmp_path / "versus")
    prov = record(tmp_path / "versus" / "weights.npz")
    assert prov["games"] == {"self-play": 1, "hand-set": 1}
    assert prov["self_play_only"] is False
    train(quick("treestrap-ab", 1, seed=1, max_plies=20, init="hand-set"), tmp_path / "hand")
    prov = record(tmp_path / "hand" / "weights.npz")
    (start,) = prov["parents"]
    assert start["kind"] == "hand-written"
    assert start["sha256"] == weights_sha256(hand_set_model().weights)
    assert prov["games"] == {"self-play": 1} and prov["self_play_only"] is False


def test_a_run_started_from_a_file_carries_the_files_record(
    self_play_run: Path, tmp_path: Path
) -> None:
    first = self_play_run / "weights.npz"
    train(quick("treestrap-ab", 1, seed=2, max_plies=20, init=str(first)), tmp_path / "second")
    (start,) = record(tmp_path / "second" / "weights.npz")["parents"]
    assert start["name"] == str(first)
    assert start["sha256"] == weights_sha256(load_weights(first).weights)
    assert start["provenance"] == record(first)
    assert start["self_play_only"] is True


def test_a_resumed_run_keeps_the_command_that_made_it(tmp_path: Path) -> None:
    run = tmp_path / "run"
    base = ["train", "--preset", "quick", "--seed", "3", "--max-plies", "30"]
    assert main([*base, "--games", "1", "--out", str(run)]) == 0
    assert main(["train", "--resume", str(run), "--games", "2"]) == 0
    prov = record(run / "weights.npz")
    assert prov["command"] == "treestrap " + " ".join([*base, "--games", "1", "--out", str(run)])
    assert prov["resumed"] == [
        {"command": f"treestrap train --resume {run} --games 2", "after_games": 1}
    ]
    assert prov["games"] == {"self-play": 2}


def _labelled_fit(
    tmp_path: Path, games: Path, teacher: Path, players: str
) -> tuple[Path, dict, dict]:
    labels, net = tmp_path / f"labels-{players}", tmp_path / f"net-{players}.npz"
    label = ["distill", "label", str(games), "--out", str(labels), "--teacher", str(teacher)]
    assert main([*label, "--depth", "1", "--jobs", "1", "--no-progress", "--players", players]) == 0
    fit = ["distill", "fit", str(labels), "--out", str(net), "--hidden", "4", "--epochs", "1"]
    assert main([*fit, "--linear-part", str(teacher)]) == 0
    settings = json.loads((labels / "labels.json").read_text())
    return net, settings, record(net)


def test_distill_records_its_games_teacher_and_linear_part(
    self_play_run: Path, tmp_path: Path
) -> None:
    # The run's three self-play games and one game against Stockfish, in one file.
    games = tmp_path / "games.pgn"
    outside = (
        '[Event "t"]\n[White "learner"]\n[Black "stockfish-1700"]\n[Result "0-1"]\n\n'
        "1. f3 e5 2. g4 Qh4# 0-1\n\n"
    )
    games.write_text((self_play_run / "games.pgn").read_text() + outside)
    teacher = self_play_run / "weights.npz"
    net, settings, prov = _labelled_fit(tmp_path, games, teacher, "self-play")
    (game_file,) = settings["games"]
    assert game_file["path"] == str(games)
    assert game_file["sha256"] == hashlib.sha256(games.read_bytes()).hexdigest()
    assert game_file["kept"] == {"learner vs learner": 3}
    assert game_file["dropped"] == {"learner vs stockfish-1700": 1}
    (source,) = prov["sources"]
    model = load_weights(net)
    assert source["positions"] == model.metadata["positions"] > 0
    assert source["filter"] == "self-play" and source["depth"] == 1
    teacher_sha = weights_sha256(load_weights(teacher).weights)
    roles = {p["role"]: p for p in prov["parents"]}
    assert roles["teacher"]["sha256"] == teacher_sha
    assert roles["teacher"]["provenance"] == record(teacher)
    assert roles["linear part"]["sha256"] == teacher_sha
    assert prov["sha256"] == weights_sha256(stored_weights(model))
    assert prov["cpu_seconds"] == pytest.approx(
        prov["cpu_seconds_fit"] + prov["cpu_seconds_labels"], abs=0.11
    )
    assert prov["cpu_seconds_labels"] > 0
    # The games were played by weights outside this file's directory: no run beside
    # them to vouch for their players, so the chain is not self-play only.
    assert prov["self_play_only"] is False
    # The run's own games file, beside its weights: self-play back to random weights.
    _, settings, prov = _labelled_fit(tmp_path, self_play_run / "games.pgn", teacher, "own")
    assert settings["games"][0]["players"]["sha256"] == teacher_sha
    assert prov["self_play_only"] is True


def test_weights_show_prints_the_chain_with_checked_hashes(
    self_play_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    net, _, _ = _labelled_fit(
        tmp_path, self_play_run / "games.pgn", self_play_run / "weights.npz", "own"
    )
    capsys.readouterr()
    assert main(["weights", "show", str(net)]) == 0
    shown = capsys.readouterr().out
    assert "provenance (self-play only: yes; weights sha256" in shown
    assert "DIFFERS" not in shown and "not at hand" not in shown
    assert "start: random weights (feature set meep, seed 5, scale 1.0)" in shown
    assert shown.count(": matches") >= 3  # the file, its teacher, the random start
    # Weights edited after the tool wrote them show.
    meta, weights = read_weight_file(net)
    write_weight_file(net, weights + 0.5, meta)
    assert main(["weights", "show", str(net)]) == 0
    assert "DIFFERS" in capsys.readouterr().out


def test_a_file_without_a_record_says_its_chain_cannot_be_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bare.npz"
    random_model(seed=1).save(path)
    assert main(["weights", "show", str(path), "--top", "1"]) == 0
    assert "provenance: not recorded by the tools" in capsys.readouterr().out


def test_ship_preset_takes_only_files_the_tools_wrote(self_play_run: Path, tmp_path: Path) -> None:
    ship = _ship_tool().ship
    made = self_play_run / "weights.npz"
    if not commit_is_committed(record(made)["commit"]):  # run from a checkout with changes
        with pytest.raises(ValueError, match="made from uncommitted code"):
            ship(made, "trial", data=tmp_path)
        meta, weights = read_weight_file(made)  # the same file as if made from a commit
        meta["metadata"][KEY]["commit"] = "0000000"
        made = tmp_path / "committed.npz"
        write_weight_file(made, weights, meta)
    shipped = ship(made, "trial", data=tmp_path)
    model = load_weights(shipped)
    assert model.metadata["preset"] == "trial"
    assert model.metadata[KEY] == record(made)
    bare = tmp_path / "bare.npz"
    random_model(seed=1).save(bare)
    with pytest.raises(ValueError, match="no provenance record"):
        ship(bare, "trial", data=tmp_path)
    meta, weights = read_weight_file(shipped)
    write_weight_file(shipped, weights * 2, meta)
    with pytest.raises(ValueError, match="differ from the hash"):
        ship(shipped, "trial", data=tmp_path)


def test_the_command_line_is_the_one_treestrap_was_given() -> None:
    set_command_line(["train", "--out", "my run"])
    assert command_line() == "treestrap train --out 'my run'"
    assert command_line(["/usr/bin/treestrap", "uci"]) == "treestrap uci"


def test_hashes_are_of_the_weights_as_stored() -> None:
    weights = np.arange(4, dtype=np.float64)
    assert weights_sha256(weights) == hashlib.sha256(weights.astype("<f8").tobytes()).hexdigest()
    assert weights_sha256(weights) != weights_sha256(weights + 1e-12)
