"""Nodes per second of ``treestrap uci`` (one column per preset or weight file) and of
Stockfish 15.1 in two builds, single-threaded, same positions, same run, and the ratios
ours/Stockfish with nodes counted both ways.

    python benchmarks/engine_vs_stockfish.py                    # 3 s per position
    python benchmarks/engine_vs_stockfish.py --movetime 1 --preset hand-set --preset w.npz
    python benchmarks/engine_vs_stockfish.py --json runs/speed.json   # the figures as JSON

The Stockfish builds (``benchmarks/stockfish_builds.py``): Debian's package (built for
generic x86-64, "64bit SSE2") and the same version built natively for this processor
family (``--native PATH``: a build of the official source that a user makes), when it
runs here (a line says why it is left out otherwise). Each is printed with its build
line, the output of its ``compiler`` command.

Every engine gets ``Hash`` MiB (16 by default, treestrap's default), Stockfish
``Threads=1``, a ``ucinewgame`` before each position (an empty table) and ``go movetime``.
The engines take turns position by position, so a change of load on the machine falls
on all of them alike. The rate of a search is the ``nodes`` over the ``time`` of its
last ``info`` line that has both. Ratios are per position and, in the last line, their
geometric mean.

How each engine counts nodes (read from the sources):

* Stockfish 15.1 adds one in ``Position::do_move``: every move made anywhere in the
  search (main search, quiescence, ProbCut and singular-extension searches). It makes a
  move once for all its searches of the child (reduced, full depth, full window), and
  does not count the root or the position after a null move.
* treestrap adds one per call of its search kernel (``pvs`` in
  ``src/treestrap/search/tournament.py``): every position entered by a move, as
  Stockfish, plus the root of each iteration and aspiration re-search, the position
  after each null move, and the child again at each re-search (LMR at full depth, PVS
  with the full window). Its ``info nodes`` counts all of them. The search counts these
  extra calls apart (``stats[REVISITS]``).

So after the timed runs, each treestrap search is replayed in this process to the depth
its last ``info`` line reported (the same table size from empty: the same tree, which
is checked by its node count), which gives its revisits. Every ratio is printed twice:
with treestrap's ``info nodes``, and in brackets with its nodes by Stockfish's rule
(``nodes - revisits``), over the same time.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import chess
import chess.engine
from stockfish_builds import StockfishBuild, select_builds

from treestrap.core.notation import parse_fen
from treestrap.engine.engine import Engine
from treestrap.engine.uci import preset_model
from treestrap.evaluation.preset_names import HAND_SET, LEARNED, PRESET_NAMES, ZERO
from treestrap.evaluation.weight_files import load_weights
from treestrap.search.timeman import SearchLimits

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
    #: treestrap only, from the replay: nodes Stockfish's rule would not count
    revisits: int = 0
    #: treestrap only: whether the replay's node count equals the timed run's
    same_tree: bool | None = None

    @property
    def nps(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0

    @property
    def stockfish_rule_nps(self) -> float:
        """Nodes by Stockfish's rule (one per move made) per second."""
        return (self.nodes - self.revisits) / self.seconds if self.seconds > 0 else 0.0


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


def recount(engine: str, measures: dict[str, Measure], hash_mb: int) -> None:
    """Replay each timed search of ``engine`` in this process to the depth it reported
    (a fresh table of the same size, so the same tree) and store its revisits."""
    model = preset_model(engine) if engine in PRESET_NAMES else load_weights(engine)
    replay = Engine(model.evaluator(), hash_mb=hash_mb)
    for name, measure in measures.items():
        replay.new_game()
        outcome = replay.go(parse_fen(POSITIONS[name]), SearchLimits(depth=measure.depth))
        measure.same_tree = outcome.nodes == measure.nodes
        # Should the trees differ, the replay's share of revisits still estimates it.
        share = outcome.revisits / outcome.nodes if outcome.nodes else 0.0
        measure.revisits = outcome.revisits if measure.same_tree else round(share * measure.nodes)


def geometric_mean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def print_rates(ours: dict[str, dict[str, Measure]], theirs: dict[str, dict[str, Measure]]) -> None:
    """Nodes per second (depth of the last reported iteration) of every engine."""
    columns = {**ours, **{f"SF {label}": col for label, col in theirs.items()}}
    width = max(18, *(len(n) + 2 for n in columns))
    print("nodes per second as reported (depth of the last reported iteration)")
    print(f"{'position':<11}" + "".join(f"{n:>{width}}" for n in columns))
    for pos in POSITIONS:
        cells = (f"{m[pos].nps:,.0f} (d{m[pos].depth})" for m in columns.values())
        print(f"{pos:<11}" + "".join(f"{c:>{width}}" for c in cells))
    means = (geometric_mean([m.nps for m in col.values()]) for col in columns.values())
    print(f"{'geo. mean':<11}" + "".join(f"{v:>{width},.0f}" for v in means))
    print()


def print_revisits(ours: dict[str, dict[str, Measure]]) -> None:
    """The share of treestrap's nodes that Stockfish's rule would not count."""
    width = max(18, *(len(n) + 2 for n in ours))
    print("treestrap nodes that Stockfish's rule does not count (root, null-move children,")
    print("re-searched children), share of info nodes; * the replay's tree differed")
    print(f"{'position':<11}" + "".join(f"{n:>{width}}" for n in ours))
    for pos in POSITIONS:
        cells = (
            f"{m[pos].revisits / m[pos].nodes:.2%}{'' if m[pos].same_tree else '*'}"
            for m in ours.values()
        )
        print(f"{pos:<11}" + "".join(f"{c:>{width}}" for c in cells))
    totals = (
        sum(m.revisits for m in col.values()) / sum(m.nodes for m in col.values())
        for col in ours.values()
    )
    print(f"{'all':<11}" + "".join(f"{t:>{width}.2%}" for t in totals))
    print()


def ratios(ours: dict[str, Measure], theirs: dict[str, Measure]) -> tuple[list[float], list[float]]:
    """Per position: ours/Stockfish with info nodes, and with Stockfish's rule."""
    reported = [ours[p].nps / theirs[p].nps for p in POSITIONS]
    by_rule = [ours[p].stockfish_rule_nps / theirs[p].nps for p in POSITIONS]
    return reported, by_rule


def print_ratios(
    ours: dict[str, dict[str, Measure]],
    theirs: dict[str, dict[str, Measure]],
    builds: dict[str, StockfishBuild],
) -> None:
    width = max(18, *(len(n) + 2 for n in ours))
    for label, sf in theirs.items():
        print(f"ours / Stockfish {label} ({builds[label].build}); in brackets by Stockfish's rule")
        print(f"{'position':<11}" + "".join(f"{n:>{width}}" for n in ours))
        pairs = {n: ratios(col, sf) for n, col in ours.items()}
        for i, pos in enumerate(POSITIONS):
            cells = (f"{r[i]:.2f} ({s[i]:.2f})" for r, s in pairs.values())
            print(f"{pos:<11}" + "".join(f"{c:>{width}}" for c in cells))
        means = (f"{geometric_mean(r):.2f} ({geometric_mean(s):.2f})" for r, s in pairs.values())
        print(f"{'geo. mean':<11}" + "".join(f"{c:>{width}}" for c in means))
        print()


def machine_line() -> str:
    """The processor, cores and load: what the figures depend on beside the code."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            names = [ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")]
        model = names[0] if names else model
    except OSError:
        pass
    try:
        load = f"{os.getloadavg()[0]:.2f}"
    except OSError:
        load = "unknown"
    return f"machine: {model}, {os.cpu_count()} CPUs, load average {load} (1 min) at the start"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--movetime", type=float, default=3.0, help="seconds per position")
    parser.add_argument(
        "--preset",
        action="append",
        metavar="NAME|FILE",
        help=f"treestrap's weights: a preset or a weight file, repeatable "
        f"(default {HAND_SET}, {LEARNED} and the network preset {ZERO})",
    )
    parser.add_argument("--hash", type=int, default=16, help="MiB for every engine (16)")
    parser.add_argument(
        "--stockfish", default="stockfish", help="Debian's Stockfish command (stockfish)"
    )
    parser.add_argument(
        "--native",
        metavar="PATH",
        help="the native Stockfish build, Stockfish 15.1 compiled for this processor "
        "(default: $TREESTRAP_NATIVE_STOCKFISH, else left out)",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the figures to FILE")
    args = parser.parse_args()
    engines = args.preset or [HAND_SET, LEARNED, ZERO]
    for engine in engines:
        treestrap_command(engine)  # a wrong name stops here, before anything runs

    print(f"{len(POSITIONS)} positions, {args.movetime:g} s each, Hash {args.hash} MiB, 1 thread")
    machine = machine_line()
    print(machine)
    found = select_builds(args.stockfish, args.native)
    if not found:
        print("no Stockfish build runs here (apt-get install stockfish)", file=sys.stderr)
        return 2
    builds = {b.label: b for b in found}
    for b in found:
        print(b.describe())
    if len(found) < 2:
        print(f"compared with Stockfish {found[0].label} only")
    with ExitStack() as stack:
        opened = {e: open_engine(stack, treestrap_command(e), {"Hash": args.hash}) for e in engines}
        stockfish = {
            b.label: open_engine(stack, [b.command], {"Hash": args.hash, "Threads": 1})
            for b in found
        }
        for label, sf in stockfish.items():
            print(f"Stockfish {label} says: id name {sf.id.get('name', '?')}")
        print()
        ours: dict[str, dict[str, Measure]] = {e: {} for e in engines}
        theirs: dict[str, dict[str, Measure]] = {label: {} for label in stockfish}
        for name, fen in POSITIONS.items():
            for e, engine in opened.items():
                ours[e][name] = search(engine, fen, args.movetime)
            for label, sf in stockfish.items():
                theirs[label][name] = search(sf, fen, args.movetime)
    for e in engines:  # after the timing: the replays take as long again
        recount(e, ours[e], args.hash)
    print_rates(ours, theirs)
    print_revisits(ours)
    print_ratios(ours, theirs, builds)
    if args.json:
        write_json(Path(args.json), args, machine, ours, theirs, builds)
        print(f"figures written to {args.json}")
    return 0


def write_json(
    path: Path,
    args: argparse.Namespace,
    machine: str,
    ours: dict[str, dict[str, Measure]],
    theirs: dict[str, dict[str, Measure]],
    builds: dict[str, StockfishBuild],
) -> None:
    data: dict[str, Any] = {
        "movetime": args.movetime,
        "hash_mb": args.hash,
        "machine": machine,
        "positions": POSITIONS,
        "stockfish": {label: asdict(b) for label, b in builds.items()},
        "treestrap": {e: {p: asdict(m) for p, m in col.items()} for e, col in ours.items()},
        "stockfish_measures": {
            label: {p: asdict(m) for p, m in col.items()} for label, col in theirs.items()
        },
        "ratios": {
            label: {
                e: {
                    kind: {"by_position": values, "geometric_mean": geometric_mean(values)}
                    for kind, values in zip(
                        ("reported", "stockfish_rule"), ratios(col, sf), strict=True
                    )
                }
                for e, col in ours.items()
            }
            for label, sf in theirs.items()
        },
    }
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
