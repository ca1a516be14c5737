"""The shipped ``learned-net`` preset: a hybrid network file of the package with its
provenance, offered wherever the other presets are (``weights preset`` and ``show``,
tournament players, ``treestrap uci --preset`` and ``--weights``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_uci import last_score, start_engine

from treestrap.cli import main
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.presets import learned_model, learned_net_model, preset_model
from treestrap.evaluation.weight_files import load_weights
from treestrap.play.players import IN_PROCESS, UCI, parse_player
from treestrap.play.sessions import load_model
from treestrap.play.tournament import TournamentConfig, run_tournament

#: What a user must be able to read about how the network was made.
PROVENANCE = (
    "algorithm",
    "command",
    "commit",
    "cpu_hours",
    "cpu_hours_with_linear_part",
    "games",
    "init",
    "linear_part",
    "network",
    "step",
)


def test_the_network_loads_with_its_provenance_and_its_linear_part() -> None:
    net = learned_net_model()
    assert isinstance(net, NetworkModel) and net.linear is not None
    assert net.describe().endswith("+ linear meep")
    # The linear part is the learned preset, kept fixed by its training.
    assert np.array_equal(net.linear, learned_model().weights)
    for key in PROVENANCE:
        assert net.metadata.get(key) not in (None, ""), key
    assert net.metadata["preset"] == "learned-net"
    assert net.metadata["algorithm"] == "distill"
    # Its figures agree with its linear part's: the CPU hours add up, the games named.
    learned = learned_model().metadata
    total = net.metadata["cpu_hours"] + learned["cpu_hours"]
    assert net.metadata["cpu_hours_with_linear_part"] == pytest.approx(total, abs=0.005)
    assert net.metadata["linear_part"].startswith(f"learned: {learned['games']} games")
    # Written before the tools kept a record: it says so rather than claim a chain.
    assert "provenance" not in net.metadata
    assert preset_model("learned-net").describe() == net.describe()


def test_weights_preset_writes_it_and_show_prints_the_provenance(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "net.npz"
    assert main(["weights", "preset", "learned-net", str(out)]) == 0
    written = load_weights(out)
    assert isinstance(written, NetworkModel)
    assert np.array_equal(written.weights, learned_net_model().weights)
    assert np.array_equal(written.linear, learned_net_model().linear)
    capsys.readouterr()
    assert main(["weights", "show", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "linear part: 1830 weights on meep" in shown
    for key in PROVENANCE:
        assert f"\n{key}: " in shown, key
    # The copy's record: written by weights preset, its parent the preset, whose own
    # chain was not recorded.
    assert "copy of: learned-net sha256" in shown and ": matches" in shown
    assert "no provenance recorded by the tools: the chain stops here" in shown
    assert "self-play only: no" in shown


def test_the_player_plays_it_in_a_tournament(tmp_path: Path) -> None:
    spec = parse_player("learned-net")
    assert (spec.name, spec.kind, spec.preset) == ("learned-net", IN_PROCESS, "learned-net")
    assert np.array_equal(load_model(spec).weights, learned_net_model().weights)
    uci = parse_player("treestrap-uci:learned-net")
    assert uci.kind == UCI and uci.options == (("Preset", "learned-net"),)
    config = TournamentConfig(["learned-net", "learned"], tc="depth=1", max_plies=12)
    result = run_tournament(config, tmp_path / "match", progress=False)
    assert len(result.games) == 2 and all(g.result != "*" for g in result.games)


def test_uci_plays_it_by_preset_and_by_file(tmp_path: Path, kernels_load_from_cache: None) -> None:
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    out = tmp_path / "net.npz"
    assert main(["weights", "preset", "learned-net", str(out)]) == 0
    by_preset = start_engine("--preset", "learned-net")
    try:
        net_score = last_score(by_preset, fen)
        by_preset.send("setoption name Preset value learned")
        linear_score = last_score(by_preset, fen)
    finally:
        assert by_preset.close() == 0
    by_file = start_engine("--weights", str(out))
    try:
        file_score = last_score(by_file, fen)
    finally:
        assert by_file.close() == 0
    assert net_score == file_score != linear_score
