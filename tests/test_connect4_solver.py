"""The exact solver against the reference file ``connect4/solved-1000.txt``: all seven
column scores of each of its 1000 positions, scored by Pascal Pons's solver (format in
``reference/README.md``), must come out the same.

The file takes minutes on one core, so the test splits it between this process and a
child process (two cores). The child loads the recursive kernel from numba's cache that
this process wrote, which is also the crash the cache can cause (see
:mod:`treestrap.core.jit`); ``test_the_kernels_run_from_a_fresh_cache`` checks that in a
cache of its own as well.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO_ROOT

from treestrap.connect4.board import make_move, parse_moves, unmake_move
from treestrap.connect4.solver import FULL_COLUMN, Solver, win_now_score

REFERENCE = "connect4/solved-1000.txt"

#: The child's half: solves the lines given on stdin, prints their moves and scores.
_CHILD = """
import json, sys
from treestrap.connect4.board import parse_moves
from treestrap.connect4.solver import Solver
solver = Solver()
out = [(m, [int(s) for s in solver.analyze(parse_moves(m))]) for m in json.load(sys.stdin)]
print(json.dumps(out))
"""


def read_reference(path: Path) -> list[tuple[str, list[int]]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            moves, *scores = line.split()
            assert len(scores) == 7, line
            rows.append((moves, [int(s) for s in scores]))
    return rows


def _child_env() -> dict[str, str]:
    src = str(REPO_ROOT / "src")
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{path}" if path else src}


def test_every_reference_position_scores_as_the_file_says(reference_data) -> None:
    rows = read_reference(reference_data(REFERENCE))
    assert len(rows) == 1000
    solver = Solver()
    # compile (and cache) the kernels here before the child starts, so it loads them
    assert list(solver.analyze(parse_moves(rows[-1][0]))) == rows[-1][1]
    mine, theirs = rows[0::2], rows[1::2]
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO_ROOT,
        env=_child_env(),
    )
    assert child.stdin is not None
    child.stdin.write(json.dumps([m for m, _ in theirs]))
    child.stdin.close()
    wrong = []
    for moves, expected in mine:
        got = [int(s) for s in solver.analyze(parse_moves(moves))]
        if got != expected:
            wrong.append(f"{moves}: solver {got}, file {expected}")
    out, err = child.stdout.read(), child.stderr.read()  # type: ignore[union-attr]
    assert child.wait(timeout=1800) == 0, f"the child process failed: {err[-2000:]}"
    solved = dict(json.loads(out))
    assert sorted(solved) == sorted(m for m, _ in theirs)
    for moves, expected in theirs:
        if solved[moves] != expected:
            wrong.append(f"{moves}: solver {solved[moves]}, file {expected}")
    assert not wrong, f"{len(wrong)} positions differ:\n" + "\n".join(wrong[:20])


def test_solve_is_the_best_column_and_a_column_score_is_minus_the_child(reference_data) -> None:
    rows = read_reference(reference_data(REFERENCE))
    solver = Solver()
    # the later positions solve in milliseconds
    for moves, expected in [r for r in rows if len(r[0]) >= 20][:60]:
        pos = parse_moves(moves)
        assert solver.solve(pos) == max(expected)
        for col, score in enumerate(expected):
            if score == FULL_COLUMN:
                assert pos.heights[col] == 6
                continue
            make_move(pos, col)
            assert -solver.solve(pos) == score
            unmake_move(pos)
        assert solver.best_moves(pos) == [c for c in range(7) if expected[c] == max(expected)]


def test_scores_at_the_end_of_the_game() -> None:
    solver = Solver(table_bits=12)
    # x has three on the bottom row and moves: a win with its fourth disc
    pos = parse_moves("172737")
    assert solver.solve(pos) == win_now_score(6) == 22 - 4
    scores = solver.analyze(pos)
    assert scores[3] == 18 and scores.max() == 18
    # any other move lets o make four in column 7 at once (o's fourth disc: 22 - 4)
    assert scores[6] < 18 and all(scores[c] == -18 for c in (0, 1, 2, 4, 5))
    make_move(pos, 3)
    assert solver.solve(pos) == -18  # o to move has lost
    with pytest.raises(ValueError, match="over"):
        solver.analyze(pos)
    # a random game that filled the board without a four, but for its last disc: a draw
    draw = parse_moves("516323144336216516516727657554173222774434"[:-1])
    assert int(draw.st[0]) == 41 and solver.solve(draw) == 0
    assert list(solver.analyze(draw)) == [FULL_COLUMN] * 3 + [0] + [FULL_COLUMN] * 3


def test_the_kernels_run_from_a_fresh_cache(tmp_path: Path) -> None:
    """Twice in fresh processes sharing a new cache: the second run loads every kernel
    (the recursive solver and perft among them) from what the first wrote."""
    script = (
        "from treestrap.connect4.board import parse_moves\n"
        "from treestrap.connect4.perft import perft\n"
        "from treestrap.connect4.solver import Solver\n"
        "assert perft(parse_moves(''), 5) == 16807\n"
        "s = Solver(table_bits=16).analyze(parse_moves('7577445752275465721432'))\n"
        "print(' '.join(str(int(v)) for v in s))\n"
    )
    env = {**_child_env(), "TREESTRAP_CACHE_DIR": str(tmp_path / "numba")}
    for run in (1, 2):
        proc = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            cwd=REPO_ROOT,
            env=env,
            timeout=900,
        )
        assert proc.returncode == 0, f"run {run}: {proc.returncode} {proc.stderr[-2000:]}"
        assert proc.stdout.split() == ["-10", "-10", "-10", "-2", "-10", "-10", "-1000"]
    assert any((tmp_path / "numba").rglob("*.nbi"))


def test_the_table_size_is_checked() -> None:
    with pytest.raises(ValueError, match="table_bits"):
        Solver(table_bits=3)
    assert np.count_nonzero(Solver(table_bits=10).table) == 0
