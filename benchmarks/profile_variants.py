"""In-search costs for ``profile_search.py``, by doubling: a search kernel compiled again
with one component called twice where it was called once, on the same searches.

The components doubled return the same results when called again (the move generators,
the evaluation, the check and draw tests, the table's probe, cut-off test and store,
scoring and picking moves) or are undone in between (make, unmake, make again), so the
doubled search visits the same tree: the node count is checked. Its extra CPU time is
what those calls cost inside the real search, with its real caches and branch history:
the component's in-search cost. A compiler barrier (a store to a spare slot) sits
between the two calls, so the second is not merged into the first; the second call can
find its memory already in cache, so a component that waits on memory (the table probe)
comes out low.

A kernel is compiled again from its own Python source (``py_func``) with its globals
replaced (its recursive call included), uncached; the unchanged copy compiled the same
way is the reference.
"""

from __future__ import annotations

import inspect
import math
import time
import types
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from treestrap.core.makemove import make_move, make_null_move, unmake_move, unmake_null_move
from treestrap.core.position import ST_NB
from treestrap.search.context import STATS_NB

# The barriers write to spare slots: Position.st has ST_NB = 8 slots, the last unused;
# TranspositionTable.meta[3] is unused; pick_next's context gets its seldepth slot
# (stats[3]), restored at once.
assert ST_NB == 8 and STATS_NB == 4


#: Where each kind of barrier writes: a slot of the first argument, restored after.
_BARRIERS = {"pos": "st[7]", "tt": "meta[3]", "ctx": "stats[3]"}
_TWICE = """
def twice({params}):
    component({names})
    {first}.{slot} += 1
    result = component({names})
    {first}.{slot} -= 1
    return result
"""


def _doubled(component: Any, barrier: str) -> Any:
    """``component`` called twice, a barrier between (see the module docstring); written
    out with the component's own parameters, as numba's inliner needs."""
    signature = inspect.signature(component.py_func)
    names = list(signature.parameters)
    params = ", ".join(
        name if p.default is inspect.Parameter.empty else f"{name}={p.default!r}"
        for name, p in signature.parameters.items()
    )
    namespace: dict[str, Any] = {"component": component, "inf": math.inf}
    source = _TWICE.format(
        params=params,
        names=", ".join(names),
        first=names[0],
        slot=_BARRIERS[barrier],
    )
    exec(source, namespace)
    return numba.njit(cache=False, inline="always")(namespace["twice"])


@numba.njit(cache=False, inline="always")
def _make_twice(pos: Any, move: Any) -> None:
    make_move(pos, move)
    unmake_move(pos)
    make_move(pos, move)


@numba.njit(cache=False, inline="always")
def _null_twice(pos: Any) -> None:
    make_null_move(pos)
    unmake_null_move(pos)
    make_null_move(pos)


def doubling(module: Any, names: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """For each component name: the globals that double it in ``module``'s kernel."""
    barriers = {"tt_probe": "tt", "tt_cutoff": "tt", "tt_store_result": "tt", "pick_next": "ctx"}
    found: dict[str, dict[str, Any]] = {}
    for name in names:
        if not hasattr(module, name):
            continue
        if name == "make_move":
            found[name] = {name: _make_twice}
        elif name == "make_null_move":
            found[name] = {name: _null_twice}
        else:
            found[name] = {name: _doubled(getattr(module, name), barriers.get(name, "pos"))}
    return found


def recompile(kernel: Any, replace: dict[str, Any]) -> Any:
    """``kernel`` compiled again from its source with some globals replaced; its calls
    of itself reach the new copy."""
    source = kernel.py_func
    namespace = dict(source.__globals__)
    namespace.update(replace)
    function = types.FunctionType(
        source.__code__, namespace, source.__name__, source.__defaults__, source.__closure__
    )
    compiled = numba.njit(cache=False, nogil=True, fastmath=False)(function)
    namespace[source.__name__] = compiled
    return compiled


def fastest(
    runs: dict[str, Callable[[], tuple[float, Any]]], rounds: int
) -> tuple[dict[str, float], dict[str, Any]]:
    """Each run ``rounds`` times, in turn with the others (a change of load then falls
    on all alike): its fastest CPU seconds and what it returned (the same every time)."""
    best = dict.fromkeys(runs, float("inf"))
    found: dict[str, Any] = {}
    for _ in range(rounds):
        for name, run in runs.items():
            seconds, result = run()
            best[name] = min(best[name], seconds)
            if name in found and found[name] != result:
                raise RuntimeError(f"{name}: two runs of the same searches differ")
            found[name] = result
    return best, found


def cpu_timed(work: Callable[[], Any]) -> tuple[float, Any]:
    start = time.process_time()
    result = work()
    return time.process_time() - start, result


def same_tree(reference: Any, other: Any, name: str) -> None:
    if reference != other:
        raise RuntimeError(f"doubling {name} changed the searches: {other} != {reference}")


def as_int(x: Any) -> int:
    return int(np.asarray(x).item())
