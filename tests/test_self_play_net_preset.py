"""The shipped ``self-play-net`` preset: made by the tools alone from random weights
(``tools/make_self_play_net.py``), its file's provenance chain checks against itself,
its random start drawn again, and the figures of each step against the others'. It is
offered wherever the other presets are (``weights preset`` and ``show``, tournament
players, ``treestrap uci --preset`` and ``--weights``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_uci import last_score, start_engine

from treestrap.cli import main
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.presets import preset_model, random_model
from treestrap.evaluation.provenance import KEY, stored_weights, weights_sha256
from treestrap.evaluation.weight_files import load_weights
from treestrap.play.players import IN_PROCESS, UCI, parse_player
from treestrap.play.sessions import load_model
from treestrap.play.tournament import TournamentConfig, run_tournament


@pytest.fixture(scope="module")
def net() -> NetworkModel:
    model = preset_model("self-play-net")
    assert isinstance(model, NetworkModel)
    return model


def _parents(record: dict) -> dict[str, dict]:
    return {p["role"].split(" of ")[0]: p for p in record["parents"]}


def test_it_is_a_hybrid_whose_weights_match_their_record(net: NetworkModel) -> None:
    assert net.describe() == "crelu 64 + linear meep"
    record = net.metadata[KEY]
    assert record["tool"] == "treestrap distill fit"
    assert record["sha256"] == weights_sha256(stored_weights(net))
    assert record["self_play_only"] is True
    assert net.metadata["preset"] == "self-play-net"


def test_its_chain_goes_back_to_random_weights_drawn_again(net: NetworkModel) -> None:
    parents = _parents(net.metadata[KEY])
    teacher = parents["teacher"]
    # One set of weights labelled the positions, played their games, and started the
    # linear part.
    assert teacher["sha256"] == parents["linear part"]["sha256"] == parents["players"]["sha256"]
    run = teacher["provenance"]
    assert run["tool"] == "treestrap train" and run["self_play_only"] is True
    assert run["sha256"] == teacher["sha256"]
    (start,) = run["parents"]
    assert start["kind"] == "random"
    drawn = random_model(start["feature_set"], seed=start["seed"], scale=start["scale"])
    assert weights_sha256(drawn.weights) == start["sha256"]


def test_its_figures_agree_from_step_to_step(net: NetworkModel) -> None:
    record = net.metadata[KEY]
    (labels,) = record["sources"]
    assert labels["positions"] == net.metadata["positions"]
    assert labels["filter"] == "self-play" and labels["depth"] == net.metadata["teacher_depth"]
    (games,) = labels["games"]
    played = _parents(record)["teacher"]["provenance"]["games"]
    # Every game the teacher's run played was kept, and each was self-play.
    assert games["kept"] == {"learner vs learner": played["self-play"]} and not games["dropped"]
    assert record["cpu_seconds"] == pytest.approx(
        record["cpu_seconds_fit"] + record["cpu_seconds_labels"], abs=0.11
    )
    assert record["cpu_seconds_fit"] == net.metadata["cpu_seconds_fit"]


def test_weights_show_by_the_presets_name_prints_the_checked_chain(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["weights", "show", "self-play-net"]) == 0
    shown = capsys.readouterr().out
    assert "provenance (self-play only: yes; weights sha256" in shown
    assert "start: random weights (feature set meep, seed 1, scale 1.0)" in shown
    root = next(line for line in shown.splitlines() if "start: random weights" in line)
    assert root.endswith(": matches")
    assert "DIFFERS" not in shown


def test_it_plays_as_a_player_and_in_the_engine() -> None:
    spec = parse_player("self-play-net")
    assert (spec.kind, spec.preset) == (IN_PROCESS, "self-play-net")
    uci = parse_player("treestrap-uci:self-play-net")
    assert uci.kind == UCI and uci.options == (("Preset", "self-play-net"),)


def test_weights_preset_copies_it_whole_with_a_record_of_the_copy(
    net: NetworkModel, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "net.npz"
    assert main(["weights", "preset", "self-play-net", str(out)]) == 0
    written = load_weights(out)
    assert isinstance(written, NetworkModel)
    assert np.array_equal(written.weights, net.weights)
    assert np.array_equal(written.linear, net.linear)
    capsys.readouterr()
    assert main(["weights", "show", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "linear part: 1830 weights on meep" in shown
    # The copy's record names the preset as its parent, whose chain goes on below it.
    assert "copy of: self-play-net sha256" in shown
    assert "self-play only: yes" in shown and "DIFFERS" not in shown


def test_a_tournament_plays_it_by_name(net: NetworkModel, tmp_path: Path) -> None:
    assert np.array_equal(load_model(parse_player("self-play-net")).weights, net.weights)
    config = TournamentConfig(["self-play-net", "hand-set"], tc="depth=1", max_plies=12)
    result = run_tournament(config, tmp_path / "match", progress=False)
    assert len(result.games) == 2 and all(g.result != "*" for g in result.games)


def test_uci_plays_it_by_preset_and_by_file(tmp_path: Path, kernels_load_from_cache: None) -> None:
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    out = tmp_path / "net.npz"
    assert main(["weights", "preset", "self-play-net", str(out)]) == 0
    by_preset = start_engine("--preset", "self-play-net")
    try:
        net_score = last_score(by_preset, fen)
        by_preset.send("setoption name Preset value hand-set")
        linear_score = last_score(by_preset, fen)
    finally:
        assert by_preset.close() == 0
    by_file = start_engine("--weights", str(out))
    try:
        file_score = last_score(by_file, fen)
    finally:
        assert by_file.close() == 0
    assert net_score == file_score != linear_score
