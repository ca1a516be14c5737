"""The bench: a fixed set of positions searched to a fixed depth.

``treestrap bench`` (and the UCI ``bench`` command) search each position below to
``DEFAULT_DEPTH`` plies with the hand-set weights, a 16 MiB table cleared between
positions, and no time limit. The total node count is the *signature*: deterministic,
it changes only when the search or the evaluation changes, so it tells at a glance
whether an edit altered the engine's behaviour; the nodes per second measure speed.

The bench keeps the hand-set weights whatever preset the engine plays by default (the
learned one, ``preset_names.DEFAULT_PRESET``) or a UCI session has chosen: the signature
is a recorded contract, 2110878 nodes at depth 8 (2250546 before the exchange,
futility and late move pruning, 2194615 before the lazy evaluation), that a new default
preset must not move.

The signature is a single thread's. With more threads (``--threads``, or the UCI
session's ``Threads``) the helpers' timing decides what they find in the table, so the
node count changes from run to run; the time to reach the depth is then the figure
to compare.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the engine is imported when the bench runs: --help stays instant
    from treestrap.evaluation.model import Evaluator
    from treestrap.search.tournament import EngineOptions

#: Plies searched per position: the whole bench takes a few seconds.
DEFAULT_DEPTH = 8
#: Transposition table size of the bench (it changes the node counts: keep it fixed).
BENCH_HASH_MB = 16

#: Openings, middlegames with tactics, and endgames (pawn races, promotions, mates).
BENCH_FENS: tuple[str, ...] = (
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bq1rk1/pp2b1pp/n1pp1n2/3P1p2/2P1p3/2N1P2N/PP2BPPP/R1BQ1RK1 b - - 2 10",
    "r3k2r/2pb1ppp/2pp1q2/p7/1nP1B3/1P2P3/P2N1PPP/R2QK2R w KQkq a6 0 14",
    "4rrk1/2p1b1p1/p1p3q1/4p3/2P2n1p/1P1NR2P/PB3PP1/3R1QK1 b - - 2 24",
    "r3qbrk/6p1/2b2pPp/p3pP1Q/PpPpP2P/3P1B2/2PB3K/R5R1 w - - 16 42",
    "7r/2p3k1/1p1p1qp1/1P1Bp3/p1P2r1P/P7/4R3/Q4RK1 w - - 0 36",
    "6k1/1R3p2/6p1/2Bp3p/3P2q1/P7/1P2rQ1K/5R2 b - - 4 44",
    "3r3k/2r4p/1p1b3q/p4P2/P2Pp3/1B2P3/3BQ1RP/6K1 w - - 3 87",
    "8/8/1p2k1p1/3p3p/1p1P1P1P/1P2PK2/8/8 w - - 3 54",
    "8/5pk1/6p1/2P5/5P2/6PK/8/8 w - - 0 1",
    "8/1P6/8/8/5k2/8/3K2p1/8 w - - 0 1",
    "1K1k4/1P6/8/8/8/8/r7/2R5 w - - 0 1",
)


@dataclass
class BenchPosition:
    fen: str
    best_move: str | None
    nodes: int
    time: float


@dataclass
class BenchResult:
    depth: int
    nodes: int
    time: float
    positions: list[BenchPosition] = field(default_factory=list)

    @property
    def nps(self) -> int:
        return int(self.nodes / self.time) if self.time > 0 else 0


def run_bench(
    depth: int = DEFAULT_DEPTH,
    evaluator: Evaluator | None = None,
    report: Callable[[int, BenchPosition], None] | None = None,
    fens: tuple[str, ...] = BENCH_FENS,
    threads: int = 1,
    options: EngineOptions | None = None,
) -> BenchResult:
    """Search every bench position to ``depth`` with ``threads`` search threads;
    ``report(i, result)`` after each.

    ``evaluator`` defaults to the hand-set weights (the signature is defined with them,
    not with the engine's default preset).
    """
    from treestrap.core.notation import parse_fen
    from treestrap.engine.engine import Engine
    from treestrap.evaluation.presets import hand_set_model
    from treestrap.search.timeman import SearchLimits

    if depth < 1:
        raise ValueError(f"bench depth must be >= 1, got {depth}")
    if evaluator is None:
        evaluator = hand_set_model().evaluator()
    engine = Engine(evaluator, hash_mb=BENCH_HASH_MB, threads=threads, options=options)
    result = BenchResult(depth=depth, nodes=0, time=0.0)
    for i, fen in enumerate(fens):
        pos = parse_fen(fen)
        engine.new_game()
        start = time.perf_counter()
        outcome = engine.go(pos, SearchLimits(depth=depth))
        elapsed = time.perf_counter() - start
        row = BenchPosition(fen, outcome.best_move, outcome.nodes, elapsed)
        result.positions.append(row)
        result.nodes += outcome.nodes
        result.time += elapsed
        if report:
            report(i, row)
    return result


def format_bench_line(i: int, row: BenchPosition) -> str:
    """One position's line of the bench output."""
    return (
        f"position {i + 1:2d}: {row.nodes:9d} nodes {row.time:7.3f} s "
        f"bestmove {row.best_move or '0000'}  {row.fen}"
    )


def format_bench_total(result: BenchResult) -> str:
    """The last line of the bench output: the signature and the speed."""
    return f"bench: {result.nodes} nodes {result.nps} nps"
