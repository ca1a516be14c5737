"""The counting run of ``profile_search.py``: a real tournament search, its recursive
kernel run as Python, so that every call it makes to a compiled component is counted
and sampled.

A numba kernel keeps its Python source as ``py_func``. Running ``pvs.py_func`` instead
of the compiled kernel executes the same statements, but each name it calls
(``make_move``, ``generate_moves``, ``tt_probe``, ...) is looked up in its module's
globals at call time, where :class:`Shadow` puts a wrapper that counts the call, by the
kind of node it is made at, and keeps a sample of its arguments before handing the call
to the compiled component. The recursive call itself resolves to the Python version
again. The search does exactly what the compiled one does: ``profile_search.py`` checks
that both count the same nodes.

Some helpers the kernels call hold components of their own: the evaluation cache
(``cached_static_value``, which calls ``static_value`` on a miss) and the tournament
search's stand pat (``_stand_pat``: the model's ``lazy_estimate``, then the cache's
``cached_value_after_estimate``, which calls ``evaluate_after_estimate`` on a miss).
They run as Python too (:data:`AS_PYTHON`), and a ``py_func`` looks its names up in
its own module's globals, so ``static_value`` is wrapped in the context module as well:
the evaluations counted are the cache's misses, the positions really evaluated.

Samples are thinned evenly over the run (every call until twice ``cap``, then every
second, every fourth, ...), so they come from the whole search, not its start.
"""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np

from treestrap.core.position import ST_PLY

#: Keys kept before a position for the repetition test (more than the fifty-move rule's
#: horizon, so every test sees the history it would in the search).
REPETITION_WINDOW = 104

#: The compiled components each module's search calls, wrapped in a shadow run.
SEARCH_CALLS = (
    "generate_moves",
    "generate_captures",
    "make_move",
    "unmake_move",
    "make_null_move",
    "unmake_null_move",
    "static_value",
    "evaluate_after_estimate",
    "cached_static_value",
    "cached_value_after_estimate",
    "_stand_pat",
    "lazy_estimate",
    "exchange_at_least",
    "in_check",
    "is_repetition",
    "is_insufficient_material",
    "tt_probe",
    "tt_checked_cutoff",
    "tt_store_result",
    "score_moves",
    "pick_next",
    "update_quiet_cutoff",
    "update_pv",
)
#: Components whose samples are their first argument, the position, alone.
POSITION_ONLY = {
    "generate_moves",
    "generate_captures",
    "static_value",
    "evaluate_after_estimate",
    "lazy_estimate",
    "in_check",
    "is_insufficient_material",
    "make_null_move",
    "is_quiet",
}
#: Compiled helpers run as their Python source (counted like a component): the calls
#: they make are then wrapped too. Innermost first (the order a rebuild follows).
AS_PYTHON = ("cached_static_value", "cached_value_after_estimate", "_stand_pat")
#: module -> (its recursive kernels, run as Python; the calls wrapped)
SHADOWED: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "treestrap.search.tournament": (("pvs",), SEARCH_CALLS),
    # where ``cached_static_value``'s Python source finds ``static_value``
    "treestrap.search.context": ((), ("static_value", "evaluate_after_estimate")),
}
#: Modules that call a shadowed kernel from Python under their own name for it.
CALLERS = {"treestrap.engine.iteration": ("pvs", "treestrap.search.tournament")}


class Sampler:
    """Keeps an evenly thinned sample of the calls offered to it."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.items: list[Any] = []
        self.stride = 1
        self.seen = 0

    def wants(self) -> bool:
        keep = self.seen % self.stride == 0
        self.seen += 1
        return keep

    def add(self, item: Any) -> None:
        self.items.append(item)
        if len(self.items) >= 2 * self.cap:
            self.items = self.items[::2]
            self.stride *= 2


def snapshot(pos: Any, window: int = 0) -> tuple[np.ndarray, ...]:
    """A position's board and state, with the ``window`` keys before the current one
    (zeros where the history is shorter)."""
    ply = int(pos.st[ST_PLY])
    keys = np.zeros(window + 1, dtype=np.uint64)
    rep = np.zeros(window + 1, dtype=np.uint64)
    first = max(0, ply - window)
    keys[window - (ply - first) :] = pos.keys[first : ply + 1]
    rep[window - (ply - first) :] = pos.rep_keys[first : ply + 1]
    return pos.bb.copy(), pos.board.copy(), pos.st.copy(), keys, rep


def _current_key(pos: Any) -> np.uint64:
    """``current_key`` for Python callers: a NumPy uint64, which compiled callees take
    as it is (the compiled one returns a Python int that overflows int64)."""
    return pos.keys[pos.st[ST_PLY]]


class Shadow:
    """Counts and samples the component calls of the searches run inside ``with``.

    ``counts[(name, kind)]``: calls of component ``name`` made at nodes of ``kind``
    (``main`` or ``quiescence``); ``samples[name]``: what the timing loops
    need to repeat a sample of those calls."""

    def __init__(self, cap: int = 2000) -> None:
        self.cap = cap
        self.counts: Counter[tuple[str, str]] = Counter()
        self.samples: dict[str, Sampler] = {}
        self._kinds: list[str] = ["main"]
        #: the ordering record open at each ply (its pick count grows)
        self._open: dict[int, list[Any]] = {}
        self._saved: list[tuple[Any, str, Any]] = []

    # --- installing -----------------------------------------------------------------

    def __enter__(self) -> Shadow:
        for name, (kernels, calls) in SHADOWED.items():
            module = importlib.import_module(name)
            for kernel in kernels:
                self._patch(module, kernel, self._driver(kernel, getattr(module, kernel)))
            for call in calls:
                if hasattr(module, call):
                    component = getattr(module, call)
                    if call in AS_PYTHON:
                        component = component.py_func
                    self._patch(module, call, self._wrap(call, component))
            if hasattr(module, "current_key"):
                self._patch(module, "current_key", _current_key)
        for name, (attribute, source) in CALLERS.items():
            module = importlib.import_module(name)
            self._patch(module, attribute, getattr(importlib.import_module(source), attribute))
        return self

    def __exit__(self, *exc: object) -> None:
        for module, attribute, original in reversed(self._saved):
            setattr(module, attribute, original)
        self._saved.clear()

    def _patch(self, module: Any, attribute: str, value: Any) -> None:
        self._saved.append((module, attribute, getattr(module, attribute)))
        setattr(module, attribute, value)

    # --- the recursive kernels, as Python ---------------------------------------------

    def _driver(self, name: str, kernel: Any) -> Callable[..., Any]:
        python = kernel.py_func
        depth_arg = 6  # where ``depth`` is in ``pvs``'s arguments

        def search_node(*args: Any) -> Any:
            kind = "main" if args[depth_arg] > 0 else "quiescence"
            self.counts[(name, kind)] += 1
            self._kinds.append(kind)
            try:
                return python(*args)
            finally:
                self._kinds.pop()

        return search_node

    # --- the components ---------------------------------------------------------------

    def _wrap(self, name: str, component: Any) -> Callable[..., Any]:
        sample = getattr(self, "_sample_" + name, None)
        if name in POSITION_ONLY:
            sample = self._sample_position

        def call(*args: Any) -> Any:
            self.counts[(name, self._kinds[-1])] += 1
            if name == "pick_next":
                record = self._open.get(int(args[1]))
                if record is not None:
                    record[-1] += 1
            elif sample is not None:
                sampler = self.samples.setdefault(name, Sampler(self.cap))
                keep = sampler.wants()
                if keep:
                    sampler.add(sample(*args))
                if name == "score_moves" and not keep:
                    self._open[int(args[2])] = None  # this node's picks go unrecorded
            return component(*args)

        return call

    # What each sampled call keeps (taken before the call: it may change the position).

    def _sample_position(self, pos: Any, *rest: Any) -> Any:
        return snapshot(pos)

    def _sample_is_repetition(self, pos: Any) -> Any:
        return snapshot(pos, REPETITION_WINDOW)

    def _sample_make_move(self, pos: Any, move: Any) -> Any:
        return snapshot(pos), int(move)

    def _sample_cached_static_value(self, pos: Any, ev: Any, ctx: Any, key: Any) -> Any:
        return snapshot(pos), int(key)

    def _sample_cached_value_after_estimate(
        self, pos: Any, ev: Any, ctx: Any, key: Any, reused: Any
    ) -> Any:
        return snapshot(pos), int(key)

    def _sample_exchange_at_least(self, pos: Any, move: Any, threshold: Any) -> Any:
        return snapshot(pos), int(move), int(threshold)

    def _sample_tt_probe(self, tt: Any, key: Any) -> Any:
        return int(key)

    def _sample_tt_checked_cutoff(
        self, tt: Any, key: Any, depth: int, ply: int, alpha: float, beta: float
    ) -> Any:
        return int(key), int(depth), int(ply), float(alpha), float(beta)

    def _sample_tt_store_result(self, tt: Any, key: Any, *rest: Any) -> Any:
        depth, ply, best, alpha, beta, move = rest
        return int(key), int(depth), int(ply), float(best), float(alpha), float(beta), int(move)

    def _sample_score_moves(self, pos: Any, ctx: Any, ply: int, n: int, tt_move: int) -> Any:
        record = [snapshot(pos), ctx.moves[ply, :n].copy(), int(ply), int(tt_move), 0]
        self._open[int(ply)] = record
        return record

    def _sample_update_quiet_cutoff(self, pos: Any, ctx: Any, ply: int, m: int, *rest: Any) -> Any:
        depth, killers, history = rest
        return int(pos.st[0]), int(ply), int(m), int(depth), bool(killers), bool(history)

    # --- results ----------------------------------------------------------------------

    def calls(self, name: str, kind: str | None = None) -> int:
        """Calls of ``name`` at nodes of ``kind`` (all kinds when None)."""
        return sum(c for (n, k), c in self.counts.items() if n == name and kind in (None, k))

    def items(self, name: str) -> list[Any]:
        sampler = self.samples.get(name)
        return sampler.items if sampler else []
