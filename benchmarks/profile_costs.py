"""Costs per call of the search's components alone, for ``profile_search.py``: the
compiled loops of ``profile_kernels.py`` run over the calls a shadow run sampled
(``profile_shadow.py``), less the cost of loading each sampled position."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import profile_kernels as K
from profile_shadow import Shadow

from treestrap.core.move import MAX_MOVES
from treestrap.evaluation.model import Evaluator
from treestrap.search.context import new_context
from treestrap.search.tournament import EngineOptions
from treestrap.search.tt import TranspositionTable

#: Each loop timing lasts about this long (the best of three is kept).
TIMING_SECONDS = 0.2


def per_call(loop: Callable[..., Any], args: tuple[Any, ...], calls: int) -> float:
    """Nanoseconds per call of ``loop(*args, passes)`` making ``calls`` calls a pass."""
    return K.seconds_per_pass(loop, args, TIMING_SECONDS) / calls * 1e9


class Costs:
    """Nanoseconds per call of each component, over the calls ``shadow`` sampled (NaN
    for a component never called)."""

    def __init__(self, shadow: Shadow, ev: Evaluator, tt: TranspositionTable) -> None:
        self.shadow, self.ev, self.tt = shadow, ev, tt
        self.moves = np.zeros(MAX_MOVES, dtype=np.int32)
        self._memo: dict[str, float] = {}

    def _loaded(self, snapshots: list[Any], loop: Callable[..., Any], *extra: Any) -> float:
        """``loop`` over positions loaded in turn, less the loading."""
        s = K.pack(snapshots)
        pos = K.work_position(s.keys.shape[1] - 1)
        n = len(snapshots)
        return max(0.0, per_call(loop, (pos, s, *extra), n) - per_call(K.loop_load, (pos, s), n))

    def positional(self, name: str, loop: Callable[..., Any], *extra: Any) -> float:
        """A component of the position alone, over ``name``'s sampled positions."""
        items = self.shadow.items(name)
        return self._loaded(items, loop, *extra) if items else math.nan

    def make_unmake(self) -> float:
        items = self.shadow.items("make_move")
        if not items:
            return math.nan
        moves = np.array([x[1] for x in items], dtype=np.int64)
        return self._loaded([x[0] for x in items], K.loop_make_unmake, moves)

    def evaluation(self) -> float:
        """A real evaluation (``static_value``, what a cache miss costs)."""
        if "evaluation" not in self._memo:  # the evaluation's parts need it again
            self._memo["evaluation"] = self.positional("static_value", K.loop_static_value, self.ev)
        return self._memo["evaluation"]

    def lazy_estimate(self) -> float:
        return self.positional("lazy_estimate", K.loop_lazy_estimate, self.ev)

    def cache_read(self) -> float:
        """A read of the evaluation cache that finds its key (a miss's evaluation is
        the evaluation row's): the sampled keys once through a fresh cache, then those
        it kept read back."""
        items = self.shadow.items("cached_static_value")
        if not items:
            return math.nan
        if "cache_read" not in self._memo:
            s = K.pack([x[0] for x in items])
            keys = np.array([x[1] for x in items], dtype=np.uint64)
            pos, ctx = K.work_position(0), new_context()
            K.loop_cache_fill(pos, s, self.ev, ctx, keys, 1)
            held = keys[np.isin(keys, ctx.eval_keys)]  # two keys may share a slot
            args = (pos, self.ev, ctx, held)
            self._memo["cache_read"] = per_call(K.loop_cache_hits, args, len(held))
        return self._memo["cache_read"]

    def exchange(self) -> float:
        items = self.shadow.items("exchange_at_least")
        if not items:
            return math.nan
        moves = np.array([x[1] for x in items], dtype=np.int64)
        thresholds = np.array([x[2] for x in items], dtype=np.int64)
        return self._loaded([x[0] for x in items], K.loop_exchange, moves, thresholds)

    def tt_probe(self) -> float:
        keys = np.array(self.shadow.items("tt_probe"), dtype=np.uint64)
        return per_call(K.loop_tt_probe, (self.tt, keys), len(keys)) if len(keys) else math.nan

    def tt_checked_cutoff(self) -> float:
        items = self.shadow.items("tt_checked_cutoff")
        if not items:
            return math.nan
        keys, depths, plies, alphas, betas = (np.array(c) for c in zip(*items, strict=True))
        args = (
            self.tt,
            keys.astype(np.uint64),
            depths.astype(np.int64),
            plies.astype(np.int64),
            alphas,
            betas,
        )
        return per_call(K.loop_tt_checked_cutoff, args, len(items))

    def tt_store(self) -> float:
        items = self.shadow.items("tt_store_result")
        if not items:
            return math.nan
        keys = np.array([x[0] for x in items], dtype=np.uint64)
        ints = np.array([(x[1], x[2], x[6]) for x in items], dtype=np.int64)
        floats = np.array([x[3:6] for x in items], dtype=np.float64)
        table = TranspositionTable(*(a.copy() for a in self.tt))  # the stores change it
        return per_call(K.loop_tt_store, (table, keys, ints, floats), len(items))

    def ordering(self) -> float:
        """Scoring one node's moves and picking as many as the search picked."""
        items = self.shadow.items("score_moves")
        if not items:
            return math.nan
        lists = np.zeros((len(items), MAX_MOVES), dtype=np.int32)
        ints = np.zeros((len(items), 4), dtype=np.int64)
        for i, (_, moves, ply, tt_move, picks) in enumerate(items):
            lists[i, : len(moves)] = moves
            ints[i] = (len(moves), ply, tt_move, picks)
        s = K.pack([x[0] for x in items])
        pos, ctx = K.work_position(0), new_context()
        copy_only = per_call(K.loop_ordering, (pos, s, ctx, lists, ints, False), len(items))
        scored = per_call(K.loop_ordering, (pos, s, ctx, lists, ints, True), len(items))
        return max(0.0, scored - copy_only)

    def recursion(self) -> float:
        """One call of the tournament search kernel with its own arguments, doing
        nothing."""
        pos, ctx = K.work_position(0), new_context()
        stop = np.zeros(1, dtype=np.int64)
        args = (pos, self.ev, ctx, self.tt, EngineOptions(), stop, np.bool_(True))
        return per_call(K.loop_recursion_tournament, args, K.CHAIN + 1)

    def quiet_cutoff(self) -> float:
        items = self.shadow.items("update_quiet_cutoff")
        if not items:
            return math.nan
        args = (K.work_position(0), new_context(), np.array(items, dtype=np.int64))
        return per_call(K.loop_quiet_cutoff, args, len(items))

    def evaluation_parts(self) -> list[tuple[str, float]]:
        """The evaluation's parts over its sampled positions: feature extraction, and
        for meep its own functions (the material and piece-square pairs: a replica),
        each timed alone."""
        from treestrap.evaluation.feature_sets.meep import FEATURE_SET as MEEP

        ev = self.ev
        features = self.positional("static_value", K.loop_features, ev)
        parts = [("feature extraction as pairs (all)", features)]
        if ev.feature_set == MEEP.id:
            pressure = self.positional("static_value", K.loop_pressure)
            pawns = self.positional("static_value", K.loop_pawn_features, ev)
            king = self.positional("static_value", K.loop_king_features, ev)
            material = self.positional("static_value", K.loop_material_psqt, ev)
            parts += [
                ("  attack maps, king-zone pressure", pressure),
                ("  pawn structure", pawns),
                ("  king safety", king),
                ("  material + piece-square (replica)", material),
                (
                    "  the rest: mobility, threats, hanging",
                    features - pressure - pawns - king - material,
                ),
            ]
        return parts
