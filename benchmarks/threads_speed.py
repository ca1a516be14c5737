"""Search threads' speed-up: nodes per second and time to depth with N threads against 1.

Over the bench positions (hand-set weights, 16 MiB table cleared before each search):

- nodes per second: every position searched for a fixed time (``--seconds``) with 1
  thread and with N, the two runs of a position back to back so that a change in the
  machine's load falls on both; the ratio of the totals;
- time to depth: every position searched to ``--depth`` with 1 thread and with N; the
  ratio of the total times (Lazy SMP's real gain: the helpers' nodes count only where
  they fill the table ahead of the main thread).

Each part also prints the cores the process was given (its CPU time over the wall time):
N threads gain only as far as they get N cores. On a machine with other work running
the figures are lower bounds, and the load average printed before and after says how
busy it was (Linux shares a busy machine between sessions, not threads: a second thread
may then get no more CPU time than the first had alone).

    python benchmarks/threads_speed.py --threads 2 --seconds 2 --depth 9
"""

from __future__ import annotations

import argparse
import os
import time

from treestrap.core.notation import parse_fen
from treestrap.engine.bench import BENCH_FENS, BENCH_HASH_MB
from treestrap.engine.engine import Engine, SearchOutcome
from treestrap.evaluation.presets import hand_set_model
from treestrap.search.timeman import SearchLimits


def _search(engine: Engine, fen: str, limits: SearchLimits) -> tuple[SearchOutcome, float, float]:
    """The outcome, the wall time and the process's CPU time of one search."""
    engine.new_game()
    start, cpu = time.perf_counter(), time.process_time()
    outcome = engine.go(parse_fen(fen), limits)
    return outcome, time.perf_counter() - start, time.process_time() - cpu


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2, help="threads to compare with 1")
    parser.add_argument("--seconds", type=float, default=2.0, help="search time a position")
    parser.add_argument("--depth", type=int, default=9, help="depth of the time-to-depth runs")
    args = parser.parse_args()

    ev = hand_set_model().evaluator()
    engines = {n: Engine(ev, hash_mb=BENCH_HASH_MB, threads=n) for n in (1, args.threads)}
    for engine in engines.values():  # load the kernels, start each engine's helpers once
        _search(engine, BENCH_FENS[0], SearchLimits(depth=5))
    print(f"cores {os.cpu_count()}, load average before: {_load()}")

    nodes = {n: 0 for n in engines}
    spent = {n: 0.0 for n in engines}
    cpu = {n: 0.0 for n in engines}
    print(f"\nnodes per second, {args.seconds:g} s a position")
    print(f"{'pos':>3} {'nps 1':>10} {f'nps {args.threads}':>10} {'ratio':>6} {'depths':>7}")
    for i, fen in enumerate(BENCH_FENS, 1):
        row = {}
        for n, engine in engines.items():
            outcome, seconds, cpu_seconds = _search(
                engine, fen, SearchLimits(movetime=args.seconds)
            )
            nodes[n] += outcome.nodes
            spent[n] += seconds
            cpu[n] += cpu_seconds
            row[n] = (outcome.nodes / seconds, outcome.depth)
        (one, one_depth), (many, many_depth) = row[1], row[args.threads]
        print(f"{i:3d} {one:10.0f} {many:10.0f} {many / one:6.2f} {one_depth:3d}/{many_depth}")
    nps = {n: nodes[n] / spent[n] for n in engines}
    print(f"all {nps[1]:10.0f} {nps[args.threads]:10.0f} {nps[args.threads] / nps[1]:6.2f}")
    for n in engines:
        print(
            f"{n} thread(s): {cpu[n] / spent[n]:.2f} cores used, "
            f"{nodes[n] / cpu[n]:.0f} nodes per CPU second"
        )

    to_depth = {n: 0.0 for n in engines}
    depth_cpu = {n: 0.0 for n in engines}
    print(f"\ntime to depth {args.depth}")
    print(f"{'pos':>3} {'s 1':>8} {f's {args.threads}':>8} {'speed-up':>8}")
    for i, fen in enumerate(BENCH_FENS, 1):
        row_time = {}
        for n, engine in engines.items():
            _, seconds, cpu_seconds = _search(engine, fen, SearchLimits(depth=args.depth))
            to_depth[n] += seconds
            depth_cpu[n] += cpu_seconds
            row_time[n] = seconds
        one_s, many_s = row_time[1], row_time[args.threads]
        print(f"{i:3d} {one_s:8.3f} {many_s:8.3f} {one_s / many_s:8.2f}")
    total_one, total_many = to_depth[1], to_depth[args.threads]
    print(f"all {total_one:8.3f} {total_many:8.3f} {total_one / total_many:8.2f}")
    for n in engines:
        print(f"{n} thread(s): {depth_cpu[n] / to_depth[n]:.2f} cores used")
    print(f"\nload average after: {_load()}")


if __name__ == "__main__":
    main()
