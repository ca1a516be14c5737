"""The compiled searches run without numba's reference-counting runtime
(:mod:`treestrap.core.jit`): they must allocate nothing (an array allocated by a kernel
with the runtime and handed to one without it would never be freed). Checked with the
runtime's own allocation counters over tournament searches (linear, network and
perspective network) and training games (linear TreeStrap with its table walk, and a
network's). numba keeps those counters only when ``NUMBA_NRT_STATS=1`` is set before it
starts: a child process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(
    """
    import json, sys, tempfile
    from pathlib import Path
    from numba.core.runtime import rtsys
    from treestrap.cli import main
    from treestrap.core.notation import parse_fen
    from treestrap.engine.bench import BENCH_FENS
    from treestrap.engine.engine import Engine
    from treestrap.evaluation.presets import learned_model, preset_model
    from treestrap.search.timeman import SearchLimits

    def stats():
        s = rtsys.get_allocation_stats()
        return s.alloc, s.free, s.mi_alloc, s.mi_free

    def delta(before, after):
        return [b - a for a, b in zip(before, after)]

    out = {}
    from treestrap.evaluation.perspective_random import material_perspective

    models = (
        ("learned", learned_model()),
        ("self-play-net", preset_model("self-play-net")),
        ("perspective", material_perspective(64, seed=1, activation="screlu", buckets=4)),
    )
    for name, model in models:
        engine = Engine(model.evaluator(), hash_mb=4)
        engine.go(parse_fen(BENCH_FENS[0]), SearchLimits(depth=3))  # compiled, warm
        before = stats()
        for fen in BENCH_FENS[1:6]:
            engine.go(parse_fen(fen), SearchLimits(depth=5))
        out[name] = delta(before, stats())
    with tempfile.TemporaryDirectory() as tmp:
        for name, argv in (
            ("train", ["--preset", "strong", "--depth", "2"]),
            ("train-net", ["--preset", "strong-net", "--model", "crelu:8", "--depth", "1"]),
        ):
            common = ["--games", "1", "--max-plies", "12", "--seed", "3"]
            main(["train", *argv, *common, "--out", str(Path(tmp) / (name + "-warm"))])
            before = stats()
            main(["train", *argv, *common, "--out", str(Path(tmp) / name)])
            out[name] = delta(before, stats())
    import numba, numpy as np
    control = numba.njit(lambda n: np.zeros(n).sum())  # allocates and frees one array
    control(3)
    before = stats()
    control(3)
    out["control"] = delta(before, stats())
    print("RESULT " + json.dumps(out))
    """
)


def test_searches_and_training_allocate_nothing() -> None:
    env = {**os.environ, "NUMBA_NRT_STATS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    result = json.loads(line[len("RESULT ") :])
    assert result.pop("control") == [1, 1, 1, 1]  # the counters do count
    for name, counts in result.items():
        assert counts == [0, 0, 0, 0], (name, counts)  # no array allocated, none leaked
