"""The shipped Connect Four n-tuple preset ``connect4-ntuple``: the best file of
``treestrap bootstrap --game connect4 --budget ntuple-mean`` (the mean of four runs'
tables), shipped by
``tools/ship_preset.py``. Its record matches its tables, its start is drawn again from
the seed, and it is the ``ntuple`` player, the default of the Connect Four measurements."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from treestrap.cli import main
from treestrap.connect4.board import new_position
from treestrap.evaluation.provenance import KEY, weights_sha256
from treestrap.games.connect4_game import CONNECT4_GAME
from treestrap.games.connect4_model import shipped_connect4_model
from treestrap.games.connect4_ntuple import Connect4NTupleModel
from treestrap.games.connect4_players import DEFAULT_PLAYER, make_player, parse_connect4_player

PRESET = "connect4-ntuple"


@pytest.fixture(scope="module")
def preset() -> Connect4NTupleModel:
    model = shipped_connect4_model(PRESET)
    assert isinstance(model, Connect4NTupleModel)
    return model


def test_it_is_the_ntuple_runs_file_with_a_matching_record(preset: Connect4NTupleModel) -> None:
    record = preset.metadata[KEY]
    assert record["sha256"] == weights_sha256(preset.tables)
    assert record["self_play_only"] is True
    assert record["games"] == {"self-play": preset.metadata["games"]}
    assert preset.metadata["preset"] == PRESET
    run = preset.metadata["bootstrap"]
    assert run["game"] == "connect4" and run["budget"] == "ntuple-mean"
    assert run["command"].startswith("treestrap bootstrap --game connect4 --budget ntuple-mean")
    assert run["cpu_hours"] <= 4.0  # the budget from random weights
    assert preset.spec == preset.metadata["settings"]["model"]
    members = preset.metadata["members"]
    assert len(members) == preset.metadata["settings"]["members"] == 4
    assert sum(m["games"] for m in members) == preset.metadata["games"]


def test_its_start_is_drawn_again_from_the_seed(preset: Connect4NTupleModel) -> None:
    (start,) = preset.metadata[KEY]["parents"]
    assert start["kind"] == "random" and start["self_play_only"] is True
    drawn = CONNECT4_GAME.random_model(start["feature_set"], start["seed"], start["scale"])
    assert weights_sha256(drawn.weights) == start["sha256"]
    assert (drawn.tuples == preset.tuples).all()  # the same tuples, learned tables


def test_weights_show_checks_its_chain(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["weights", "show", PRESET]) == 0
    shown = capsys.readouterr().out
    assert "n-tuples, 70 tuples of 8 cells" in shown
    assert "self-play only: yes" in shown
    assert "DIFFERS" not in shown and "not checked" not in shown


def test_it_is_the_ntuple_player_and_opens_in_the_centre(preset: Connect4NTupleModel) -> None:
    assert DEFAULT_PLAYER == "ntuple"
    spec = parse_connect4_player("ntuple:depth=1")
    assert (spec.name, spec.model, spec.depth) == ("ntuple-d1", "ntuple", 1)
    player = make_player(spec)
    player.new_game(0)
    assert player.choose(new_position()) == 3  # the only winning first disc


def test_a_measurement_without_players_measures_it(reference_data, tmp_path: Path) -> None:
    positions = reference_data("connect4/solved-1000.txt")
    argv = ["measure", "--game", "connect4", "--depths", "2", "--games", "0", "--quiet"]
    argv += ["--positions", str(positions), "--every", "100", "--no-references"]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "measure.json").read_text(encoding="utf-8"))
    assert [p["player"] for p in data["players"]] == ["ntuple-d2"]
    assert data["players"][0]["best_move"]["total"] == 10
