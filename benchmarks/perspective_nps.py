"""Nodes per second of the tournament search with perspective networks, against the
linear ``learned`` weights, the ``self-play-net`` hybrid and Stockfish 15.1 (both
builds), in one run on the positions of ``treestrap bench``.

    python benchmarks/perspective_nps.py                 # 1 s per position and engine
    python benchmarks/perspective_nps.py --movetime 0.3 --widths 256

Every engine thinks ``--movetime`` seconds on each bench position from an empty table
(Hash 16 MiB, one thread); the engines take turns position by position, so a change of
load falls on all of them alike. Ours run in this process (``Engine.go``, as ``treestrap
uci`` does), Stockfish through UCI (``ucinewgame``, ``go movetime``; its rate from its
last ``info`` with nodes and time). A rate is the nodes over the seconds summed over the
positions. treestrap counts a node per call of its search; in brackets, its nodes by
Stockfish's rule (one per move made: ``nodes - revisits``, see
``benchmarks/engine_vs_stockfish.py``).

The perspective networks are materialistic (``perspective_random.material_perspective``:
the hand-set material plus seeded noise), so their searches build trees of ordinary
shape; speed per node does not depend on the values. Everything is compiled (or loaded
from the cache) before anything is timed. The aim printed below the table: a
perspective network of width 256 at least as fast as the native Stockfish build.
"""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import ExitStack
from dataclasses import dataclass

import chess
import chess.engine
from stockfish_builds import select_builds

from treestrap.core.notation import parse_fen
from treestrap.engine.bench import BENCH_FENS
from treestrap.engine.engine import Engine
from treestrap.evaluation.model import Evaluator
from treestrap.evaluation.perspective_random import material_perspective
from treestrap.evaluation.presets import learned_model, preset_model
from treestrap.search.timeman import SearchLimits


@dataclass
class Tally:
    """One engine's nodes and seconds over the positions."""

    nodes: int = 0
    revisits: int = 0
    seconds: float = 0.0

    def rate(self, stockfish_rule: bool = False) -> float:
        nodes = self.nodes - self.revisits if stockfish_rule else self.nodes
        return nodes / self.seconds if self.seconds > 0 else 0.0


def evaluators(widths: list[int], activation: str) -> dict[str, Evaluator]:
    """Ours, by column name."""
    out = {
        "learned": learned_model().evaluator(),
        "self-play-net": preset_model("self-play-net").evaluator(),
    }
    for width in widths:
        model = material_perspective(width, seed=1, activation=activation)
        out[f"perspective {width}"] = model.evaluator()
    return out


def search_ours(engine: Engine, fen: str, movetime: float, tally: Tally) -> None:
    engine.new_game()
    outcome = engine.go(parse_fen(fen), SearchLimits(movetime=movetime))
    tally.nodes += outcome.nodes
    tally.revisits += outcome.revisits
    tally.seconds += outcome.time


def search_stockfish(
    engine: chess.engine.SimpleEngine, fen: str, movetime: float, tally: Tally
) -> None:
    info = engine.analyse(chess.Board(fen), chess.engine.Limit(time=movetime), game=object())
    tally.nodes += int(info["nodes"])
    tally.seconds += float(info["time"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--movetime", type=float, default=1.0, help="seconds per position")
    parser.add_argument("--widths", type=int, nargs="+", default=[256, 512])
    parser.add_argument("--activation", choices=["crelu", "screlu"], default="crelu")
    parser.add_argument("--stockfish", default="stockfish", help="Debian's Stockfish command")
    parser.add_argument("--native", metavar="PATH", help="the native Stockfish build")
    args = parser.parse_args()

    print(f"{len(BENCH_FENS)} bench positions, {args.movetime:g} s each, Hash 16 MiB, 1 thread")
    print(f"load average {os.getloadavg()[0]:.2f} (1 min) at the start")
    builds = select_builds(args.stockfish, args.native)
    for b in builds:
        print(b.describe())
    ours = {
        name: Engine(ev, hash_mb=16)
        for name, ev in evaluators(args.widths, args.activation).items()
    }
    for engine in ours.values():  # compile or load the kernels before timing
        engine.go(parse_fen(BENCH_FENS[0]), SearchLimits(depth=2))
    tallies = {name: Tally() for name in [*ours, *(f"SF {b.label}" for b in builds)]}
    with ExitStack() as stack:
        stockfish = {}
        for b in builds:
            sf = stack.enter_context(chess.engine.SimpleEngine.popen_uci([b.command]))
            sf.configure({"Hash": 16, "Threads": 1})
            stockfish[f"SF {b.label}"] = sf
        for fen in BENCH_FENS:
            for name, engine in ours.items():
                search_ours(engine, fen, args.movetime, tallies[name])
            for name, sf in stockfish.items():
                search_stockfish(sf, fen, args.movetime, tallies[name])
    print(f"load average {os.getloadavg()[0]:.2f} (1 min) at the end\n")

    peers = [name for name in tallies if name.startswith("SF ")]
    head = f"{'engine':<18}{'nodes/s':>12}{'(SF rule)':>12}{'x learned':>11}"
    print(head + "".join(f"{'x ' + p:>16}" for p in peers))
    learned = tallies["learned"].rate()
    for name, tally in tallies.items():
        rate, by_rule = tally.rate(), tally.rate(stockfish_rule=True)
        cells = f"{name:<18}{rate:>12,.0f}{by_rule:>12,.0f}{rate / learned:>11.2f}"
        for p in peers:
            ratio = f"{rate / tallies[p].rate():.2f} ({by_rule / tallies[p].rate():.2f})"
            cells += f"{ratio:>16}"
        print(cells)
    print("\naim: perspective 256 at >= 1.00 x SF native (ratios in brackets by SF's node rule)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
