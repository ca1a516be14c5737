"""``treestrap bootstrap --from``: a run that starts from an earlier run's best file
carries on its cost, its Elo and its provenance chain, and refuses any other start."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from treestrap.bootstrap import pipeline
from treestrap.bootstrap.pipeline import finished_rounds, round_dir
from treestrap.bootstrap.start_file import START_FILE
from treestrap.cli import main
from treestrap.evaluation.provenance import file_sha256
from treestrap.evaluation.weight_file_format import read_weight_file
from treestrap.evaluation.weight_files import load_weights


def _bootstrap(*args: str) -> int:
    return main(["bootstrap", "--budget", "smoke", "--quiet", *args])


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A one-round smoke run from random weights, and a one-round run from its best."""
    root = tmp_path_factory.mktemp("start")
    first, second = root / "first", root / "second"
    assert _bootstrap("--out", str(first), "--set", "rounds=1") == 0
    best = first / pipeline.BEST_FILE
    assert _bootstrap("--out", str(second), "--from", str(best), "--set", "rounds=1") == 0
    return first, second


def _leaves(record: Mapping[str, Any] | None) -> Iterator[str]:
    """The kinds of the records a provenance chain ends in."""
    parents = (record or {}).get("parents", [])
    if not parents:
        yield "unrecorded"
    for parent in parents:
        if parent.get("kind") == "weights":
            yield from _leaves(parent.get("provenance"))
        else:
            yield parent["kind"]


def test_round_0_is_the_start_file_with_its_cost_and_elo(runs: tuple[Path, Path]) -> None:
    first, second = runs
    best = first / pipeline.BEST_FILE
    start = finished_rounds(second)[0]
    assert start["player_file"] == START_FILE and start["games"] == 0
    assert file_sha256(second / START_FILE) == file_sha256(best)
    recorded = read_weight_file(best)[0]["metadata"]["bootstrap"]
    assert start["cpu_seconds"] == recorded["cpu_seconds"]
    assert start["elo_vs_round0"] == recorded["elo_vs_round0"]
    after = finished_rounds(second)[1]
    assert after["cpu_seconds"] > start["cpu_seconds"] + after["round_cpu_seconds"] - 0.2


def test_the_first_round_plays_with_the_start_file_and_chains_back_to_random(
    runs: tuple[Path, Path],
) -> None:
    _, second = runs
    record = load_weights(round_dir(second, 1) / "candidate.npz").metadata["provenance"]
    assert record["self_play_only"]
    data_player = record["parents"][0]
    assert (
        data_player["sha256"] == load_weights(second / START_FILE).metadata["provenance"]["sha256"]
    )
    assert set(_leaves(record)) == {"random"}


def test_the_best_file_names_the_run_it_went_on_from(runs: tuple[Path, Path]) -> None:
    first, second = runs
    meta = read_weight_file(second / pipeline.BEST_FILE)[0]["metadata"]["bootstrap"]
    assert meta["start"]["sha256"] == file_sha256(first / pipeline.BEST_FILE)
    assert meta["start"]["bootstrap"]["command"].endswith("--set rounds=1")
    assert "--from" in meta["command"]
    assert "started from" in (second / "report.md").read_text()


def test_a_resume_keeps_its_start_and_refuses_another(
    runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = runs
    again = ["--out", str(second), "--set", "rounds=1"]
    assert _bootstrap(*again, "--from", str(first / pipeline.BEST_FILE)) == 0
    assert _bootstrap(*again) == 0  # the run's own start, without naming it
    other = second.parent / "other.npz"
    other.write_bytes((first / "round-01" / "candidate.npz").read_bytes())
    assert _bootstrap(*again, "--from", str(other)) == 2
    assert _bootstrap("--out", str(first), "--set", "rounds=1", "--from", str(other)) == 2
    err = capsys.readouterr().err
    assert "started from another file" in err and "started from random weights" in err


@pytest.mark.parametrize(
    ("start", "says"),
    [
        ("nowhere.npz", "no such file, nor a preset"),
        ("round-01/candidate.npz", "not a file written by treestrap bootstrap"),
        ("connect4-zero", "a connect4 file, not chess"),
    ],
)
def test_a_start_that_is_not_a_chess_run_s_best_is_refused(
    runs: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    start: str,
    says: str,
) -> None:
    first, _ = runs
    path = first / start
    if start == "connect4-zero":  # a Connect Four preset's file, by its path
        from treestrap.bootstrap.start_file import resolve_start

        path = resolve_start(start, "connect4")
    run = tmp_path / "refused"
    assert _bootstrap("--out", str(run), "--from", str(path)) == 2
    assert says in capsys.readouterr().err
    assert not (run / pipeline.SETTINGS_FILE).exists()


def test_the_shipped_preset_is_a_start(tmp_path: Path) -> None:
    from treestrap.bootstrap.provider import bootstrap_provider
    from treestrap.bootstrap.start_file import resolve_start, start_record

    path = resolve_start("zero", "chess")
    record = start_record(path, "chess")
    assert record["game"] == "chess" and record["cpu_seconds"] > 0
    budget = bootstrap_provider("chess").budgets["smoke"]
    pipeline.open_run(tmp_path, budget, 0, "test", bootstrap_provider("chess"), start="zero")
    saved = json.loads((tmp_path / pipeline.SETTINGS_FILE).read_text())["start"]
    assert saved["from"] == "zero" and saved["sha256"] == file_sha256(tmp_path / START_FILE)


def test_a_connect4_run_goes_on_from_the_shipped_n_tuple_preset(tmp_path: Path) -> None:
    run = tmp_path / "c4"
    args = ["--game", "connect4", "--out", str(run), "--from", "connect4-ntuple"]
    assert _bootstrap(*args, "--set", "rounds=1") == 0
    start, first = finished_rounds(run)
    assert start["model"].startswith("ntuple") and start["cpu_seconds"] > 0
    assert first["games"] > 0 and first["cpu_seconds"] > start["cpu_seconds"]
    data_player = load_weights_c4(round_dir(run, 1) / "candidate.npz")["parents"][0]
    assert data_player["sha256"] == load_weights_c4(run / START_FILE)["sha256"]


def load_weights_c4(path: Path) -> dict[str, Any]:
    """A Connect Four weight file's provenance record."""
    from treestrap.games.connect4_model import load_connect4_model

    return dict(load_connect4_model(path).metadata["provenance"])
