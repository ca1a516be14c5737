"""The bootstrap chain's measured curve (``treestrap curve --bootstrap RUN`` and
``--presets``): the accepted players in one round robin, rated with the first at 0 and
plotted at the CPU hours the chain recorded; a stopped tournament resumes without
playing a game twice and is not rated while it has games left. The run's own table and
curve call their summed gate estimates what they are.

Everything plays at depth 1, two games a pair; the run is a smoke run whose gates
accept every candidate without playing (a stand-in gate), so that it has accepted
rounds to rate.
"""

from __future__ import annotations

import csv
import dataclasses
import json
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from treestrap.bootstrap import pipeline
from treestrap.bootstrap.chess_provider import CHESS_BOOTSTRAP
from treestrap.bootstrap.gate import GateResult
from treestrap.bootstrap.measured_curve import TOURNAMENT_DIR, preset_players, rate_chain
from treestrap.bootstrap.report import GATE_SUM_BIAS, rounds_table
from treestrap.cli import main
from treestrap.evaluation.weight_file_format import read_weight_file
from treestrap.play.errors import UnfinishedTournament
from treestrap.play.game import GameRecord, GameSetup
from treestrap.play.gamepool import games_run_by, run_games
from treestrap.play.results_db import ResultsDB

FAST = ["--tc", "depth=1", "--games-per-pair", "2", "--workers", "1"]
#: What the stand-in gates report for rounds 1 and 2: both accepted.
GATE_ELO = {1: 50.0, 2: 30.0}


def _accepting_gate(
    candidate: Path, best: Path, out_dir: Path, plan: object, progress: bool
) -> GateResult:
    """A gate that accepts without playing (the real one would reject a smoke round)."""
    number = int(out_dir.parent.name.removeprefix("round-"))
    elo = GATE_ELO[number]
    return GateResult(True, "H1", 0, 0, 0, 0, elo, elo - 40, elo + 40, 3.0, "stand-in gate")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A smoke run (round 0 and two network rounds) whose every round was accepted."""
    folder = tmp_path_factory.mktemp("measured") / "run"
    provider = dataclasses.replace(CHESS_BOOTSTRAP, run_gate=_accepting_gate)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pipeline, "bootstrap_provider", lambda game: provider)
        assert main(["bootstrap", "--out", str(folder), "--budget", "smoke", "--quiet"]) == 0
    return folder


def _curve_rows(out: Path) -> list[dict[str, str]]:
    with open(out / "curve.csv", newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _stored_ids(tournament: Path) -> list[int]:
    with ResultsDB.open(tournament) as db:
        return [g.id for g in db.games()]


def test_the_rounds_table_and_report_call_the_sum_what_it_is(run: Path) -> None:
    records = pipeline.finished_rounds(run)
    assert [r["elo_vs_round0"] for r in records] == [0.0, 50.0, 80.0]  # the stored name stays
    assert "| sum of gate estimates vs round 0 |" in rounds_table(records)
    report = (run / "report.md").read_text()
    assert GATE_SUM_BIAS in report and "treestrap curve --bootstrap" in report
    assert "Elo vs round 0" not in report


def test_a_runs_curve_rates_its_accepted_rounds_at_their_cpu_hours(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "curve"
    assert main(["curve", "--bootstrap", str(run), "--out", str(out), *FAST]) == 0
    records = pipeline.finished_rounds(run)
    rows = _curve_rows(out)
    assert [r["player"] for r in rows] == ["round-00", "round-01", "round-02"]
    # x: the CPU seconds from random weights each round's record holds
    assert [float(r["cpu_seconds"]) for r in rows] == [r["cpu_seconds"] for r in records]
    assert [float(r["gate_sum"]) for r in rows] == [0.0, 50.0, 80.0]
    assert float(rows[0]["elo"]) == 0.0  # round 0 is the anchor
    assert all(float(r["lower95"]) <= float(r["elo"]) <= float(r["upper95"]) for r in rows)
    assert (out / "curve.png").stat().st_size > 5_000
    assert len(_stored_ids(out / TOURNAMENT_DIR)) == 6  # 3 players, 2 games a pair
    printed = capsys.readouterr().out
    assert "round-01 -> round-02:" in printed and GATE_SUM_BIAS in printed
    # The same command again resumes a finished tournament: nothing more is played.
    again: list[int] = []
    with games_run_by(_recording(again)):
        assert main(["curve", "--bootstrap", str(run), "--out", str(out), *FAST]) == 0
    assert again == [] and len(_stored_ids(out / TOURNAMENT_DIR)) == 6


def _recording(played: list[int], stop_after: int | None = None) -> Callable[..., list[int]]:
    """The real game runner, noting each game it is given; with ``stop_after``, a
    Ctrl-C once that many games have ended (a stopped run)."""

    def run(
        setups: Mapping[int, GameSetup],
        workers: int,
        on_done: Callable[[int, GameRecord], None],
        on_problem: Callable[[str], None],
    ) -> list[int]:
        def done(game_id: int, record: GameRecord) -> None:
            on_done(game_id, record)
            played.append(game_id)
            if stop_after is not None and len(played) == stop_after:
                raise KeyboardInterrupt

        return run_games(setups, workers, done, on_problem)

    return run


def test_presets_resume_without_replaying_and_an_unfinished_store_is_not_rated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "presets"
    argv = ["curve", "--presets", "zero", "zero2", "zero3", "--out", str(out), *FAST]
    first: list[int] = []
    with games_run_by(_recording(first, stop_after=2)):
        assert main(argv) == 130  # stopped: the stored games stay
    tournament = out / TOURNAMENT_DIR
    assert sorted(_stored_ids(tournament)) == sorted(first) and len(first) == 2
    assert not (out / "curve.csv").exists()
    with pytest.raises(UnfinishedTournament, match="holds 2 of the 6 games"):
        rate_chain(preset_players(["zero", "zero2", "zero3"]), tournament)
    assert main(["rate", str(tournament)]) == 1
    capsys.readouterr()
    second: list[int] = []
    with games_run_by(_recording(second)):
        assert main(argv) == 0
    assert not set(first) & set(second) and len(second) == 4  # no game played twice
    assert sorted(_stored_ids(tournament)) == list(range(6))
    rows = _curve_rows(out)
    for row in rows:  # x: the chain's CPU hours each preset's file records
        meta = read_weight_file(_preset_file(row["player"]))[0]["metadata"]["bootstrap"]
        assert float(row["cpu_seconds"]) == pytest.approx(meta["cpu_seconds"], abs=0.05)
    assert [r["player"] for r in rows] == ["zero", "zero2", "zero3"]
    assert float(rows[0]["elo"]) == 0.0 and float(rows[0]["gate_sum"]) == 0.0
    assert float(rows[2]["gate_sum"]) > float(rows[1]["gate_sum"]) > 0


def _preset_file(name: str) -> Path:
    from treestrap.bootstrap.start_file import resolve_start

    return resolve_start(name, "chess")


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--presets", "zero", "learned"], "not a preset made by treestrap bootstrap"),
        (["--presets", "zero"], "two or more different presets"),
        (["--presets", "zero", "zero2", "--anchor-elo", "5"], "--anchor-elo is for training"),
        (["somerun", "--presets", "zero", "zero2"], "do not go with --bootstrap"),
        ([], "give training run directories, --bootstrap RUN or --presets"),
    ],
)
def test_bad_chains_are_refused_with_one_line(
    argv: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["curve", *argv, "--out", str(tmp_path / "o"), *FAST]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0]


def test_a_run_without_an_accepted_round_has_no_curve(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / pipeline.SETTINGS_FILE).write_text(json.dumps({"game": "chess"}))
    record = {"round": 0, "accepted": True, "player_file": "w.npz", "cpu_seconds": 1.0}
    (run / pipeline.ROUNDS_FILE).write_text(json.dumps({**record, "elo_vs_round0": 0.0}) + "\n")
    assert main(["curve", "--bootstrap", str(run), "--out", str(tmp_path / "o"), *FAST]) == 2
    assert "1 accepted round(s)" in capsys.readouterr().err
