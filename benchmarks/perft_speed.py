"""Perft speed of the treestrap move generator, against python-chess, and start-up time.

What it measures, in one run:

* nodes/second of ``treestrap.core.perft.perft`` on the start position and Kiwipete, in
  two styles: ``bulk`` (the moves at the last ply are counted, not played) and
  ``make/unmake`` (every leaf move is made and unmade);
* the same two styles written with python-chess (``legal_moves.count()`` at the last ply
  below push/pop recursion, or push/pop of every leaf move), at smaller depths since it
  is roughly 50-100 times slower, and the ratio ours / python-chess;
* the wall time of a fresh Python process that imports treestrap, parses the start
  position and runs perft depth 1 (bulk and make/unmake): once with a cold numba cache
  (``TREESTRAP_CACHE_DIR`` and ``NUMBA_CACHE_DIR`` pointed at a new temporary
  directory, so the user's cache is neither used nor touched) and once more with that
  directory now warm.

Each timing runs perft as many times in a row as needed to last at least a minimum
time (0.5 s, or 0.2 s with ``--quick``), and reports the time of one call; for
treestrap the best of a few such repeats is kept. Every node count is checked against
the published perft numbers. The issue's targets and python-chess reference figures
are printed next to the results.

Run from the repository root with the project's virtual environment active::

    python benchmarks/perft_speed.py              # full run (about a minute)
    python benchmarks/perft_speed.py --quick      # shorter run
    python benchmarks/perft_speed.py --json FILE  # also write the results as JSON
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import chess
import numba

from treestrap.core.notation import STARTING_FEN, parse_fen
from treestrap.core.perft import perft

KIWIPETE_FEN = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
POSITIONS: dict[str, str] = {"startpos": STARTING_FEN, "kiwipete": KIWIPETE_FEN}

#: Published perft counts, indexed by depth (index 0 is depth 1).
KNOWN_COUNTS: dict[str, list[int]] = {
    "startpos": [20, 400, 8_902, 197_281, 4_865_609, 119_060_324],
    "kiwipete": [48, 2_039, 97_862, 4_085_603, 193_690_690],
}

STYLES = ("bulk", "make/unmake")

#: The issue's targets for our speed, in millions of nodes per second.
TARGET_MNPS: dict[str, float] = {"bulk": 30.0, "make/unmake": 10.0}
#: python-chess on the development machine, as quoted in the issue (M nodes/s).
PYTHON_CHESS_REFERENCE_MNPS: dict[str, float] = {"bulk": 1.1, "make/unmake": 0.3}
#: Start-up aims in seconds.
COLD_START_AIM_S = 20.0
WARM_START_AIM_S = 2.0

#: Depths (position, style) -> depth, chosen so that one call lasts about 0.3-3 s.
OUR_DEPTHS: dict[tuple[str, str], int] = {
    ("startpos", "bulk"): 6,
    ("startpos", "make/unmake"): 5,
    ("kiwipete", "bulk"): 5,
    ("kiwipete", "make/unmake"): 4,
}
PYTHON_CHESS_DEPTHS: dict[tuple[str, str], int] = {
    ("startpos", "bulk"): 4,
    ("startpos", "make/unmake"): 4,
    ("kiwipete", "bulk"): 3,
    ("kiwipete", "make/unmake"): 3,
}
#: With --quick every depth is one less (python-chess keeps depth >= 3).
QUICK_DEPTH_CUT = 1

STARTUP_SNIPPET = """
from treestrap.core.notation import STARTING_FEN, parse_fen
from treestrap.core.perft import perft
pos = parse_fen(STARTING_FEN)
assert perft(pos, 1, bulk=True) == 20
assert perft(pos, 1, bulk=False) == 20
"""


@dataclass
class Measurement:
    """One perft timing: seconds is the time of a single perft call."""

    position: str
    style: str
    engine: str
    depth: int
    nodes: int
    seconds: float

    @property
    def mnps(self) -> float:
        return self.nodes / self.seconds / 1e6


@dataclass
class Settings:
    """How long and how often to time each measurement."""

    min_seconds: float
    our_repeats: int
    python_chess_repeats: int
    depth_cut: int


# --- python-chess perft ---------------------------------------------------------------


def python_chess_perft_bulk(board: chess.Board, depth: int) -> int:
    """Leaves of ``depth`` plies, counting the moves at the last ply without playing them."""
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += python_chess_perft_bulk(board, depth - 1)
        board.pop()
    return total


def python_chess_perft_make_unmake(board: chess.Board, depth: int) -> int:
    """Leaves of ``depth`` plies, pushing and popping every move including the leaves."""
    if depth == 0:
        return 1
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += python_chess_perft_make_unmake(board, depth - 1)
        board.pop()
    return total


# --- timing ---------------------------------------------------------------------------


def time_per_call(run: Callable[[], int], min_seconds: float) -> tuple[int, float]:
    """Call ``run`` until at least ``min_seconds`` have passed; (its result, s per call)."""
    calls = 0
    start = time.perf_counter()
    while True:
        nodes = run()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return nodes, elapsed / calls


def best_time_per_call(
    run: Callable[[], int], min_seconds: float, repeats: int
) -> tuple[int, float]:
    """The fastest of ``repeats`` timings by :func:`time_per_call`."""
    results = [time_per_call(run, min_seconds) for _ in range(repeats)]
    return min(results, key=lambda result: result[1])


def check_count(position: str, depth: int, nodes: int) -> None:
    expected = KNOWN_COUNTS[position][depth - 1]
    if nodes != expected:
        raise RuntimeError(f"perft({position}, {depth}) = {nodes}, expected {expected}")


def measure_ours(position: str, style: str, settings: Settings) -> Measurement:
    pos = parse_fen(POSITIONS[position])
    bulk = style == "bulk"
    depth = OUR_DEPTHS[position, style] - settings.depth_cut
    perft(pos, 1, bulk=bulk)  # compile (or load from cache) outside the timing
    nodes, seconds = best_time_per_call(
        lambda: perft(pos, depth, bulk=bulk), settings.min_seconds, settings.our_repeats
    )
    check_count(position, depth, nodes)
    return Measurement(position, style, "treestrap", depth, nodes, seconds)


def measure_python_chess(position: str, style: str, settings: Settings) -> Measurement:
    board = chess.Board(POSITIONS[position])
    count = python_chess_perft_bulk if style == "bulk" else python_chess_perft_make_unmake
    depth = max(PYTHON_CHESS_DEPTHS[position, style] - settings.depth_cut, 3)
    nodes, seconds = best_time_per_call(
        lambda: count(board, depth), settings.min_seconds, settings.python_chess_repeats
    )
    check_count(position, depth, nodes)
    return Measurement(position, style, "python-chess", depth, nodes, seconds)


# --- start-up time --------------------------------------------------------------------


def time_fresh_process(cache_dir: str) -> float:
    """Wall seconds of a new interpreter running :data:`STARTUP_SNIPPET`."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir, "TREESTRAP_CACHE_DIR": cache_dir}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", STARTUP_SNIPPET], env=env, check=True)
    return time.perf_counter() - start


def measure_startup() -> dict[str, float]:
    """Cold-cache then warm-cache start-up, in a throwaway numba cache directory."""
    with tempfile.TemporaryDirectory(prefix="treestrap-numba-cache-") as cache_dir:
        cold = time_fresh_process(cache_dir)
        warm = time_fresh_process(cache_dir)
    return {"cold_s": cold, "warm_s": warm}


# --- report ---------------------------------------------------------------------------


def verdict(value: float, aim: float, higher_is_better: bool) -> str:
    met = value >= aim if higher_is_better else value < aim
    return "met" if met else "NOT met"


def print_speed_table(results: list[Measurement], min_seconds: float) -> None:
    header = (
        f"{'position':<9} {'style':<12} {'engine':<13} {'depth':>5} {'nodes':>13} "
        f"{'seconds':>8} {'Mnodes/s':>9}  note"
    )
    print(header)
    print("-" * len(header))
    for position in POSITIONS:
        for style in STYLES:
            ours, theirs = (
                next(r for r in results if (r.position, r.style, r.engine) == key)
                for key in ((position, style, "treestrap"), (position, style, "python-chess"))
            )
            target = TARGET_MNPS[style]
            reference = PYTHON_CHESS_REFERENCE_MNPS[style]
            notes = {
                ours.engine: f"target >= {target:g}: {verdict(ours.mnps, target, True)}; "
                f"{ours.mnps / theirs.mnps:.0f}x python-chess",
                theirs.engine: f"issue's reference ~{reference:g}",
            }
            for r in (ours, theirs):
                print(
                    f"{r.position:<9} {r.style:<12} {r.engine:<13} {r.depth:>5} {r.nodes:>13,} "
                    f"{r.seconds:>8.3f} {r.mnps:>9.2f}  {notes[r.engine]}"
                )
    print(f"seconds: one perft call, timed over back-to-back calls lasting >= {min_seconds:g} s")
    print()


def print_startup(startup: dict[str, float]) -> None:
    cold, warm = startup["cold_s"], startup["warm_s"]
    print("start-up (fresh process: import, parse start position, perft depth 1 both styles)")
    cold_verdict = verdict(cold, COLD_START_AIM_S, False)
    warm_verdict = verdict(warm, WARM_START_AIM_S, False)
    print(f"  cold numba cache: {cold:6.2f} s   (aim < {COLD_START_AIM_S:g} s: {cold_verdict})")
    print(f"  warm numba cache: {warm:6.2f} s   (aim < {WARM_START_AIM_S:g} s: {warm_verdict})")
    print()


def environment() -> dict[str, str | int | None]:
    return {
        "python": platform.python_version(),
        "numba": numba.__version__,
        "python_chess": chess.__version__,
        "machine": platform.machine(),
        "processor": platform.processor() or None,
        "cpu_count": os.cpu_count(),
    }


def write_json(
    path: str, quick: bool, results: list[Measurement], startup: dict[str, float]
) -> None:
    data = {
        "quick": quick,
        "environment": environment(),
        "targets_mnps": TARGET_MNPS,
        "python_chess_reference_mnps": PYTHON_CHESS_REFERENCE_MNPS,
        "startup_aims_s": {"cold": COLD_START_AIM_S, "warm": WARM_START_AIM_S},
        "perft": [{**asdict(r), "mnps": r.mnps} for r in results],
        "startup": startup,
    }
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
        f.write("\n")


# --- main -----------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller depths, shorter timings")
    parser.add_argument("--json", metavar="FILE", help="also write the results to FILE as JSON")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.quick:
        settings = Settings(0.2, our_repeats=2, python_chess_repeats=1, depth_cut=QUICK_DEPTH_CUT)
    else:
        settings = Settings(0.5, our_repeats=3, python_chess_repeats=3, depth_cut=0)

    env = environment()
    print(
        f"perft speed ({'quick' if args.quick else 'full'} run): python {env['python']}, "
        f"numba {env['numba']}, python-chess {env['python_chess']}, {env['cpu_count']} CPUs"
    )
    print()
    results: list[Measurement] = []
    for position in POSITIONS:
        for style in STYLES:
            results.append(measure_ours(position, style, settings))
            results.append(measure_python_chess(position, style, settings))
    print_speed_table(results, settings.min_seconds)

    startup = measure_startup()
    print_startup(startup)

    if args.json:
        write_json(args.json, args.quick, results, startup)
        print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
