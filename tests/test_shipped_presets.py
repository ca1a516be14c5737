"""Every shipped preset of every registered game was made by the tools: ``treestrap
weights show PRESET`` prints its provenance chain down to random weights, drawn again
and matching, with every hash it can check matching and none that cannot be read."""

from __future__ import annotations

import pytest

from treestrap.cli import main
from treestrap.games.registry import game_facts, game_names

SHIPPED = [name for game in game_names() for name in game_facts(game).presets]


def test_the_games_ship_presets() -> None:
    assert {"learned", "self-play-net", "zero", "connect4-zero"} <= set(SHIPPED)


@pytest.mark.parametrize("preset", SHIPPED)
def test_weights_show_prints_a_checked_chain_down_to_random_weights(
    preset: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["weights", "show", preset]) == 0
    shown = capsys.readouterr().out
    chain = shown[shown.index("\nprovenance (") :]
    assert chain.splitlines()[1].endswith(": matches)")  # the file's own weights
    roots = [line for line in chain.splitlines() if ": random weights (" in line]
    assert roots, "no random start in the chain"
    assert all(line.endswith(": matches") for line in roots), roots
    assert "DIFFERS" not in chain
    assert "no provenance recorded" not in chain and "cannot be checked" not in chain
