"""The shipped ``learned`` preset: a file of the package written by one ``treestrap
train`` run from random weights (shipped by ``tools/ship_preset.py``), its provenance
chain checked down to the random start drawn again, offered wherever the hand-set preset
is (weight files, tournament players, the UCI engine); and the default of the engine and
of the ``treestrap`` player, the strongest measured preset (``zero``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_uci import READY_TIMEOUT, last_score, start_engine

from treestrap.cli import main
from treestrap.evaluation.preset_names import DEFAULT_PRESET
from treestrap.evaluation.presets import (
    PRESET_NAMES,
    hand_set_model,
    learned_model,
    preset_model,
    random_model,
)
from treestrap.evaluation.provenance import KEY, stored_weights, weights_sha256
from treestrap.evaluation.weight_files import load_weights
from treestrap.play.players import IN_PROCESS, UCI, parse_player
from treestrap.play.sessions import load_model

#: The one command that made the shipped file (docs/learning.md#the-learned-preset).
RECIPE = "treestrap train --preset strong --seed 1 --games 11711"
#: ``--preset strong``: self-play, then the hand-set weights as the partner.
SELF_PLAY_GAMES, TOTAL_GAMES = 8265, 11711


def test_learned_weights_are_one_training_runs_with_its_record() -> None:
    model = learned_model()
    assert model.feature_set.name == "meep"
    assert np.all(np.isfinite(model.weights))
    assert not np.array_equal(model.weights, hand_set_model().weights)
    record = model.metadata[KEY]
    assert record["tool"] == "treestrap train"
    assert record["command"].startswith(RECIPE)
    assert record["sha256"] == weights_sha256(stored_weights(model))
    # The file's figures agree with each other: its games by partner, its run's state.
    games = {"self-play": SELF_PLAY_GAMES, "hand-set": TOTAL_GAMES - SELF_PLAY_GAMES}
    assert record["games"] == games
    assert model.metadata["run_state"]["games"] == TOTAL_GAMES
    assert record["cpu_seconds"] == pytest.approx(model.metadata["run_state"]["cpu_seconds"], 0.01)
    # Games against the hand-written partner: learned from random weights, but not by
    # self-play alone.
    assert record["self_play_only"] is False


def test_its_chain_goes_back_to_random_weights_drawn_again() -> None:
    (start,) = learned_model().metadata[KEY]["parents"]
    assert (start["kind"], start["role"], start["seed"]) == ("random", "start", 1)
    drawn = random_model(start["feature_set"], seed=start["seed"], scale=start["scale"])
    assert weights_sha256(drawn.weights) == start["sha256"]


def test_weights_show_by_the_presets_name_prints_the_checked_chain(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["weights", "show", "learned"]) == 0
    shown = capsys.readouterr().out
    assert "provenance (self-play only: no; weights sha256" in shown
    games = next(line for line in shown.splitlines() if line.strip().startswith("games: "))
    partner = TOTAL_GAMES - SELF_PLAY_GAMES
    assert f"self-play {SELF_PLAY_GAMES:,}" in games and f"hand-set {partner:,}" in games
    root = next(line for line in shown.splitlines() if "start: random weights" in line)
    assert "(feature set meep, seed 1, scale 1.0)" in root and root.endswith(": matches")
    assert "DIFFERS" not in shown and "cannot be checked" not in shown


def test_presets_by_name() -> None:
    assert PRESET_NAMES == (
        "hand-set",
        "learned",
        "random",
        "self-play-net",
        "zero",
        "zero2",
        "zero3",
        "zero4",
        "zero5",
    )
    assert np.array_equal(preset_model("learned").weights, learned_model().weights)
    assert np.array_equal(preset_model("random", seed=4).weights, random_model(seed=4).weights)
    with pytest.raises(ValueError, match="unknown preset 'strong'"):
        preset_model("strong")


def test_weights_preset_learned_writes_the_file_and_show_prints_provenance(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "learned.npz"
    assert main(["weights", "preset", "learned", str(out)]) == 0
    written = load_weights(out)
    assert np.array_equal(written.weights, learned_model().weights)
    capsys.readouterr()
    assert main(["weights", "show", str(out), "--top", "3"]) == 0
    shown = capsys.readouterr().out
    # the copy's record names the preset, whose own chain goes on below it
    assert "copy of: learned sha256" in shown and RECIPE in shown
    assert "DIFFERS" not in shown


def test_weights_preset_learned_refuses_a_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["weights", "preset", "learned", str(tmp_path / "w.npz"), "--seed", "3"]) == 2
    assert "--seed only applies to the random preset" in capsys.readouterr().err


def test_learned_player_in_tournaments() -> None:
    spec = parse_player("learned")
    assert (spec.name, spec.kind, spec.preset) == ("learned", IN_PROCESS, "learned")
    assert np.array_equal(load_model(spec).weights, learned_model().weights)
    uci = parse_player("treestrap-uci:learned")
    assert uci.kind == UCI and uci.options == (("Preset", "learned"),)


def test_the_default_preset_is_zero5_for_players() -> None:
    assert DEFAULT_PRESET == "zero5"
    ours = parse_player("treestrap")
    assert (ours.name, ours.kind, ours.preset) == ("treestrap", IN_PROCESS, "zero5")
    chosen, zero = load_model(ours), preset_model("zero5")
    assert weights_sha256(stored_weights(chosen)) == weights_sha256(stored_weights(zero))
    # As a subprocess without a preset: no Preset option, so the engine's own default.
    uci = parse_player("treestrap-uci")
    assert (uci.name, uci.kind, uci.options) == ("uci-treestrap", UCI, ())
    assert uci.command[-1] == "uci"


def test_uci_plays_its_default_preset_and_the_one_set_by_option(
    kernels_load_from_cache: None,
) -> None:
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    hand_set_engine = start_engine("--preset", "hand-set")
    try:
        hand_set = last_score(hand_set_engine, fen)
        hand_set_engine.send("setoption name Preset value zero5")
        # a go with no clock waits for the network's search to compile or load
        hand_set_engine.go("depth 1", READY_TIMEOUT)
        from_option = last_score(hand_set_engine, fen)
    finally:
        assert hand_set_engine.close() == 0
    default = start_engine()  # no --preset: the default, zero5
    try:
        by_default = last_score(default, fen)
        default.send("setoption name Preset value hand-set")
        back_to_hand_set = last_score(default, fen)
    finally:
        assert default.close() == 0
    assert by_default == from_option != hand_set == back_to_hand_set


def test_uci_weights_and_preset_together_are_refused(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "treestrap.cli", "uci", "--preset", "learned", "--weights", "x"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "error: give --weights or --preset, not both" in proc.stderr
