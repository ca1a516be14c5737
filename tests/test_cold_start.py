"""A cold start (src/treestrap/engine/compile_job.py): the engine answers at once, its
compile runs in a job of its own that outlives an engine ended early, a later engine
loads what the job cached, and the quick search before that uses the engine's own
evaluation (src/treestrap/engine/quick_evaluation.py).

A whole cold compile takes minutes, so these tests start from a copy of this session's
cache without its marker: the job then has kernels to load, not to compile, but it runs
the same steps, as a process of its own, after the engine is gone.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import chess
import pytest

from treestrap.core.notation import parse_fen
from treestrap.engine import compile_job
from treestrap.engine.quick_evaluation import own_scorer, perspective_scorer
from treestrap.engine.quick_move import quick_move
from treestrap.evaluation.presets import preset_model

UCI_COMMAND = [sys.executable, "-m", "treestrap.cli", "uci"]


@pytest.fixture
def unmarked_cache(tmp_path: Path) -> dict[str, str]:
    """An environment whose compile cache holds this session's kernels but no word
    from a job that they are all there."""
    compile_job.compile_kernels()  # this session's cache: filled, or loaded
    here = compile_job.cache_dir()
    assert here is not None
    base = tmp_path / "cache"
    ignored = shutil.ignore_patterns(
        compile_job.READY_MARKER, compile_job.LOCK_FILE, compile_job.LOG_FILE
    )
    shutil.copytree(here, base / here.name, ignore=ignored)
    return {**os.environ, "TREESTRAP_CACHE_DIR": str(base)}


def _marker(env: dict[str, str]) -> Path:
    base = Path(env["TREESTRAP_CACHE_DIR"])
    (version,) = [p for p in base.iterdir() if p.is_dir()]
    return version / compile_job.READY_MARKER


def _engine(env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        UCI_COMMAND,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
        env=env,
    )


def _read_until(proc: subprocess.Popen[str], prefix: str) -> list[str]:
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line.rstrip("\n"))
        if line.startswith(prefix):
            return lines
    raise AssertionError(f"the engine ended before {prefix!r}: {lines}")


def test_the_compile_outlives_an_engine_killed_at_once(unmarked_cache: dict[str, str]) -> None:
    engine = _engine(unmarked_cache)
    assert engine.stdin is not None
    engine.stdin.write("uci\n")
    engine.stdin.flush()
    _read_until(engine, "uciok")
    engine.send_signal(signal.SIGKILL)  # as a runner ends an engine it has no more use for
    engine.wait()
    marker = _marker(unmarked_cache)
    deadline = time.monotonic() + 600  # a whole compile, should the cache miss
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert marker.exists(), "the compile job did not finish after its engine was killed"
    log = (marker.parent / compile_job.LOG_FILE).read_text()
    assert "search and evaluation" in log and "done" in log

    # The next engine loads the kernels: its first timed go is the compiled search's.
    later = _engine(unmarked_cache)
    assert later.stdin is not None
    later.stdin.write("uci\nisready\nposition startpos\ngo wtime 2000 btime 2000\n")
    later.stdin.flush()
    lines = _read_until(later, "bestmove")
    later.stdin.write("quit\n")
    later.stdin.flush()
    assert later.wait(30) == 0
    assert not any("still compiling" in line for line in lines), lines
    assert any(line.startswith("info depth ") for line in lines), lines


def test_treestrap_compile_fills_the_cache_once(unmarked_cache: dict[str, str]) -> None:
    command = [sys.executable, "-m", "treestrap.cli", "compile", "--quiet"]
    first = subprocess.run(command, env=unmarked_cache, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    assert "compiled" in first.stdout and _marker(unmarked_cache).exists()
    again = subprocess.run(command, env=unmarked_cache, capture_output=True, text=True)
    assert again.returncode == 0 and "holds every kernel already" in again.stdout


def _random_boards(count: int, seed: int = 1) -> list[chess.Board]:
    rng, board, boards = random.Random(seed), chess.Board(), []
    while len(boards) < count:
        moves = list(board.legal_moves)
        if not moves:
            board = chess.Board()
            continue
        board.push(rng.choice(moves))
        boards.append(board.copy(stack=False))
    return boards


@pytest.mark.parametrize("preset", ["zero5", "zero"])
def test_the_quick_evaluation_is_the_networks_own(preset: str) -> None:
    model = preset_model(preset)
    score = perspective_scorer(model)
    for board in _random_boards(40):
        assert score(board) == model.evaluate(parse_fen(board.fen())), board.fen()
        mirrored = board.mirror()
        assert score(mirrored) == score(board)  # colour symmetry, built into the network


def test_only_a_network_has_a_quick_evaluation_of_its_own() -> None:
    assert own_scorer(preset_model("zero5")) is not None
    assert own_scorer(preset_model("hand-set")) is None


def test_the_quick_search_with_the_network_takes_a_hanging_queen() -> None:
    score = own_scorer(preset_model("zero5"))
    assert score is not None
    board = chess.Board("4k3/8/8/3q4/8/8/3R4/3K4 w - - 0 1")
    assert quick_move(board, 0.5, score) == chess.Move.from_uci("d2d5")
