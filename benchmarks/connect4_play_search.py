"""Connect Four's playing search against the training alpha-beta, in one run: the same
positions of ``connect4/solved-1000.txt`` deepened to the same depth by each, with nodes,
seconds and nodes per second, and the n-tuple evaluation read through its buffer and
through its column form.

Each search deepens one position at a time from a cleared table (the playing search
over its own table, the training alpha-beta through ``deepen`` over one table kept
from depth to depth), as a timed player does within a move.

Examples (from the repository root)::

    python benchmarks/connect4_play_search.py                   # 40 early positions, depth 12
    python benchmarks/connect4_play_search.py --depth 10 --player hand-set

Prints one line per search and the ratios; nothing is checked (the tests do that).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from treestrap.connect4.board import ST_PLY, copy_position, new_position, parse_moves
from treestrap.connect4.ntuple import columns_value, ntuple_value, tuple_columns
from treestrap.connect4.play_search import PlaySearch
from treestrap.connect4.search import Connect4Search
from treestrap.core.jit import njit
from treestrap.games.connect4_players import load_model, parse_connect4_player

REFERENCE = Path(__file__).resolve().parents[1] / "reference" / "connect4" / "solved-1000.txt"


@njit
def _load(pos, discs, heights, plies, i) -> None:  # type: ignore[no-untyped-def]
    """Position ``i`` of the arrays into ``pos`` (what the evaluations read)."""
    pos.discs[0], pos.discs[1] = discs[i, 0], discs[i, 1]
    for col in range(7):
        pos.heights[col] = heights[i, col]
    pos.st[ST_PLY] = plies[i]


@njit
def _buffer_sum(pos, discs, heights, plies, w, scratch) -> float:  # type: ignore[no-untyped-def]
    total = 0.0
    for i in range(plies.shape[0]):
        _load(pos, discs, heights, plies, i)
        total += ntuple_value(pos, w, scratch)[0]
    return total


@njit
def _columns_sum(pos, discs, heights, plies, form) -> float:  # type: ignore[no-untyped-def]
    total = 0.0
    for i in range(plies.shape[0]):
        _load(pos, discs, heights, plies, i)
        total += columns_value(pos, form)
    return total


def _evaluation_speed(ev, positions: list) -> None:  # type: ignore[no-untyped-def]
    """Microseconds an evaluation through the buffer and through the column form, over
    the same positions in turn."""
    discs = np.array([p.discs for p in positions], dtype=np.uint64)
    heights = np.array([p.heights for p in positions], dtype=np.int8)
    plies = np.array([p.st[ST_PLY] for p in positions], dtype=np.int64)
    pos = new_position()
    form = tuple_columns(ev.weights)
    reads = {
        "buffer": lambda: _buffer_sum(pos, discs, heights, plies, ev.weights, ev.idx),
        "columns": lambda: _columns_sum(pos, discs, heights, plies, form),
    }
    assert reads["buffer"]() == reads["columns"]()  # compiles both; the same sum
    times = {}
    for name, run in reads.items():
        start = time.perf_counter()
        for _ in range(20):
            run()
        times[name] = (time.perf_counter() - start) / (20 * len(plies)) * 1e6
        print(f"n-tuple evaluation through its {name:8s} {times[name]:.3f} us")
    print(f"column form / buffer: {times['buffer'] / times['columns']:.1f}x as fast")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--file", type=Path, default=REFERENCE, help="the reference file")
    parser.add_argument("--positions", type=int, default=40, help="how many early positions")
    parser.add_argument("--depth", type=int, default=12, help="deepen to this depth")
    parser.add_argument("--player", default="ntuple", help="a Connect Four player spec")
    args = parser.parse_args(argv)

    lines = [line.split()[0] for line in args.file.read_text(encoding="utf-8").splitlines()]
    early = [parse_moves(m) for m in lines if m and len(m) < 12][: args.positions]
    ev = load_model(parse_connect4_player(args.player)).evaluator()

    def training(pos, depth: int, search: Connect4Search) -> int:  # type: ignore[no-untyped-def]
        result = search.deepen(copy_position(pos), ev, depth, keep_table=depth > 1)
        return result.nodes + result.qnodes

    def playing(pos, depth: int, search: PlaySearch) -> int:  # type: ignore[no-untyped-def]
        return search.search(copy_position(pos), ev, depth).nodes

    rates = {}
    training_search, playing_search = Connect4Search(tt_bits=20), PlaySearch(table_bits=20)
    for name, search, step, clear in (
        ("training alpha-beta", training_search, training, training_search.clear_table),
        ("playing search", playing_search, playing, playing_search.clear),
    ):
        step(early[0], 3, search)  # compile (or load) the kernels first
        nodes, start = 0, time.perf_counter()
        for pos in early:
            clear()
            for depth in range(1, args.depth + 1):
                nodes += step(pos, depth, search)
        seconds = time.perf_counter() - start
        rates[name] = (nodes, seconds)
        print(f"{name:20s} {nodes:>11,} nodes {seconds:7.2f} s {nodes / seconds:>12,.0f} nodes/s")
    (tn, ts), (pn, ps) = rates["training alpha-beta"], rates["playing search"]
    print(f"playing / training: {tn / pn:.1f}x fewer nodes, {ts / ps:.1f}x less time")
    if np.asarray(ev.weights).size > 100_000:
        _evaluation_speed(ev, [parse_moves(m) for m in lines if m][:1000])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
