"""``NUMBA_DISABLE_JIT=1``, the documented way to debug a kernel (core/jit.py), runs
the engine's search as plain Python and gives the compiled search's answers."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import REPO_ROOT

from treestrap.engine.bench import format_bench_line, run_bench

#: Deep enough for captures, checks and promotions in the bench positions (depth 3
#: visits 14,145 nodes); plain Python then takes a few seconds.
DEPTH = 3


def _without_times(lines: list[str]) -> list[str]:
    """Bench lines without their timing columns (``N.NNN s``, ``N nps``)."""
    out = []
    for line in lines:
        words = line.split()
        if line.startswith("position"):
            del words[4:6]  # the seconds and their unit
        elif line.startswith("bench:"):
            words = words[:3]  # "bench: N nodes"
        out.append(" ".join(words))
    return out


def test_the_bench_runs_as_plain_python_with_the_compiled_node_counts() -> None:
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONWARNINGS": "error::RuntimeWarning"}
    proc = subprocess.run(
        [sys.executable, "-m", "treestrap.cli", "bench", "--depth", str(DEPTH)],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr.strip().splitlines()[-5:]
    # the overflow warnings of wrapping 64-bit arithmetic are silenced (core/jit.py)
    assert "Warning" not in proc.stderr

    compiled = run_bench(depth=DEPTH)
    expected = [format_bench_line(i, row) for i, row in enumerate(compiled.positions)]
    expected.append(f"bench: {compiled.nodes} nodes")
    got = _without_times(proc.stdout.strip().splitlines())
    assert got == _without_times(expected)
    assert len(got) == len(compiled.positions) + 1 > 10
