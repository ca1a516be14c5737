"""Training throughput of ``treestrap train --preset strong`` (TreeStrap(alpha-beta),
depth 3, quiescence node values) for one seed and game count: games per CPU hour,
searched nodes and learned nodes per CPU second, and the learned weights' SHA-256.

    python benchmarks/training_throughput.py                  # --games 50 --seed 1
    python benchmarks/training_throughput.py --games 5        # a quick check

The same run is made twice, each in a new temporary run directory:

1. in this process, through the command line's own entry point, with
   ``TreeStrapAlphaBeta.observe`` wrapped to count, for every search, the nodes its
   table walk recorded, the nodes that take part in the update (remaining depth >= d,
   not terminal: ``learn/targets.node_mask``) and those of them whose value lies outside
   their bounds (a non-zero error: the nodes that move the weights). It also compiles
   or loads every kernel, so the second run starts warm;
2. ``treestrap train`` as a child process, untouched: its ``metrics.jsonl`` gives the
   CPU seconds of each game (the trainer's ``time.process_time`` around the game,
   searches and learning included; start-up and file writes between games are not)
   and the nodes searched (main + quiescence). The child's whole CPU time is printed too.

The run is deterministic at a fixed depth, so both end with the same weights: their
SHA-256 (of the weight array, not of the file, whose metadata names the run) must be
equal, and is printed so that a faster version can show the same learning with the
same ``--games`` and ``--seed``. The counts of run 1 are divided by the CPU time of
run 2.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

PRESET = "strong"


@dataclass
class Counts:
    """What TreeStrap learned from, summed over a run's searches."""

    searches: int = 0
    recorded: int = 0  # nodes the table walk recorded
    used: int = 0  # nodes that take part in the update
    moved: int = 0  # of those, nodes whose value lies outside their bounds


def train_args(games: int, seed: int, out: Path) -> list[str]:
    seeded = ["--games", str(games), "--seed", str(seed)]
    return ["train", "--preset", PRESET, *seeded, "--out", str(out)]


def weights_sha256(run_dir: Path) -> str:
    with np.load(run_dir / "weights.npz", allow_pickle=False) as data:
        return hashlib.sha256(np.ascontiguousarray(data["weights"]).tobytes()).hexdigest()


def counted_run(games: int, seed: int, out: Path) -> Counts:
    """Run 1: the command in this process, counting what every update learns from."""
    from treestrap.cli import main as cli_main
    from treestrap.learn.targets import bounded_deltas, node_mask
    from treestrap.learn.treestrap import TreeStrapAlphaBeta
    from treestrap.search.tree import tree_size

    counts = Counts()
    observe = TreeStrapAlphaBeta.observe

    def counting_observe(self: TreeStrapAlphaBeta, step: Any) -> None:
        tree, hyper = step.tree, self.hyper
        n = tree_size(tree)
        mask = node_mask(tree, hyper.min_depth, hyper.quiet_only)
        deltas = bounded_deltas(
            tree.static[:n], tree.lower[:n], tree.upper[:n], hyper.objective, hyper.target_clip
        )
        counts.searches += 1
        counts.recorded += n
        counts.used += int(mask.sum())
        counts.moved += int(np.count_nonzero(deltas[mask]))
        observe(self, step)

    TreeStrapAlphaBeta.observe = counting_observe  # type: ignore[method-assign]
    try:
        with open(os.devnull, "w") as quiet, redirect_stdout(quiet), redirect_stderr(quiet):
            status = cli_main(train_args(games, seed, out))
    finally:
        TreeStrapAlphaBeta.observe = observe  # type: ignore[method-assign]
    if status:
        raise RuntimeError(f"treestrap train (in process) exited with {status}")
    return counts


def timed_run(games: int, seed: int, out: Path) -> tuple[float, float]:
    """Run 2: ``treestrap train`` as a child; (its CPU seconds, wall seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "treestrap.cli", *train_args(games, seed, out)],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def read_metrics(run_dir: Path) -> list[dict[str, Any]]:
    lines = (run_dir / "metrics.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50, help="games per run (50)")
    parser.add_argument("--seed", type=int, default=1, help="seed of weights and openings (1)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="treestrap-throughput-") as tmp:
        counted_dir, timed_dir = Path(tmp) / "counted", Path(tmp) / "timed"
        counts = counted_run(args.games, args.seed, counted_dir)
        process_cpu, wall = timed_run(args.games, args.seed, timed_dir)
        metrics = read_metrics(timed_dir)
        sha_counted, sha_timed = weights_sha256(counted_dir), weights_sha256(timed_dir)

    games = len(metrics)
    cpu = sum(m["cpu_seconds"] for m in metrics)
    nodes = sum(m["nodes"] for m in metrics)
    searches = sum(m["searches"] for m in metrics)
    plies = sum(m["plies"] for m in metrics)
    print(f"treestrap train --preset {PRESET} --games {args.games} --seed {args.seed}")
    print(f"games                      {games} ({plies} plies, {searches} learner searches)")
    print(f"CPU seconds in games       {cpu:.2f} (the child process in all: {process_cpu:.2f})")
    print(f"wall seconds of the child  {wall:.2f}")
    print(f"games per CPU hour         {games / cpu * 3600:,.0f}")
    print(f"CPU ms per search          {cpu / searches * 1000:.2f} (search, walk and update)")
    print(f"searched nodes per CPU s   {nodes / cpu:,.0f} ({nodes / searches:,.0f} per search)")
    if counts.searches != searches:
        print(f"!! the counted run made {counts.searches} searches, the timed one {searches}")
    print(
        f"walk nodes per CPU s       {counts.recorded / cpu:,.0f} "
        f"({counts.recorded / counts.searches:.1f} recorded per search)"
    )
    print(
        f"learned nodes per CPU s    {counts.used / cpu:,.0f} "
        f"({counts.used / counts.searches:.1f} per search take part in the update)"
    )
    print(
        f"moved nodes per CPU s      {counts.moved / cpu:,.0f} "
        f"({counts.moved / counts.searches:.1f} per search outside their bounds)"
    )
    same = "the same" if sha_counted == sha_timed else "DIFFERENT: the run is not deterministic"
    print(f"weights sha256             {sha_timed}")
    print(f"                           both runs: {same}")
    return 0 if sha_counted == sha_timed else 1


if __name__ == "__main__":
    sys.exit(main())
