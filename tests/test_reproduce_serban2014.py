"""``treestrap reproduce serban2014`` end to end on a tiny budget: a dataset of a few
dozen master games, the supervised starting points, four self-play runs of two games,
both gauntlets with Stockfish finishing, the table and the figures; a second
invocation that rewrites nothing, one that replays only what was lost, and bad input
that ends in one ``error:`` line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import data_dir, require, require_binary

from treestrap.cli import main
from treestrap.rating.results import load_results
from treestrap.reproduce import serban2014
from treestrap.reproduce.serban2014 import (
    ANCHOR_ELO,
    BUDGETS,
    RL_LOGREG,
    SL_LOGREG,
    Budget,
    SerbanResult,
    reproduce,
)
from treestrap.reproduce.serban2014 import settings as serban_settings

#: Seconds, not minutes: two self-play games of 12 plies per run over 40-node minimax
#: trees, 2-game pairs at depth 1, Stockfish finishing at depth 1.
TINY = Budget(
    epochs=1,
    candidates=((1.0, 1), (0.5, 1), (0.25, 1)),
    games=2,
    checkpoint_every=1,
    minimax_nodes=40,
    minimax_qnodes=4,
    train_plies=12,
    replay_size=2000,
    tree_nodes=40,
    batch_size=32,
    tc="depth=1",
    games_per_pair=2,
    max_plies=16,
    finish_tc="depth=1",
    finish_plies=16,
    note="test",
)
#: Master games of the tiny dataset: split 6:2:2 by game, every split has some.
GAMES = 40
#: The excerpt of The Week in Chess 920 that ships (reference/README.md).
SAMPLE = "games/twic0920-sample.pgn"


def _first_games(source: Path, target: Path, count: int) -> None:
    text = source.read_text(encoding="utf-8", errors="replace")
    starts = [i for i in range(len(text)) if text.startswith("[Event ", i)][: count + 1]
    target.write_text(text[: starts[count]], encoding="utf-8")


@pytest.fixture(scope="module")
def tiny_pgn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = data_dir() / SAMPLE
    require(source.exists(), f"reference file {SAMPLE} not found under {data_dir()}")
    pgn = tmp_path_factory.mktemp("pgn") / "tiny.pgn"
    _first_games(source, pgn, GAMES)
    return pgn


@pytest.fixture(scope="module")
def run(
    tiny_pgn: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, SerbanResult, list[str]]:
    require_binary("stockfish")
    out = tmp_path_factory.mktemp("serban") / "repro"
    lines: list[str] = []
    result = reproduce(
        out, TINY, pgn=str(tiny_pgn), seed=2, workers=2, progress=False, report=lines.append
    )
    return out, result, lines


def _stamps(out: Path) -> dict[str, int]:
    return {str(p.relative_to(out)): p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}


def test_every_stage_writes_its_files(run: tuple[Path, SerbanResult, list[str]]) -> None:
    out, _, lines = run
    for name in ("table.txt", "fig7_1.png", "fig7_2.png", "ratings.txt", "curve.csv"):
        assert (out / name).stat().st_size > 0, name
    assert (out / "dataset" / "manifest.json").exists()
    starts = json.loads((out / "starts" / "starts.json").read_text())
    assert set(starts["letters"]) == {"A", "B", "C"}
    accuracy = [starts[starts["letters"][k]]["test_accuracy"] for k in ("A", "B", "C")]
    assert accuracy == sorted(accuracy, reverse=True)  # A high, B medium, C low
    for label in ("rl-logreg", "mlp-a", "mlp-b", "mlp-c"):
        checkpoints = out / "selfplay" / label / "checkpoints"
        assert {p.name for p in checkpoints.glob("game-*.npz")} >= {
            "game-000000.npz",
            "game-000001.npz",
            "game-000002.npz",
        }
    # Figure 7.1: 2 RL LogReg checkpoints against the SL LogReg; Figure 7.2: 3 MLPs at
    # 0, 1 and 2 games against the best RL LogReg.
    assert len(load_results(out / "tournament" / "logreg")) == 2 * TINY.games_per_pair
    assert len(load_results(out / "tournament" / "mlp")) == 9 * TINY.games_per_pair
    stages = ["dataset:", "supervised:", "self-play:", "tournament 7.1:", "tournament 7.2:"]
    for prefix, line in zip([*stages, "report:"], lines, strict=True):
        assert line.startswith(prefix), line
    timings = json.loads((out / "timings.json").read_text())
    assert set(timings) == {s.rstrip(":") for s in stages} | {"report"}


def test_table_names_every_player_and_the_anchor(
    run: tuple[Path, SerbanResult, list[str]],
) -> None:
    out, result, _ = run
    table = (out / "table.txt").read_text()
    reference = result.reference
    assert reference.startswith(f"{RL_LOGREG}@")
    assert result.table.rating(reference).elo == pytest.approx(ANCHOR_ELO)
    row = next(line for line in table.splitlines() if line.strip().startswith(reference + " "))
    assert "250" in row and "(anchor)" in row
    players = [SL_LOGREG, f"{RL_LOGREG}@1", f"{RL_LOGREG}@2"]
    players += [f"MLP-{x}@{g}" for x in "ABC" for g in (0, 1, 2)]
    for name in players:
        assert any(line.strip().startswith(name + " ") for line in table.splitlines()), name
    assert "RL LogReg above SL LogReg" in table and "MLPs above LogReg" in table
    for letter in "ABC":
        assert f"  MLP {letter}: MLP-{letter}@2 - {reference}" in table
    assert "LOS" in table and "most frequent class" in table
    los = result.table.los(reference, SL_LOGREG)
    assert f"LOS {100 * los:.1f}%" in table


def test_a_second_invocation_rewrites_nothing(
    run: tuple[Path, SerbanResult, list[str]], tiny_pgn: Path
) -> None:
    out, first, _ = run
    before = _stamps(out)
    lines: list[str] = []
    again = reproduce(out, TINY, pgn=str(tiny_pgn), seed=2, progress=False, report=lines.append)
    assert _stamps(out) == before
    assert all(line.endswith("done before") for line in lines), lines
    assert again.reference == first.reference


def test_the_command_continues_a_directory_and_prints_its_table(
    run: tuple[Path, SerbanResult, list[str]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out, _, _ = run
    monkeypatch.setitem(BUDGETS, "quick", TINY)  # the directory's budget, by name
    before = _stamps(out)
    assert main(["reproduce", "serban2014", "--out", str(out), "--seed", "2"]) == 0
    printed = capsys.readouterr().out
    assert "self-play: done before" in printed and "report: done before" in printed
    assert (out / "table.txt").read_text() in printed
    assert "fig7_1.png" in printed and "fig7_2.png" in printed
    assert _stamps(out) == before


def test_a_lost_tournament_is_replayed_and_nothing_else(
    run: tuple[Path, SerbanResult, list[str]],
) -> None:
    out, _, _ = run
    games = load_results(out / "tournament" / "mlp")
    shutil.rmtree(out / "tournament" / "mlp")
    kept = {k: v for k, v in _stamps(out).items() if not k.startswith("tournament/mlp")}
    kept = {k: v for k, v in kept.items() if "/" in k}  # stage outputs, not the report
    lines: list[str] = []
    reproduce(out, TINY, seed=2, progress=False, report=lines.append)  # --pgn not needed now
    after = _stamps(out)
    assert {k: after[k] for k in kept} == kept
    assert [line.split(":")[0] for line in lines if not line.endswith("done before")] == [
        "tournament 7.2",
        "report",
    ]
    assert len(load_results(out / "tournament" / "mlp")) == len(games)


def test_other_settings_in_the_same_directory_are_refused(
    run: tuple[Path, SerbanResult, list[str]],
) -> None:
    out, _, _ = run
    with pytest.raises(ValueError, match=r"other settings \(seed\)"):
        reproduce(out, TINY, seed=3, progress=False)


def test_unknown_budget_is_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r"
    assert main(["reproduce", "serban2014", "--budget", "paper", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown budget 'paper' for serban2014 (known: quick, standard)")
    assert "Traceback" not in err and not out.exists()
    with pytest.raises(SystemExit) as exit_info:
        main(["reproduce", "serban2014", "--budget", "huge", "--out", str(out)])
    assert exit_info.value.code == 2
    assert "invalid choice: 'huge'" in capsys.readouterr().err
    with pytest.raises(ValueError, match="unknown budget 'paper'"):
        reproduce(out, "paper")


def test_missing_stockfish_says_how_to_go_on(
    tmp_path: Path, tiny_pgn: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setattr(serban_settings, "find_engine", lambda name: None)
    out = tmp_path / "r"
    args = ["reproduce", "serban2014", "--pgn", str(tiny_pgn), "--out", str(out)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: stockfish not found") and "--no-finish" in err
    assert len(err.strip().splitlines()) == 1 and not out.exists()
    assert serban2014.check_finisher(False) is None  # --no-finish needs no engine


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        (["serban2014"], "give --pgn PGN"),
        (["serban2014", "--pgn", "missing.pgn"], "--pgn: no such file: missing.pgn"),
        (["serban2014", "--backend", "ray"], "local backend"),
        (["veness2009", "--no-finish"], "--no-finish: options of serban2014"),
    ],
)
def test_bad_options_are_one_error_line(
    args: list[str], phrase: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    require_binary("stockfish")
    out = tmp_path / "r"
    assert main(["reproduce", *args, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and phrase in err and "Traceback" not in err
    assert not out.exists()


def test_budgets_follow_serbans_protocol() -> None:
    for budget in BUDGETS.values():
        assert budget.games == 50 and budget.checkpoint_every == 10  # Figures 7.1, 7.2
        assert budget.max_plies == 200  # then the finisher plays both sides
        assert budget.replay_size == 20_000 and budget.batch_size == 2000  # section 7.3, 7.5
        assert len(budget.candidates) == 3  # A, B, C
    assert BUDGETS["standard"].finish_tc == "depth=14"
    config = serban2014.selfplay_config("logreg", Path("sl.npz"), BUDGETS["quick"], 1, None)
    assert config.objective == "soft-cross-entropy" and config.step_size == 0.0031
    assert config.momentum == 0.0
    config.validate()
    mlp = serban2014.selfplay_config("mlp:20", Path("a.npz"), BUDGETS["quick"], 1, None)
    assert mlp.momentum == 0.9
    mlp.validate()
