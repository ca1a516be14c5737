"""``treestrap bootstrap --budget smoke`` end to end, and the same run stopped in each of
its steps and resumed: the files come out as an uninterrupted run's."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from treestrap.bootstrap import pipeline, selfplay
from treestrap.bootstrap.budgets import BUDGETS
from treestrap.bootstrap.pipeline import RunOptions, bootstrap, finished_rounds, round_dir
from treestrap.bootstrap.report import rounds_table
from treestrap.cli import main
from treestrap.distill import perspective_fit
from treestrap.distill.position_file import read_header, read_records
from treestrap.evaluation.weight_files import load_weights
from treestrap.play.sprt_match import SprtWatch
from treestrap.training import run as training_run

SMOKE = BUDGETS["smoke"]
OPTIONS = RunOptions(progress=False, bench_depth=2)


class Killed(Exception):
    """What the patched steps raise in place of a kill."""


@pytest.fixture(scope="module")
def whole_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A smoke run, uninterrupted, through the command line."""
    run = tmp_path_factory.mktemp("bootstrap") / "whole"
    assert main(["bootstrap", "--out", str(run), "--budget", "smoke", "--quiet"]) == 0
    return run


def test_the_smoke_budget_runs_every_round_and_reports_them(whole_run: Path) -> None:
    records = finished_rounds(whole_run)
    assert [r["round"] for r in records] == [0, 1, 2]
    assert records[0]["games"] == SMOKE.round0_games and records[0]["accepted"]
    for r in records[1:]:
        assert r["games"] == SMOKE.selfplay.games and r["positions"] > 0
        assert np.isfinite(r["held_out_loss"]) and r["nps"] > 0
        assert r["cpu_seconds"] > records[r["round"] - 1]["cpu_seconds"]
        gate = json.loads((round_dir(whole_run, r["round"]) / "gate" / "gate.json").read_text())
        assert gate["games"] <= SMOKE.gate.max_games and gate["accepted"] == r["accepted"]
    for name in ("report.md", "curve.png", "rounds.jsonl"):
        assert (whole_run / name).stat().st_size > 0
    assert "| 2 | perspective:32 |" in (whole_run / "report.md").read_text()
    assert any((whole_run / "tensorboard").iterdir())


def test_a_candidates_provenance_goes_back_to_random_weights_by_self_play(
    whole_run: Path,
) -> None:
    model = load_weights(round_dir(whole_run, 1) / "candidate.npz")
    record = model.metadata["provenance"]
    assert record["tool"] == "treestrap bootstrap" and record["budget"] == "smoke"
    assert record["self_play_only"] and record["games"] == {"self-play": SMOKE.selfplay.games}
    assert "--budget smoke" in record["command"]
    data_player = record["parents"][0]
    assert data_player["role"] == "self-play data" and data_player["self_play_only"]
    # the data player is round 0's weights, whose own record starts at random weights
    roots = data_player["provenance"]["parents"]
    assert [p["kind"] for p in roots] == ["random"]
    # its CPU time is its round's (self-play, fit, gate), not its fit's alone
    split, round_1 = record["cpu_split"], finished_rounds(whole_run)[1]
    # (a smoke fit may take under the 0.05 CPU seconds that round to 0.0)
    assert sorted(split) == ["fit", "gate", "selfplay"] and min(split.values()) >= 0
    assert split["selfplay"] > 0
    assert record["cpu_seconds"] == pytest.approx(sum(split.values()), abs=0.2)
    assert record["cpu_seconds"] == pytest.approx(round_1["round_cpu_seconds"], abs=0.2)


def test_the_best_file_is_the_best_player_with_the_runs_cost(whole_run: Path) -> None:
    from treestrap.evaluation.weight_file_format import read_weight_file

    records = finished_rounds(whole_run)
    last = [r for r in records if r["accepted"]][-1]
    best_meta, best_weights = read_weight_file(whole_run / pipeline.BEST_FILE)
    meta, weights = read_weight_file(whole_run / last["player_file"])
    assert np.array_equal(best_weights, weights) and best_weights.dtype == weights.dtype
    assert best_meta["metadata"]["provenance"] == meta["metadata"]["provenance"]
    run = best_meta["metadata"]["bootstrap"]
    assert run["round"] == last["round"] and run["cpu_seconds"] == last["cpu_seconds"]
    assert run["cpu_seconds"] >= records[0]["cpu_seconds"] > 0
    assert run["budget"] == "smoke" and "--budget smoke" in run["command"]
    assert (run["rounds_played"], run["rounds_accepted"]) == (
        3,
        len([r for r in records if r["accepted"]]),
    )


def test_a_resume_with_another_budget_is_refused(whole_run: Path) -> None:
    assert main(["bootstrap", "--out", str(whole_run), "--budget", "standard", "--quiet"]) == 2


def _kill_on_call(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, call: int) -> None:
    """Make ``owner.name`` raise :class:`Killed` on its ``call``-th call, once."""
    real: Callable[..., Any] = getattr(owner, name)
    calls = {"n": 0}

    def patched(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == call:
            raise Killed(name)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, patched)


#: Where each kill lands: round 0's games, a self-play chunk, a fit epoch, a gate game.
KILLS = [
    (training_run, "play_game", 4),
    (selfplay, "play_game", 3),
    (perspective_fit, "save_checkpoint", 2),
    (SprtWatch, "add", 3),
]


def test_a_run_killed_in_each_step_resumes_to_the_same_files(
    whole_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = tmp_path / "killed"
    command = json.loads((whole_run / "bootstrap.json").read_text())["command"]
    for owner, name, call in KILLS:
        with monkeypatch.context() as patch:
            _kill_on_call(patch, owner, name, call)
            with pytest.raises(Killed):
                bootstrap(run, SMOKE, 0, command, OPTIONS)
    assert [r["round"] for r in bootstrap(run, SMOKE, 0, command, OPTIONS)] == [0, 1, 2]

    def same_weights(relative: str) -> None:
        a, b = load_weights(whole_run / relative), load_weights(run / relative)
        assert np.array_equal(a.weights, b.weights), relative

    same_weights("round-00/train/weights.npz")
    for number in (1, 2):
        folder = round_dir(whole_run, number).relative_to(whole_run)
        for chunk in sorted((whole_run / folder / "data").glob("*.tspos")):
            # the same records; the header names the player's file, whose hash covers
            # its metadata (dates, CPU time), so only its other fields compare
            other = run / folder / "data" / chunk.name
            assert np.array_equal(read_records(chunk), read_records(other))
            head, again = read_header(chunk)[0], read_header(other)[0]
            assert head.pop("player_sha256") != "" and again.pop("player_sha256") != ""
            assert head == again
        same_weights(str(folder / "candidate.npz"))
        gates = [
            json.loads((r / folder / "gate" / "gate.json").read_text()) for r in (whole_run, run)
        ]
        keys = ("decision", "wins", "draws", "losses")
        assert [gates[0][k] for k in keys] == [gates[1][k] for k in keys]
    whole = [
        {k: r[k] for k in ("games", "positions", "accepted")} for r in finished_rounds(whole_run)
    ]
    again = [{k: r[k] for k in ("games", "positions", "accepted")} for r in finished_rounds(run)]
    assert whole == again


def test_foreign_data_in_a_round_stops_the_fit(whole_run: Path, tmp_path: Path) -> None:
    import shutil

    from treestrap.distill.position_file import PositionWriter

    run = tmp_path / "foreign"
    shutil.copytree(whole_run, run)
    # round 2's data again, as if a stranger had played one of its chunks
    rounds = finished_rounds(run)[:2]
    (run / "rounds.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rounds))
    shutil.rmtree(round_dir(run, 2) / "fit")
    (round_dir(run, 2) / "candidate.npz").unlink()
    chunk = round_dir(run, 2) / "data" / "chunk-0000.tspos"
    records = np.array(read_records(chunk))
    chunk.unlink()
    with PositionWriter(chunk, {"player": "stranger.npz", "player_sha256": "f" * 64}) as w:
        w.write(records)
    with pytest.raises(pipeline.ForeignDataError, match=r"stranger\.npz"):
        bootstrap(run, SMOKE, 0, "test", OPTIONS)


def test_a_budget_change_goes_into_the_report_and_the_best_file(
    whole_run: Path, tmp_path: Path
) -> None:
    import shutil

    from treestrap.bootstrap.provider import bootstrap_provider
    from treestrap.evaluation.weight_file_format import read_weight_file

    run = tmp_path / "changed"
    shutil.copytree(whole_run, run)
    command = "treestrap bootstrap --set gate.max_games=20"
    pipeline.open_run(run, SMOKE, 0, command, bootstrap_provider("chess"), [("gate.max_games", 20)])
    pipeline.publish(run)
    change = {"from_round": 3, "set": {"gate.max_games": 20}, "command": command}
    meta, _ = read_weight_file(run / pipeline.BEST_FILE)
    assert meta["metadata"]["bootstrap"]["changes"] == [change]
    assert f"- from round 3: gate.max_games=20 (`{command}`)" in (run / "report.md").read_text()


def test_a_fit_measures_the_best_network_on_the_same_held_out_games(
    whole_run: Path, tmp_path: Path
) -> None:
    """Where the best player is a network, a round's fit records its held-out loss
    beside the candidate's, on the same games; round 0's linear player has none."""
    from treestrap.bootstrap.chess_fitting import fit_candidate
    from treestrap.bootstrap.pipeline import round_data_files

    assert finished_rounds(whole_run)[1]["best_held_out_loss"] is None
    train, held_out = round_data_files(whole_run, 2, SMOKE)
    network = round_dir(whole_run, 1) / "candidate.npz"  # the best, as if accepted
    fit = fit_candidate(
        tmp_path / "candidate.npz", train, held_out, SMOKE, network, 16, tmp_path / "fit", False
    )
    loss, _ = perspective_fit.held_out_errors(load_weights(network), held_out, SMOKE.fit.settings())
    assert fit["best_held_out_loss"] == round(loss, 5)
    assert fit["best_held_out_loss"] != fit["held_out_loss"]
    record = {**finished_rounds(whole_run)[2], "best_held_out_loss": loss}
    assert f"(best {loss:.4f})" in rounds_table([record])
