"""The ``treestrap rate`` subcommand: tables, outputs, SPRT mode and clean errors."""

from __future__ import annotations

import argparse
import csv
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from treestrap.commands.rate import add_parser

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE games (id INTEGER PRIMARY KEY, round INTEGER, white TEXT NOT NULL,
  black TEXT NOT NULL, opening TEXT, result TEXT NOT NULL, termination TEXT, plies INTEGER,
  pgn TEXT, finished_at TEXT);
"""

RESULTS = [
    ("strong", "weak", "1-0"),
    ("weak", "strong", "0-1"),
    ("strong", "mid", "1/2-1/2"),
    ("mid", "strong", "0-1"),
    ("mid", "weak", "1-0"),
    ("weak", "mid", "1/2-1/2"),
    ("strong", "weak", "1-0"),
    ("mid", "weak", "0-1"),
    ("strong", "mid", "1-0"),
]


def rate(args: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="treestrap")
    add_parser(parser.add_subparsers())
    parsed = parser.parse_args(["rate", *args])
    return int(parsed.func(parsed))


def write_pgn(path: Path, games: list[tuple[str, str, str]]) -> Path:
    blocks = [f'[White "{w}"]\n[Black "{b}"]\n[Result "{r}"]\n\n{r}\n' for w, b, r in games]
    path.write_text("\n".join(blocks))
    return path


def write_run_dir(run_dir: Path, games: list[tuple[str, str, str]]) -> Path:
    run_dir.mkdir()
    conn = sqlite3.connect(run_dir / "results.sqlite")
    conn.executescript(SCHEMA)
    conn.executemany(
        "INSERT INTO games (round, white, black, result) VALUES (1, ?, ?, ?)",
        [*games, ("strong", "weak", "*")],  # an unfinished game, not counted
    )
    conn.commit()
    conn.close()
    return run_dir


def table_rows(out: str) -> dict[str, list[str]]:
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["Rank", "Name", "Elo"]
    rows = {}
    for line in lines[1:]:
        parts = line.split()
        if len(parts) == 8 and parts[0].isdigit():
            rows[parts[1]] = parts
    return rows


def test_table_from_pgn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pgn = write_pgn(tmp_path / "games.pgn", RESULTS)
    assert rate([str(pgn)]) == 0
    rows = table_rows(capsys.readouterr().out)
    assert list(rows) == ["strong", "mid", "weak"]
    assert rows["strong"][5] == "6"  # games
    assert rows["strong"][6] == "91.7%"  # 5.5 of 6


def test_run_dir_and_pgn_are_concatenated_and_anchored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = write_run_dir(tmp_path / "run", RESULTS)
    pgn = write_pgn(tmp_path / "more.pgn", RESULTS)
    code = rate([str(run_dir), str(pgn), "--anchor", "weak=250", "--los"])
    out = capsys.readouterr().out
    assert code == 0
    rows = table_rows(out)
    assert rows["strong"][5] == "12"  # 6 + 6 games; the "*" one is skipped
    assert rows["weak"][2:5] == ["250", "0", "0"]
    assert "anchored at weak = 250" in out
    assert "LOS" in out


def test_csv_and_json_outputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = write_run_dir(tmp_path / "run", RESULTS) / "results.sqlite"
    out_csv, out_json = tmp_path / "r.csv", tmp_path / "r.json"
    args = [str(db), "--csv", str(out_csv), "--json", str(out_json), "--advantage", "0"]
    assert rate(args) == 0
    capsys.readouterr()
    with open(out_csv, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["name"] for r in rows] == ["strong", "mid", "weak"]
    assert float(rows[0]["lower"]) < float(rows[0]["elo"]) < float(rows[0]["upper"])
    data = json.loads(out_json.read_text())
    assert data["advantage"] == 0.0 and data["advantage_sd"] == 0.0
    assert data["draw_elo"] > 0
    assert len(data["los"]) == 3 and data["los"][0][2] > 0.5
    assert [p["name"] for p in data["players"]] == data["names"]


def test_sprt_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pgn = write_pgn(tmp_path / "games.pgn", RESULTS)
    args = [str(pgn), "--sprt", "0,10", "--player", "strong", "--opponent", "weak"]
    assert rate(args) == 0
    out = capsys.readouterr().out
    assert "strong vs weak: +3 =0 -0 (3 games)" in out
    assert "SPRT elo0=0 elo1=10 alpha=0.05 beta=0.05: LLR" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--anchor", "nobody=100"], "anchor player 'nobody'"),
        (["--anchor", "weak"], "NAME=ELO"),
        (["--sprt", "0,10"], "--player"),
        (["--sprt", "ten", "--player", "strong", "--opponent", "weak"], "ELO0,ELO1"),
    ],
)
def test_bad_options_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    pgn = write_pgn(tmp_path / "games.pgn", RESULTS)
    assert rate([str(pgn), *extra]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("error: ") and message in captured.err
    assert "Traceback" not in captured.err


def test_missing_and_empty_sources_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert rate([str(tmp_path / "missing.pgn")]) == 2
    assert capsys.readouterr().err.startswith("error: no such file")
    assert rate([str(tmp_path)]) == 2  # a directory without results.sqlite
    assert "results.sqlite" in capsys.readouterr().err
    empty = tmp_path / "empty.pgn"
    empty.write_text("")
    assert rate([str(empty)]) == 2
    assert "no finished games" in capsys.readouterr().err


def test_importing_the_command_stays_light() -> None:
    code = (
        "import sys, treestrap.commands.rate; "
        "heavy = [m for m in ('numpy', 'numba', 'matplotlib', 'chess') if m in sys.modules]; "
        "sys.exit(1 if heavy else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
