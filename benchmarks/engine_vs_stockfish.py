"""Nodes per second of ``treestrap uci`` (one line per preset or weight file) and of
Stockfish 15.1, single-threaded, same positions, same run, and the ratio ours/Stockfish.

    python benchmarks/engine_vs_stockfish.py                    # 3 s per position
    python benchmarks/engine_vs_stockfish.py --movetime 1 --preset hand-set --preset w.npz

Every engine gets ``Hash`` MiB (16 by default, treestrap's default), Stockfish
``Threads=1``, a ``ucinewgame`` before each position (an empty table) and ``go movetime``.
The rate of a search is the ``nodes`` over the ``time`` of its last ``info`` line that
has both. Ratios are per position and, in the last line, their geometric mean.

How each engine counts nodes (read from the sources):

* Stockfish 15.1 adds one in ``Position::do_move``: every move made anywhere in the
  search (main search, quiescence, ProbCut and singular-extension searches), so every
  position entered by a move, each time it is entered. The root and null moves
  (``do_null_move``) are not counted.
* treestrap adds one per call of the search kernel (``count_node`` in
  ``search/tournament.py``, as a main node for ``depth >= 1`` and as a quiescence node
  below, never both): the root once per iteration and aspiration re-search, every
  position entered by a move (the same as Stockfish's), and, unlike Stockfish, the
  position after each null move. Its ``info nodes`` is main plus quiescence nodes, and
  is printed only at the end of a finished iteration (the rate is that iteration's).

So each node is counted once by both; treestrap's count is higher than Stockfish's rule
would give it only by its roots (a few per iteration) and its null-move nodes, whose
share ``benchmarks/profile_search.py`` prints ("null moves" calls per node).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from contextlib import ExitStack
from dataclasses import dataclass

import chess
import chess.engine

from treestrap.evaluation.preset_names import HAND_SET, LEARNED, LEARNED_NET, PRESET_NAMES
from treestrap.play.players import find_engine

#: Opening, middlegames, Kiwipete and an endgame: each engine thinks on all of them.
POSITIONS: dict[str, str] = {
    "start": chess.STARTING_FEN,
    "italian": "r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2PP1N2/PP3PPP/RNBQ1RK1 w - - 2 7",
    "middlegame": "r1bq1rk1/pp2b1pp/n1pp1n2/3P1p2/2P1p3/2N1P2N/PP2BPPP/R1BQ1RK1 b - - 2 10",
    "kiwipete": "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "endgame": "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
}


@dataclass
class Measure:
    """One engine's search of one position."""

    nodes: int
    seconds: float
    depth: int

    @property
    def nps(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


def treestrap_command(engine: str) -> list[str]:
    """``treestrap uci`` with a preset's weights, or a weight file's."""
    base = [sys.executable, "-m", "treestrap.cli", "uci"]
    if engine in PRESET_NAMES:
        return [*base, "--preset", engine]
    if not os.path.isfile(engine):
        raise SystemExit(f"--preset {engine!r}: neither a preset nor a weight file")
    return [*base, "--weights", engine]


def open_engine(
    stack: ExitStack, command: list[str], options: dict[str, int]
) -> chess.engine.SimpleEngine:
    """A configured engine whose kernels are compiled or loaded (by an untimed search)."""
    engine = stack.enter_context(chess.engine.SimpleEngine.popen_uci(command, timeout=600))
    engine.configure(options)
    engine.analyse(chess.Board(), chess.engine.Limit(depth=3), game=object())
    return engine


def search(engine: chess.engine.SimpleEngine, fen: str, movetime: float) -> Measure:
    """``fen`` searched for ``movetime`` seconds from an empty table."""
    info = engine.analyse(chess.Board(fen), chess.engine.Limit(time=movetime), game=object())
    if "nodes" not in info or "time" not in info:
        raise RuntimeError(f"{engine.id.get('name')}: no nodes and time reported on {fen}")
    return Measure(int(info["nodes"]), float(info["time"]), int(info.get("depth", 0)))


def print_table(ours: dict[str, dict[str, Measure]], theirs: dict[str, Measure]) -> None:
    """Nodes per second (depth of the last reported iteration), then the ratios."""
    columns = {**ours, "stockfish": theirs}
    width = max(18, *(len(n) + 2 for n in columns))
    print(f"{'position':<11}" + "".join(f"{n:>{width}}" for n in columns))
    for pos in POSITIONS:
        cells = (f"{m[pos].nps:,.0f} (d{m[pos].depth})" for m in columns.values())
        print(f"{pos:<11}" + "".join(f"{c:>{width}}" for c in cells))
    means = (geometric_mean([m.nps for m in col.values()]) for col in columns.values())
    print(f"{'geo. mean':<11}" + "".join(f"{v:>{width},.0f}" for v in means))
    print()
    print(f"{'ours/SF':<11}" + "".join(f"{n:>{width}}" for n in ours))
    ratios = {n: [col[p].nps / theirs[p].nps for p in POSITIONS] for n, col in ours.items()}
    for i, pos in enumerate(POSITIONS):
        print(f"{pos:<11}" + "".join(f"{r[i]:>{width}.2f}" for r in ratios.values()))
    print(
        f"{'geo. mean':<11}" + "".join(f"{geometric_mean(r):>{width}.2f}" for r in ratios.values())
    )


def geometric_mean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--movetime", type=float, default=3.0, help="seconds per position")
    parser.add_argument(
        "--preset",
        action="append",
        metavar="NAME|FILE",
        help=f"treestrap's weights: a preset or a weight file, repeatable "
        f"(default {HAND_SET}, {LEARNED} and the network preset {LEARNED_NET})",
    )
    parser.add_argument("--hash", type=int, default=16, help="MiB for every engine (16)")
    parser.add_argument("--stockfish", default="stockfish", help="Stockfish's command")
    args = parser.parse_args()
    stockfish = find_engine(args.stockfish)
    if not stockfish:
        print(f"{args.stockfish} not found (apt-get install stockfish)", file=sys.stderr)
        return 2
    engines = args.preset or [HAND_SET, LEARNED, LEARNED_NET]
    print(f"{len(POSITIONS)} positions, {args.movetime:g} s each, Hash {args.hash} MiB")
    with ExitStack() as stack:
        opened = {e: open_engine(stack, treestrap_command(e), {"Hash": args.hash}) for e in engines}
        sf = open_engine(stack, [stockfish], {"Hash": args.hash, "Threads": 1})
        print(f"stockfish: {sf.id.get('name', stockfish)}")
        ours: dict[str, dict[str, Measure]] = {e: {} for e in engines}
        theirs: dict[str, Measure] = {}
        # Position by position, every engine in turn: a change of load on a shared
        # machine then falls on all of them alike.
        for name, fen in POSITIONS.items():
            for e, engine in opened.items():
                ours[e][name] = search(engine, fen, args.movetime)
            theirs[name] = search(sf, fen, args.movetime)
    print_table(ours, theirs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
