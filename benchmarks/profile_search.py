"""Where the time of the tournament search goes, per component: move generation,
make/unmake, evaluation (its parts, its cache, the lazy estimate), check and draw
tests, the transposition table, move ordering, static exchange evaluation, quiescence.

    python benchmarks/profile_search.py                    # about 4 minutes on 2 cores
    python benchmarks/profile_search.py --nodes 20000 --rounds 2

Compiled numba code cannot be profiled by cProfile. Each component's share is built
from measurements of the compiled code:

* *calls per node*, counted exactly: the same searches run once more with their
  recursive kernels interpreted and every compiled component they call wrapped
  (``profile_shadow.py``); that run must visit the same nodes as the compiled one, and it
  keeps the arguments of up to ``2 x --samples`` calls of each component, spread over
  the run;
* *cost per call alone*: a compiled loop repeats the component over those sampled calls,
  less the cost of loading each sampled position (``profile_kernels.py``,
  ``profile_costs.py``); the transposition table probed is the search's own;
* as a check, *cost per call in the search*: the search compiled again with the
  component called twice where it was called once (the same tree, checked), its extra
  CPU time over the calls made (``profile_variants.py``, the fastest of ``--rounds``
  interleaved runs). The two agree for the large components; for small ones the second
  copy changes what the compiler inlines or merges (a cost of -50 or +150 ns), and the
  noise of the timings is a few ns per node: the table marks rows where they differ.

A row's *estimated* share is calls per node x cost alone, over the *measured* CPU time
per node of the search (the same kernel compiled unchanged). The evaluation's calls
are the evaluation cache's misses (positions really evaluated); every read of the
cache, hit or miss, is costed as a hit in its own row. "not attributed" is the
measured time less the summed estimates: the kernel's own work (control flow, node
counting, PV copies, the views it takes of its arrays) and the error of the estimates.
A loop keeps its data hotter than a search does, so its costs lean low. "at q": the part
of the share spent at quiescence nodes, in proportion to the calls made there. The
evaluation's parts (meep's own functions, and a replica of its material and
piece-square pairs) are timed alone on the evaluation's samples, writing the pairs of
the gradient; "score less the pairs" is the evaluation less that extraction: the
evaluation sums a linear score in the same pass, writing no pairs, so it can be below
0. Costs under about 5 ns are below what loops resolve.

Tournament search: ``Engine.go`` with a node limit (``--nodes`` per position, a fresh
16 MiB table each) on the positions of ``engine_vs_stockfish.py``, ``--preset`` weights.
All times are CPU times of this process.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np
import profile_kernels as K
import profile_variants as V
from engine_vs_stockfish import POSITIONS
from profile_costs import Costs
from profile_shadow import AS_PYTHON, SEARCH_CALLS, Shadow

from treestrap.core.notation import parse_fen
from treestrap.engine.engine import Engine
from treestrap.evaluation.preset_names import LEARNED, PRESET_NAMES
from treestrap.evaluation.presets import preset_model
from treestrap.search.scratch import NODES
from treestrap.search.timeman import SearchLimits

#: The search components that can be called twice without changing the tree (the stand
#: pat is a helper: its components are doubled inside it).
NOT_DOUBLED = (
    "unmake_move",
    "unmake_null_move",
    "update_quiet_cutoff",
    "update_pv",
    "_stand_pat",
    # what a lazy estimate leaves to the cache and the evaluation: timed as theirs
    "cached_value_after_estimate",
    "evaluate_after_estimate",
)
DOUBLED = tuple(c for c in SEARCH_CALLS if c not in NOT_DOUBLED)
#: Fewer calls than this in a whole run are too few to time by doubling.
MIN_DOUBLED_CALLS = 1000


@dataclass
class Row:
    """One component: calls per unit (node or search) by kind, costs per call."""

    label: str
    main: float  # calls per unit at main nodes
    quiescence: float  # calls per unit at quiescence nodes
    in_search: float  # ns per call, by doubling (NaN: not measured so)
    alone: float  # ns per call, by a loop (NaN: not measured so)
    part: bool = False  # a part of the row above: not added up

    @property
    def calls(self) -> float:
        return self.main + self.quiescence

    @property
    def ns_per_call(self) -> float:
        """The cost the share is built on: alone, as every row has it."""
        return self.in_search if math.isnan(self.alone) else self.alone

    @property
    def disagree(self) -> bool:
        """The two costs differ by more than 30% and 20 ns."""
        gap = abs(self.in_search - self.alone)
        return gap > 20.0 and gap > 0.3 * abs(self.alone)

    @property
    def ns(self) -> float:
        """Estimated nanoseconds per unit."""
        return self.calls * self.ns_per_call


class Table:
    """Rows of one search: calls counted by ``shadow``, in-search costs ``delta``
    (extra seconds of each doubled component over all the units)."""

    def __init__(self, shadow: Shadow, units: int, kinds: tuple[str, str], delta: dict) -> None:
        self.shadow, self.units, self.kinds, self.delta = shadow, units, kinds, delta
        self.rows: list[Row] = []

    def add(self, label: str, names: tuple[str, ...], alone: float = math.nan) -> Row:
        """A row for the calls of ``names[0]``; its in-search cost is the doubling of
        every name in ``names`` (one call of each per call of the first)."""
        main = self.shadow.calls(names[0], self.kinds[0]) / self.units
        quiescence = self.shadow.calls(names[0], self.kinds[1]) / self.units
        calls = (main + quiescence) * self.units
        doubled = [self.delta[n] for n in names if n in self.delta]
        in_search = sum(doubled) / calls * 1e9 if doubled and calls else math.nan
        row = Row(label, main, quiescence, in_search, alone)
        self.rows.append(row)
        return row

    def parts(self, whole: Row, parts: list[tuple[str, float]]) -> None:
        """Parts of ``whole`` (the first, the feature extraction, holds the others):
        alone, and in the search as the same fraction of its in-search cost."""
        scale = whole.in_search / whole.alone if whole.alone > 0 else math.nan
        for label, ns in parts:
            self.rows.append(Row(label, whole.main, whole.quiescence, ns * scale, ns, part=True))
        rest = whole.alone - parts[0][1]
        self.rows.append(
            Row(
                "score less the pairs (fused)",
                whole.main,
                whole.quiescence,
                rest * scale,
                rest,
                True,
            )
        )

    def print(self, title: str, measured_ns: float, unit: str, per: float = 1.0) -> None:
        """The table; the column of time per unit is in units of ``per`` ns."""
        time_unit = {1.0: "ns", 1e3: "us", 1e6: "ms"}[per] + "/" + unit
        print(title)
        head = (
            f"{'component':<40} {'calls/' + unit:>12} {'q calls':>8} {'ns/call':>8} "
            f"{'doubled':>8} {time_unit:>10} {'share':>6} {'at q':>6}"
        )
        print(head)
        print("-" * len(head))
        total = 0.0
        for r in self.rows:
            share = r.ns / measured_ns
            q_share = r.quiescence * r.ns_per_call / measured_ns
            few = r.calls * self.units < MIN_DOUBLED_CALLS
            doubled = "-" if few or math.isnan(r.in_search) else f"{r.in_search:.1f}"
            mark = " !" if r.disagree and not few else ""
            print(
                f"{('  ' if r.part else '') + r.label:<40} {r.calls:>12.3f} "
                f"{r.quiescence:>8.3f} {r.ns_per_call:>8.1f} {doubled:>8} {r.ns / per:>10.2f} "
                f"{share:>6.1%} {q_share:>6.1%}{mark}"
            )
            if not r.part and not math.isnan(r.ns):
                total += r.ns
        blank = f"{'':>12} {'':>8} {'':>8} {'':>8}"
        for label, ns in (
            ("sum of the estimates", total),
            ("not attributed", measured_ns - total),
            ("measured (the compiled search)", measured_ns),
        ):
            print(f"{label:<40} {blank} {ns / per:>10.2f} {ns / measured_ns:>6.1%}")
        print(
            "ns/call: alone, in a compiled loop (what the share is built on); doubled: in the "
            "search, by calling it twice\n(-: not doubled, or too few calls to time); "
            "!: the two differ by more than 30% and 20 ns"
        )
        print()


def search_table(shadow: Shadow, nodes: int, delta: dict, costs: Costs) -> Table:
    """The components of the tournament search (``pvs``), per node."""
    t = Table(shadow, nodes, ("main", "quiescence"), delta)
    moves = costs.moves
    t.add(
        "move generation: all moves",
        ("generate_moves",),
        costs.positional("generate_moves", K.loop_generate_moves, moves),
    )
    t.add(
        "move generation: captures",
        ("generate_captures",),
        costs.positional("generate_captures", K.loop_generate_captures, moves),
    )
    t.add("make/unmake", ("make_move",), costs.make_unmake())
    t.add(
        "null move make/unmake",
        ("make_null_move",),
        costs.positional("make_null_move", K.loop_null_move),
    )
    evaluation = t.add(
        "evaluation (static_value: cache misses)", ("static_value",), costs.evaluation()
    )
    t.parts(evaluation, costs.evaluation_parts())
    t.add(
        "evaluation after the estimate (misses)",
        ("evaluate_after_estimate",),
        costs.evaluation(),
    )
    t.add("evaluation cache: reads", ("cached_static_value",), costs.cache_read())
    t.add(
        "evaluation cache: reads after estimate",
        ("cached_value_after_estimate",),
        costs.cache_read(),
    )
    t.add(
        "lazy evaluation: the model's estimate",
        ("lazy_estimate",),
        costs.lazy_estimate(),
    )
    t.add("check tests (in_check)", ("in_check",), costs.positional("in_check", K.loop_in_check))
    t.add(
        "draw test: repetition",
        ("is_repetition",),
        costs.positional("is_repetition", K.loop_is_repetition),
    )
    t.add(
        "draw test: material",
        ("is_insufficient_material",),
        costs.positional("is_insufficient_material", K.loop_insufficient),
    )
    t.add("TT probe", ("tt_probe",), costs.tt_probe())
    # checked whole: the engine's threads share the table
    t.add("TT cut-off test", ("tt_checked_cutoff",), costs.tt_checked_cutoff())
    t.add("TT store", ("tt_store_result",), costs.tt_store())
    t.add("ordering: score + pick", ("score_moves", "pick_next"), costs.ordering())
    t.add("ordering: killers, history", ("update_quiet_cutoff",), costs.quiet_cutoff())
    t.add("exchange evaluation (SEE)", ("exchange_at_least",), costs.exchange())
    t.add("the recursive call (its arguments)", ("pvs",), costs.recursion())
    return t


def ordering_facts(shadow: Shadow) -> str:
    """Moves generated and picked per node that searched moves (from the samples)."""
    items = shadow.items("score_moves")
    if not items:
        return "no node searched moves"
    n = np.array([len(x[1]) for x in items])
    picks = np.array([x[4] for x in items])
    tt_first = np.array([x[3] != 0 and x[4] == 1 for x in items])
    return (
        f"nodes that searched moves: {n.mean():.1f} moves generated, {picks.mean():.1f} "
        f"picked on average; {tt_first.mean():.0%} stopped after the TT move alone"
    )


def evaluation_facts(shadow: Shadow, units: int) -> str:
    """Static values asked of the evaluation cache per node, and evaluated (its misses,
    and the rare evaluation at the deepest ply, past the cache)."""
    kinds = ("main", "quiescence")
    reads = sum(
        shadow.calls(name, k)
        for name in ("cached_static_value", "cached_value_after_estimate")
        for k in kinds
    )
    evaluations = sum(
        shadow.calls(name, k) for name in ("static_value", "evaluate_after_estimate") for k in kinds
    )
    if not reads:
        return "no static value read"
    return (
        f"static values: {reads / units:.3f} cache reads a node, {evaluations / units:.3f} "
        f"evaluations; {1 - evaluations / reads:.0%} read back"
    )


def deltas(best: dict[str, float], reference: str = "reference") -> dict[str, float]:
    """Extra seconds of each doubled variant over the reference."""
    return {k: v - best[reference] for k, v in best.items() if k != reference}


# --- the tournament search ---------------------------------------------------------------


def tournament(ev: Any, nodes: int, cap: int, rounds: int) -> None:
    import treestrap.engine.iteration as engine_module  # where the engine calls pvs
    import treestrap.search.tournament as module

    limits = SearchLimits(nodes=nodes)

    def searches() -> tuple[float, tuple[int, ...], Engine]:
        seconds, counts, engine = 0.0, [], None
        for fen in POSITIONS.values():
            engine = Engine(ev, hash_mb=16)
            spent, outcome = V.cpu_timed(lambda e=engine, f=fen: e.go(parse_fen(f), limits))
            seconds += spent
            counts.append(outcome.nodes)
        assert engine is not None
        return seconds, tuple(counts), engine

    Engine(ev, hash_mb=16).go(parse_fen(POSITIONS["start"]), SearchLimits(depth=3))  # compile
    seconds, counted, engine = searches()
    main = 0
    with Shadow(cap) as shadow:
        for fen, expected in zip(POSITIONS.values(), counted, strict=True):
            e = Engine(ev, hash_mb=16)
            V.same_tree(expected, e.go(parse_fen(fen), limits).nodes, "nothing (counting)")
            main += int(e.ctx.stats[NODES])
    total = sum(counted)

    kernels = {"reference": V.recompile(module.pvs, {})}
    for name, replace in V.doubling(module, DOUBLED, AS_PYTHON).items():
        kernels[name] = V.recompile(module.pvs, replace)

    def with_kernel(kernel: Any) -> Any:
        def run() -> tuple[float, tuple[int, ...]]:
            saved = engine_module.pvs
            engine_module.pvs = kernel
            try:
                spent, found, _ = searches()
            finally:
                engine_module.pvs = saved
            return spent, found

        return run

    best, found = V.fastest({k: with_kernel(v) for k, v in kernels.items()}, rounds)
    for name, result in found.items():
        V.same_tree(counted, result, name)
    measured = best["reference"] / total * 1e9
    print(
        f"== tournament search: Engine.go, {len(POSITIONS)} positions x {nodes:,} nodes, "
        f"{total - main:,} of {total:,} nodes in quiescence ({(total - main) / total:.0%})"
    )
    print(
        f"measured: {measured:.0f} ns per node ({1e9 / measured:,.0f} nodes per CPU second; "
        f"the production kernel: {seconds / total * 1e9:.0f} ns); null moves "
        f"{shadow.calls('make_null_move') / total:.3f} per node"
    )
    print(ordering_facts(shadow))
    print(evaluation_facts(shadow, total))
    costs = Costs(shadow, ev, engine.tt)
    search_table(shadow, total, deltas(best), costs).print("per node", measured, "node")


# --- main --------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--preset",
        default=LEARNED,
        choices=PRESET_NAMES,
        help=f"the tournament search's weights ({LEARNED})",
    )
    parser.add_argument(
        "--nodes", type=int, default=100_000, help="tournament nodes per position (100000)"
    )
    parser.add_argument(
        "--rounds", type=int, default=5, help="timings of each doubled search, the fastest kept (5)"
    )
    parser.add_argument(
        "--samples",
        type=int,
        default=2000,
        help="calls kept per component: between this and twice it (2000)",
    )
    args = parser.parse_args()
    print(f"tournament weights: {args.preset}")
    ev = preset_model(args.preset).evaluator()
    tournament(ev, args.nodes, args.samples, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
