"""What MultiPV costs: the bench positions searched to a depth with MultiPV 1 and with
MultiPV k, and the ratio of the times (and of the nodes, which the machine's load does
not move).

    python benchmarks/multipv_cost.py [--depth 8] [--lines 3]

Each position is searched as the bench searches it (hand-set weights, a 16 MiB table
cleared before each search), first with one line, then with k, one after the other so
that a change in the machine's load falls on both. Target: k = 3 costs at most 3 times
the time of one line.
"""

from __future__ import annotations

import argparse
import time

from treestrap.core.notation import parse_fen
from treestrap.engine.bench import BENCH_FENS, BENCH_HASH_MB
from treestrap.engine.engine import Engine
from treestrap.evaluation.presets import hand_set_model
from treestrap.search.timeman import SearchLimits


def search(engine: Engine, fen: str, depth: int, lines: int) -> tuple[float, int]:
    """Seconds and nodes of one search of ``fen`` from an empty table."""
    engine.multipv = lines
    engine.new_game()
    start = time.perf_counter()
    outcome = engine.go(parse_fen(fen), SearchLimits(depth=depth))
    return time.perf_counter() - start, outcome.nodes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--lines", type=int, default=3)
    args = parser.parse_args()
    engine = Engine(hand_set_model().evaluator(), hash_mb=BENCH_HASH_MB)
    search(engine, BENCH_FENS[0], 2, args.lines)  # compile (or load) the kernels first
    totals = {1: [0.0, 0], args.lines: [0.0, 0]}
    print(
        f"{'position':>8s} {'time 1':>8s} {f'time {args.lines}':>8s} {'nodes 1':>9s} "
        f"{f'nodes {args.lines}':>9s}"
    )
    for i, fen in enumerate(BENCH_FENS):
        row = []
        for lines in (1, args.lines):
            seconds, nodes = search(engine, fen, args.depth, lines)
            totals[lines][0] += seconds
            totals[lines][1] += nodes
            row.append((seconds, nodes))
        (t1, n1), (tk, nk) = row
        print(f"{i + 1:8d} {t1:8.3f} {tk:8.3f} {n1:9d} {nk:9d}")
    (t1, n1), (tk, nk) = totals[1], totals[args.lines]
    print(f"{'total':>8s} {t1:8.3f} {tk:8.3f} {n1:9d} {nk:9d}")
    print(
        f"MultiPV {args.lines} / MultiPV 1 at depth {args.depth}: "
        f"time ratio {tk / t1:.2f}, node ratio {nk / n1:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
