"""The ``treestrap dataset`` command line: a build and its summary, ``show``, and bad
input as one ``error:`` line with exit code 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from treestrap.cli import main

GAMES = (
    '[Event "a"]\n[WhiteElo "2500"]\n[BlackElo "2400"]\n[Result "1-0"]\n\n'
    "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n"
    '[Event "b"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n'
    '[Event "c"]\n[Result "1/2-1/2"]\n\n1. e4 e5 2. Nf3 Nc6 1/2-1/2\n\n'
    '[Event "d"]\n[Result "1-0"]\n\n1. e4 e5 2. Ke3 1-0\n\n'
)


@pytest.fixture
def pgn(tmp_path: Path) -> Path:
    path = tmp_path / "games.pgn"
    path.write_text(GAMES)
    return path


def test_build_prints_the_summary_and_show_repeats_it(
    pgn: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "data"
    args = ["dataset", "build", str(pgn), "--out", str(out), "--jobs", "1", "--no-progress"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "games: 4 read, 3 kept, 1 skipped (illegal_move 1)" in printed
    assert "positions: 18" in printed  # 8 + 5 + 5 positions of the three good games
    assert "positions/s" in printed
    assert main(["dataset", "show", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "games: 4 read, 3 kept, 1 skipped (illegal_move 1)" in shown
    assert "split 6:2:2" in shown and "sha256" in shown


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--split", "6:2"], "--split"),
        (["--split", "0:1:1"], "--split"),
        (["--min-elo", "strong"], "--min-elo"),
        (["--min-plies", "-3"], "--min-plies"),
        (["--undecided", "maybe"], "--undecided"),
        (["--event", "(unclosed"], "--event"),
        (["--rollout", "fairymax:depth=3"], "--rollout"),
        (["--rollout", "stockfish:depth=0"], "--rollout"),
        (["--stockfish-score", "deep"], "--stockfish-score"),
        (["--jobs", "0"], "--jobs"),
    ],
)
def test_bad_option_values_are_one_error_line(
    pgn: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    message: str,
) -> None:
    args = ["dataset", "build", str(pgn), "--out", str(tmp_path / "d"), "--no-progress"]
    assert main([*args, *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert message in err


def test_bad_inputs_are_one_error_line(
    pgn: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = [
        ["dataset", "build", str(tmp_path / "missing.pgn"), "--out", str(tmp_path / "d")],
        ["dataset", "build", str(pgn), "--out", str(pgn)],  # a file, not a directory
        ["dataset", "build", str(pgn), "--out", str(tmp_path)],  # not empty, not a dataset
        ["dataset", "show", str(tmp_path)],
        ["dataset", "show", str(tmp_path / "missing")],
        ["dataset", "generate", "--games", "2", "--nodes", "0", "--out", str(tmp_path / "g")],
        ["dataset", "generate", "--engine", "hand-set", "--games", "1", "--nodes", "10",
         "--out", str(tmp_path / "g.pgn")],
    ]  # fmt: skip
    for args in cases:
        assert main([*args, "--no-progress"] if args[1] != "show" else args) == 2, args
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1, (args, err)


def test_a_second_build_into_a_dataset_needs_resume(
    pgn: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["dataset", "build", str(pgn), "--out", str(tmp_path / "d"), "--no-progress"]
    assert main([*args, "--jobs", "1"]) == 0
    assert main([*args, "--jobs", "1"]) == 2
    assert "--resume" in capsys.readouterr().err
    assert main([*args, "--jobs", "1", "--resume"]) == 0
    assert main([*args, "--jobs", "1", "--resume", "--seed", "5"]) == 2
    assert "--seed: the dataset has 0, this build asks for 5" in capsys.readouterr().err
