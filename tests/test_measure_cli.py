"""``treestrap measure --game GAME``: the game's own measurement, reached by ``--game``;
``treestrap connect4 measure`` is its old spelling and says the new one."""

from __future__ import annotations

import json

import pytest

from treestrap.cli import main
from treestrap.commands.measure import measurements
from treestrap.games.registry import game_facts


def _run(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


def test_the_games_with_a_measurement_are_registered_games() -> None:
    games = measurements()
    assert "connect4" in games
    for game in games:
        game_facts(game)  # each is a registered game


def test_measure_by_game_and_by_its_old_spelling_agree(reference_data, tmp_path, capsys) -> None:
    solved = str(reference_data("connect4/solved-1000.txt"))
    common = ["hand-set:depth=2", "--games", "0", "--every", "50", "--no-references"]
    common += ["--positions", solved, "--quiet"]
    assert _run(["measure", "--game", "connect4", *common, "--out", str(tmp_path / "new")]) == 0
    new = capsys.readouterr()
    assert _run(["connect4", "measure", *common, "--out", str(tmp_path / "old")]) == 0
    old = capsys.readouterr()
    assert "treestrap measure --game connect4" in old.err
    table = [line for line in new.out.splitlines() if line.startswith("hand-set-d2")]
    assert table and table == [x for x in old.out.splitlines() if x.startswith("hand-set-d2")]
    a = json.loads((tmp_path / "new" / "measure.json").read_text())
    b = json.loads((tmp_path / "old" / "measure.json").read_text())
    assert a == b and a["positions"] == 20


@pytest.mark.parametrize("game", ["chess", "go"])
def test_a_game_without_a_measurement_is_refused(game, capsys) -> None:
    assert _run(["measure", "--game", game, "hand-set"]) == 2
    assert "invalid choice" in capsys.readouterr().err
