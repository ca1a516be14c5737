"""The training runs of ``profile_search.py``: ``treestrap train`` in this process, each
learner search timed by phase, or counted (its first searches kept for doubling).

Phases, as CPU time of each learner move: the alpha-beta kernel, clearing its table and
context, the table walk (with its quiescence searches), the rest of ``Learner.search``
(Python: the root's gradient, the step's record), the update (``observe``: the TreeStrap
deltas and the optimizer step) and the rest of the game loop (from the games' CPU
seconds in ``metrics.jsonl``). Each phase is a Python call, timed by a wrapper.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from profile_variants import cpu_timed

from treestrap.core.position import copy_position

PRESET = "strong"


class Enough(Exception):
    """Ends a counting run after its searches."""


@dataclass
class Search:
    """One learner search: its nodes, and its CPU seconds by phase."""

    nodes: int = 0
    walked: int = 0
    alphabeta: float = 0.0
    clear: float = 0.0
    walk: float = 0.0
    update: float = 0.0
    learner: float = 0.0  # the whole Learner.search call


@dataclass
class Root:
    """A learner search to repeat: the position and the weights it was searched with."""

    pos: Any
    weights: np.ndarray


class Phases:
    """Inside ``with``: times every learner search by phase (``timed``), or records its
    nodes and root and ends the run after ``limit`` searches."""

    def __init__(self, timed: bool, limit: int = 0) -> None:
        self.timed, self.limit = timed, limit
        self.searches: list[Search] = []
        self.roots: list[Root] = []
        self.learner: Any = None
        self.game_cpu = 0.0  # CPU seconds of the games, from metrics.jsonl
        self._saved: list[tuple[Any, str, Any]] = []

    def _patch(self, owner: Any, name: str, wrap: Callable[[Any], Any]) -> None:
        original = getattr(owner, name)
        self._saved.append((owner, name, original))
        setattr(owner, name, wrap(original))

    def _timer(self, phase: str) -> Callable[[Any], Any]:
        def wrap(original: Any) -> Any:
            def timed(*args: Any) -> Any:
                start = time.process_time()
                try:
                    return original(*args)
                finally:
                    record = self.searches[-1]
                    setattr(record, phase, getattr(record, phase) + time.process_time() - start)

            return timed

        return wrap

    def __enter__(self) -> Phases:
        import treestrap.games.chess_game as chess_game
        import treestrap.search.training as training
        from treestrap.learn.treestrap import TreeStrapAlphaBeta
        from treestrap.search.training import TrainingSearch
        from treestrap.training.learner import Learner

        def learner_search(original: Any) -> Any:
            timed = self._timer("learner")(original)

            def search(learner: Any, pos: Any, budget: Any) -> Any:
                if self.limit and len(self.searches) >= self.limit:
                    raise Enough
                self.learner = learner
                self.searches.append(Search())
                if not self.timed:
                    self.roots.append(Root(copy_position(pos), learner.ev.weights.copy()))
                return timed(learner, pos, budget)

            return search

        def counted_search(original: Any) -> Any:
            def search(*args: Any) -> Any:
                result = original(*args)
                self.searches[-1].nodes += result.nodes + result.qnodes
                return result

            return search

        def walk(original: Any) -> Any:
            timed = self._timer("walk")(original)

            def walk_tt(*args: Any) -> Any:
                walked = timed(*args)
                self.searches[-1].walked += walked
                return walked

            return walk_tt

        self._patch(Learner, "search", learner_search)
        self._patch(TrainingSearch, "search", counted_search)
        self._patch(chess_game, "walk_tt", walk)  # where the chess learner's search finds it
        if self.timed:
            self._patch(training, "alphabeta", self._timer("alphabeta"))
            self._patch(training, "clear_tt", self._timer("clear"))
            self._patch(training, "reset_context", self._timer("clear"))
            self._patch(TreeStrapAlphaBeta, "observe", self._timer("update"))
        return self

    def __exit__(self, *exc: object) -> None:
        for owner, name, original in reversed(self._saved):
            setattr(owner, name, original)
        self._saved.clear()


def config(games: int, seed: int) -> Any:
    """``treestrap train --preset strong --games G --seed S``'s configuration."""
    from treestrap.training.config import TrainConfig, apply_preset

    return dataclasses.replace(apply_preset(TrainConfig(), PRESET), games=games, seed=seed)


def run(cfg: Any, phases: Phases) -> None:
    """Train ``cfg`` in a temporary directory under ``phases``, which keeps the games'
    CPU seconds (from ``metrics.jsonl``) unless it ended the run early."""
    from treestrap.training.run import train

    with tempfile.TemporaryDirectory(prefix="treestrap-profile-") as tmp, phases:
        try:
            train(cfg, Path(tmp) / "run")
        except Enough:
            return
        lines = (Path(tmp) / "run" / "metrics.jsonl").read_text(encoding="utf-8").splitlines()
        phases.game_cpu = sum(json.loads(x)["cpu_seconds"] for x in lines if x.strip())


def phase_table(timed: Phases) -> dict[str, float]:
    """CPU seconds of every learner search's phases, summed over the timed run."""
    runs = timed.searches
    phase = {
        "alpha-beta search (compiled kernel)": sum(s.alphabeta for s in runs),
        "clearing its table and context": sum(s.clear for s in runs),
        "table walk, its quiescence searches": sum(s.walk for s in runs),
    }
    phase["rest of Learner.search (Python)"] = sum(s.learner for s in runs) - sum(phase.values())
    phase["update (TreeStrap deltas, optimizer)"] = sum(s.update for s in runs)
    phase["rest of the game loop"] = timed.game_cpu - sum(phase.values())
    return phase


# --- repeating the counted searches with doubled kernels --------------------------------


class Repeat:
    """The counted run's searches again, with any alpha-beta or walk kernel; each run
    returns (CPU seconds of the part timed, what identifies the searches' trees)."""

    def __init__(self, counted: Phases, cfg: Any) -> None:
        from treestrap.games.learning_sources import WALK_TREE_NODES
        from treestrap.search.context import new_context
        from treestrap.search.training import TrainingOptions
        from treestrap.search.tree import new_tree
        from treestrap.search.tt import new_tt

        self.roots = counted.roots
        self.ev = counted.learner.ev
        self.depth, self.min_depth = cfg.depth, cfg.min_depth
        self.opts = TrainingOptions()
        self.ctx = new_context()
        # The walk's quiescence searches read the search's evaluation cache, as in
        # walk_tt: the values it holds are read back, not evaluated again.
        self.qctx = new_context()._replace(
            eval_keys=self.ctx.eval_keys, eval_values=self.ctx.eval_values
        )
        self.tt = new_tt(cfg.tt_bits)
        self.tree = new_tree(WALK_TREE_NODES)

    def _search(self, root: Root, kernel: Any) -> tuple[float, int]:
        from treestrap.search.context import reset_context
        from treestrap.search.scratch import NODES, QNODES
        from treestrap.search.tt import clear_tt
        from treestrap.search.value import INFINITE

        ev = self.ev._replace(weights=root.weights)
        pos = copy_position(root.pos)
        reset_context(self.ctx)
        clear_tt(self.tt)
        seconds, _ = cpu_timed(
            lambda: kernel(
                pos, ev, self.ctx, self.tt, self.opts, self.depth, 0, -INFINITE, INFINITE
            )
        )
        return seconds, int(self.ctx.stats[NODES] + self.ctx.stats[QNODES])

    def searches(self, kernel: Any) -> tuple[float, tuple[int, ...]]:
        """Every search with alpha-beta ``kernel``: its seconds, the nodes of each."""
        done = [self._search(root, kernel) for root in self.roots]
        return sum(s for s, _ in done), tuple(n for _, n in done)

    def walks(
        self, walk: Any, alphabeta: Any, quiescence_values: bool = True
    ) -> tuple[float, tuple[Any, ...]]:
        """Every search (untimed) then its walk with ``walk`` (timed): the walks'
        seconds, and each walk's node count and summed values (only the count without
        ``quiescence_values``: the walk then records static values)."""
        from treestrap.search.tree import reset_tree

        seconds, found = 0.0, []
        for root in self.roots:
            self._search(root, alphabeta)
            ev = self.ev._replace(weights=root.weights)
            pos = copy_position(root.pos)
            reset_tree(self.tree)
            self.tt.meta[1] += 1
            stamp = int(self.tt.meta[1])
            args = (pos, ev, self.tt, self.tree, self.ctx, 0, -1, 0, self.min_depth, stamp)
            q = quiescence_values
            spent, _ = cpu_timed(lambda a=args: walk(*a, quiescence_values, self.qctx, False))
            seconds += spent
            n = int(self.tree.meta[0])
            found.append((n, round(float(self.tree.static[:n].sum()), 6) if q else None))
        return seconds, tuple(found)
