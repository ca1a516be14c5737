"""Non-linear TreeStrap's training speed with compiled mini-batch steps against torch's.

    python benchmarks/network_training_speed.py              # 20 games of --preset strong-net
    python benchmarks/network_training_speed.py --games 5    # a quick check

Runs ``treestrap train --preset strong-net --games N --seed S`` twice in this process,
each in a new temporary run directory: once as it is (the steps compiled:
:mod:`treestrap.learn.compiled_step`) and once with the replay trainer built to step
with torch. Both play the same openings at the same depth and their steps agree to
rounding, so they learn the same network (the largest difference of the two final
weight vectors is printed). Printed for each: games per CPU hour from the runs' own
``metrics.jsonl`` (``cpu_total``: the CPU time of the games, searches and learning,
without the state written between them), the nodes searched per CPU second, and the
ratio of compiled to torch. Everything is compiled or loaded before either run is
timed (a 1-game warm-up of each).
"""

from __future__ import annotations

import argparse
import functools
import json
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path
from unittest import mock

import numpy as np

from treestrap import cli
from treestrap.evaluation.weight_files import load_weights
from treestrap.learn import rule_config
from treestrap.learn.replay import ReplayTrainer


def run(games: int, seed: int, compiled: bool, extra: list[str]) -> tuple[float, int, np.ndarray]:
    """(CPU seconds of the games, nodes searched, final network weights) of one run."""
    trainer = functools.partial(ReplayTrainer, compiled=compiled)
    patch = mock.patch.object(rule_config, "ReplayTrainer", trainer)
    with tempfile.TemporaryDirectory() as tmp, patch:
        out = Path(tmp) / "run"
        argv = ["train", "--preset", "strong-net", "--games", str(games), "--seed", str(seed)]
        with redirect_stdout(StringIO()), redirect_stderr(StringIO()):
            code = cli.main([*argv, *extra, "--out", str(out)])
        if code != 0:
            raise SystemExit(f"treestrap train failed ({code})")
        lines = (out / "metrics.jsonl").read_text().splitlines()
        games_metrics = [json.loads(line) for line in lines if '"game"' in line]
        cpu = float(games_metrics[-1]["cpu_total"])
        nodes = sum(int(g["nodes"]) for g in games_metrics)
        weights = np.array(load_weights(str(out / "weights.npz")).weights)
    return cpu, nodes, weights


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--replay-size", type=int, default=0, help="override strong-net's replay set size"
    )
    args = ap.parse_args()
    extra = ["--replay-size", str(args.replay_size)] if args.replay_size else []
    for compiled in (True, False):
        run(1, args.seed, compiled, extra)  # compile or load every kernel first
    results = {}
    for compiled in (False, True):
        results[compiled] = run(args.games, args.seed, compiled, extra)
    print(f"--preset strong-net, {args.games} games, seed {args.seed}")
    for compiled, label in ((False, "torch steps"), (True, "compiled steps")):
        cpu, nodes, _ = results[compiled]
        print(
            f"  {label:15s} {args.games / cpu * 3600:8.0f} games per CPU hour"
            f"  {nodes / cpu:9.0f} nodes per CPU second  ({cpu:.1f} CPU s)"
        )
    ratio = results[False][0] / results[True][0]
    diff = float(np.abs(results[True][2] - results[False][2]).max())
    print(f"  compiled / torch: {ratio:.2f}x the games per CPU hour")
    print(f"  largest difference of the final weights: {diff:.2e}")


if __name__ == "__main__":
    main()
