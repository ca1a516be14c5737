"""The ``treestrap perft`` command: counts, divide, EPD suites and error handling."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import chess
import pytest
from conftest import REPO_ROOT

from treestrap.cli import main

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def _nodes(out: str) -> int:
    match = re.search(r"depth \d+: (\d+) nodes", out)
    assert match, out
    return int(match.group(1))


@pytest.mark.parametrize(
    ("args", "nodes"),
    [
        (["--depth", "3"], 8902),
        (["--depth", "0"], 1),
        (["--depth", "1"], 20),
        (["--depth", "3", "--no-bulk"], 8902),
        (["--fen", KIWIPETE, "--depth", "2"], 2039),
        (["--fen", KIWIPETE, "--depth", "3", "--no-bulk"], 97862),
    ],
)
def test_perft_counts(capsys: pytest.CaptureFixture[str], args: list[str], nodes: int) -> None:
    assert main(["perft", *args]) == 0
    out, err = capsys.readouterr()
    assert _nodes(out) == nodes
    assert f"depth {args[args.index('--depth') + 1]}: {nodes} nodes" in out
    assert err == ""


@pytest.mark.usefixtures("kernels_load_from_cache")
@pytest.mark.parametrize(("fen", "depth", "total"), [(None, 3, 8902), (KIWIPETE, 2, 2039)])
def test_divide(
    capsys: pytest.CaptureFixture[str], fen: str | None, depth: int, total: int
) -> None:
    args = ["perft", "--depth", str(depth), "--divide"] + (["--fen", fen] if fen else [])
    assert main(args) == 0
    out = capsys.readouterr().out
    rows = re.findall(r"^([a-h][1-8][a-h][1-8][nbrq]?): (\d+)$", out, flags=re.M)
    moves = [m for m, _ in rows]
    assert moves == sorted(moves)
    board = chess.Board(fen or chess.STARTING_FEN)
    assert set(moves) == {m.uci() for m in board.legal_moves}
    assert len(moves) == board.legal_moves.count()
    assert sum(int(c) for _, c in rows) == _nodes(out) == total


def _write_epd(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "suite.epd"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_epd_one_passed_one_failed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write_epd(
        tmp_path,
        [
            f"{chess.STARTING_FEN} ;D2 400",
            f"{KIWIPETE} ;D1 47",  # wrong: 48
        ],
    )
    assert main(["perft", "--epd", str(path)]) == 1
    out = capsys.readouterr().out
    assert "1 passed, 1 failed" in out
    assert re.search(r"FAIL line 2 D1: got 48, expected 47", out)


def test_epd_all_correct(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write_epd(
        tmp_path,
        [
            "# a comment, then a blank line",
            "",
            f"{chess.STARTING_FEN} ;D1 20 ;D2 400 ;D3 8902",
            f'{KIWIPETE} ;D1 48 ;D2 2039 ;id "Kiwipete"',
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -; D1 14; D2 191; D3 2812",
        ],
    )
    assert main(["perft", "--epd", str(path)]) == 0
    out = capsys.readouterr().out
    assert "8 passed, 0 failed" in out
    assert "FAIL" not in out


def test_epd_depth_and_max_nodes_filters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # D3 is wrong on purpose: the filters must skip it.
    path = _write_epd(tmp_path, [f"{chess.STARTING_FEN} ;D1 20 ;D2 400 ;D3 1"])
    assert main(["perft", "--epd", str(path), "--depth", "2"]) == 0
    assert "2 passed, 0 failed" in capsys.readouterr().out
    assert main(["perft", "--epd", str(path), "--max-nodes", "1000", "-v"]) == 1
    out = capsys.readouterr().out
    assert "2 passed, 1 failed" in out  # D3's expected count 1 is under the cap
    assert out.count("ok   line 1") == 2


def test_epd_bad_fen_line_counts_as_failed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write_epd(
        tmp_path, [f"{chess.STARTING_FEN} ;D1 20", "4k3/8/8/8/8/8/8/4KK2 w - - 0 1 ;D1 5"]
    )
    assert main(["perft", "--epd", str(path)]) == 1
    out = capsys.readouterr().out
    assert "1 passed, 1 failed" in out
    assert "FAIL line 2" in out


@pytest.mark.parametrize(
    "args",
    [
        ["--fen", "not a fen", "--depth", "2"],
        ["--fen", "4k3/8/8/8/8/8/8/4KK2 w - - 0 1", "--depth", "2"],
        ["--fen", "4k3/8/8/8/8/8/8/4K3 w K - 0 1", "--depth", "1", "--divide"],
    ],
)
def test_bad_fen_is_an_error(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    assert main(["perft", *args]) == 2
    out, err = capsys.readouterr()
    assert err.startswith("error: ")
    assert "Traceback" not in err + out
    assert "FEN" in err


def test_missing_epd_file_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft", "--epd", str(tmp_path / "nope.epd")]) == 2
    out, err = capsys.readouterr()
    assert err.startswith("error: ")
    assert "Traceback" not in err + out


def test_malformed_epd_count_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write_epd(tmp_path, [f"{chess.STARTING_FEN} ;D1 twenty"])
    assert main(["perft", "--epd", str(path)]) == 2
    assert capsys.readouterr().err.startswith("error: ")


def test_missing_depth_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft"]) == 2
    assert "--depth" in capsys.readouterr().err


def test_negative_depth_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["perft", "--depth", "-1"])
    assert exc.value.code == 2
    assert "depth" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args",
    [["--depth", "100"], ["--depth", "100", "--divide"], ["--depth", "0", "--divide"]],
    ids=["perft-100", "divide-100", "divide-0"],
)
def test_out_of_range_depth_is_not_a_traceback(
    capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    """A depth perft or divide cannot do is bad input like a bad FEN: exit code 2 and
    an 'error:' line (or, for divide at depth 0, an answer), never an exception."""
    code = main(["perft", *args])
    out, err = capsys.readouterr()
    if code == 2:
        assert err.startswith("error: ")
        assert "depth" in err
    else:
        assert code == 0
        assert _nodes(out) == 1


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    assert "perft" in capsys.readouterr().out


def test_console_script() -> None:
    exe = shutil.which("treestrap", path=str(Path(sys.executable).parent))
    cmd = [exe] if exe else [sys.executable, "-m", "treestrap.cli"]
    proc = subprocess.run(
        [*cmd, "perft", "--depth", "2"], capture_output=True, text=True, cwd=REPO_ROOT
    )
    assert proc.returncode == 0, proc.stderr
    assert _nodes(proc.stdout) == 400
    proc = subprocess.run(
        [*cmd, "perft", "--fen", "bad", "--depth", "2"], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ")
    assert "Traceback" not in proc.stderr


def test_module_entry_point() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "treestrap.cli", "perft", "--depth", "1"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    assert _nodes(proc.stdout) == 20
