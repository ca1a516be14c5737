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
replaced (its recursive call included), uncached, with the project's flags
(``treestrap.core.jit``: the reference-counting runtime as the kernels have it); the
unchanged copy compiled the same way is the reference. A component called inside an
inline helper (``static_value`` in the evaluation cache, ``lazy_estimate`` in the
stand pat) is doubled there: the helpers on the way are compiled again too, each with
its own module's globals.
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

from treestrap.core.jit import JIT_FLAGS
from treestrap.core.makemove import make_move, make_null_move, unmake_move, unmake_null_move
from treestrap.core.position import ST_NB
from treestrap.search.scratch import STATS_NB
from treestrap.search.tt import STORES

# The barriers write to spare slots, restored at once: Position.st has ST_NB = 8 slots,
# the last unused; the table's store counter (meta[STORES], a statistic no search
# reads); pick_next's context gets its seldepth slot (stats[3]).
assert ST_NB == 8 and STATS_NB > 3


#: The kernels' own flags, uncached: a copy compiled otherwise (numba's runtime on where
#: the project turns it off) would not time what the search runs.
FLAGS = {**JIT_FLAGS, "cache": False}

#: Where each kind of barrier writes: a slot of the first argument, restored after.
_BARRIERS = {"pos": "st[7]", "tt": f"meta[{STORES}]", "ctx": "stats[3]"}
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
    return numba.njit(**FLAGS, inline="always")(namespace["twice"])


@numba.njit(**FLAGS, inline="always")
def _make_twice(pos: Any, move: Any) -> None:
    make_move(pos, move)
    unmake_move(pos)
    make_move(pos, move)


@numba.njit(**FLAGS, inline="always")
def _null_twice(pos: Any) -> None:
    make_null_move(pos)
    unmake_null_move(pos)
    make_null_move(pos)


def doubling(
    module: Any, names: tuple[str, ...], helpers: tuple[str, ...] = ()
) -> dict[str, dict[str, Any]]:
    """For each component name: the globals that double it in ``module``'s kernel,
    there and inside the inline ``helpers`` it calls (innermost first)."""
    barriers = {
        "tt_probe": "tt",
        "tt_checked_cutoff": "tt",
        "tt_store_result": "tt",
        "pick_next": "ctx",
    }
    found: dict[str, dict[str, Any]] = {}
    for name in names:
        if not hasattr(module, name):
            continue
        if name == "make_move":
            replace = {name: _make_twice}
        elif name == "make_null_move":
            replace = {name: _null_twice}
        else:
            replace = {name: _doubled(getattr(module, name), barriers.get(name, "pos"))}
        found[name] = _through(module, helpers, replace)
    return found


def _through(module: Any, helpers: tuple[str, ...], replace: dict[str, Any]) -> dict[str, Any]:
    """``replace`` and a copy of each helper that calls a replaced name (or a helper
    copied before it), compiled with those names replaced."""
    found = dict(replace)
    for name in helpers:
        if name in found or not hasattr(module, name):
            continue
        helper = getattr(module, name)
        if set(helper.py_func.__code__.co_names) & set(found):
            found[name] = inline_copy(helper, found)
    return found


def _rebuilt(source: Any, replace: dict[str, Any]) -> types.FunctionType:
    """``source`` (a Python function) over a copy of its globals, some replaced."""
    namespace = dict(source.__globals__)
    namespace.update(replace)
    return types.FunctionType(
        source.__code__, namespace, source.__name__, source.__defaults__, source.__closure__
    )


def inline_copy(helper: Any, replace: dict[str, Any]) -> Any:
    """An inline helper compiled again from its source with some globals replaced (a
    copy numba inlines with its own globals, not its caller's)."""
    return numba.njit(**FLAGS, inline="always")(_rebuilt(helper.py_func, replace))


def recompile(kernel: Any, replace: dict[str, Any]) -> Any:
    """``kernel`` compiled again from its source with some globals replaced; its calls
    of itself reach the new copy."""
    function = _rebuilt(kernel.py_func, replace)
    compiled = numba.njit(**FLAGS)(function)
    function.__globals__[function.__name__] = compiled
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
