"""The exact Connect Four solver over the reference file ``connect4/solved-1000.txt``:
every column score of every position checked, with the time, nodes and nodes per second,
in total and by the number of discs on the board (the early positions are the costly
ones). One process, one solver whose table is kept from position to position, as the
test does in each of its two processes.

Examples (from the repository root)::

    python benchmarks/connect4_solver.py                     # all 1000 positions
    python benchmarks/connect4_solver.py --every 10          # a tenth of them
    python benchmarks/connect4_solver.py --table-bits 24     # a 128 MiB table

Prints one line per disc count and a total; exits 1 if any score differs from the file.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

from treestrap.connect4.board import parse_moves
from treestrap.connect4.solver import Solver

REFERENCE = Path(__file__).resolve().parents[1] / "reference" / "connect4" / "solved-1000.txt"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--file", type=Path, default=REFERENCE, help="the reference file")
    parser.add_argument("--every", type=int, default=1, help="take every N-th position")
    parser.add_argument("--table-bits", type=int, default=20, help="table of 2**N entries")
    args = parser.parse_args(argv)

    rows = []
    for line in args.file.read_text(encoding="utf-8").splitlines()[:: args.every]:
        if line.strip():
            moves, *scores = line.split()
            rows.append((moves, [int(s) for s in scores]))
    solver = Solver(table_bits=args.table_bits)
    solver.analyze(parse_moves("444444112267"))  # compile (or load) the kernels first
    solver.clear()
    start_nodes = solver.nodes

    by_discs: dict[int, list[float]] = defaultdict(lambda: [0, 0.0, 0])
    wrong = 0
    started = time.perf_counter()
    for moves, expected in rows:
        nodes, t0 = solver.nodes, time.perf_counter()
        got = [int(s) for s in solver.analyze(parse_moves(moves))]
        bucket = by_discs[len(moves)]
        bucket[0] += 1
        bucket[1] += time.perf_counter() - t0
        bucket[2] += solver.nodes - nodes
        if got != expected:
            wrong += 1
            print(f"DIFFERS {moves}: solver {got}, file {expected}")
    seconds = time.perf_counter() - started
    nodes = solver.nodes - start_nodes

    print(f"{'discs':>5} {'positions':>9} {'seconds':>8} {'nodes':>14} {'ms/position':>11}")
    for discs in sorted(by_discs):
        count, secs, n = by_discs[discs]
        print(f"{discs:>5} {count:>9} {secs:>8.2f} {int(n):>14,} {1000 * secs / count:>11.2f}")
    print(
        f"total: {len(rows)} positions, {7 * len(rows)} column scores, {wrong} differ; "
        f"{seconds:.1f} s, {nodes:,} nodes, {nodes / seconds / 1e6:.2f} M nodes/s"
    )
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
