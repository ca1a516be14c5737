"""The shipped Connect Four preset ``connect4-zero``: the best file of
``treestrap bootstrap --game connect4``, shipped by ``tools/ship_preset.py``. Its chain
checks down to random weights drawn again, and it is the ``zero`` player."""

from __future__ import annotations

import pytest

from treestrap.cli import main
from treestrap.connect4.board import parse_moves
from treestrap.evaluation.provenance import KEY, stored_weights, weights_sha256
from treestrap.games.connect4_model import (
    PRESET,
    Connect4Model,
    random_connect4_model,
    shipped_connect4_model,
)
from treestrap.games.connect4_players import make_player, parse_connect4_player


@pytest.fixture(scope="module")
def preset() -> Connect4Model:
    model = shipped_connect4_model()
    assert isinstance(model, Connect4Model)
    return model


def test_it_is_the_bootstrap_runs_file_with_a_matching_record(preset: Connect4Model) -> None:
    record = preset.metadata[KEY]
    assert record["sha256"] == weights_sha256(stored_weights(preset))
    assert record["self_play_only"] is True
    assert preset.metadata["preset"] == PRESET
    run = preset.metadata["bootstrap"]
    assert run["game"] == "connect4" and run["budget"] == "standard"
    assert run["command"].startswith("treestrap bootstrap --game connect4")
    assert run["rounds_accepted"] <= run["rounds_played"]
    assert run["cpu_hours"] <= 4.0  # the budget from random weights


def test_its_chain_goes_back_to_random_weights_drawn_again(preset: Connect4Model) -> None:
    starts, todo = [], [preset.metadata[KEY]]
    while todo:
        record = todo.pop()
        assert record["tool"] in ("treestrap bootstrap", "treestrap train")
        for parent in record.get("parents", []):
            if parent.get("kind") == "random":
                starts.append(parent)
            if "provenance" in parent:
                todo.append(parent["provenance"])
    assert starts, "no random start in the chain"
    for start in starts:
        drawn = random_connect4_model(seed=start["seed"], scale=start["scale"])
        assert weights_sha256(drawn.weights) == start["sha256"]


def test_weights_show_finds_it_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["weights", "show", PRESET]) == 0
    shown = capsys.readouterr().out
    assert "provenance (self-play only: yes; weights sha256" in shown
    assert "matches" in shown and "DIFFERS" not in shown


def test_it_is_the_zero_player(preset: Connect4Model) -> None:
    spec = parse_connect4_player("zero:depth=2")
    assert (spec.name, spec.model, spec.depth) == ("zero-d2", "zero", 2)
    player = make_player(spec)
    col = player.choose(parse_moves("4455"))
    assert 0 <= col < 7
