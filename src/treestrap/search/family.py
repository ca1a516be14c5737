"""One compiled search family for every game: a search written once, as a plain
function, and compiled per game from that game's kernels.

A family function (the training alpha-beta of :mod:`treestrap.search.alphabeta`, the
table walk of :mod:`treestrap.search.walk`, the full-tree minimax of
:mod:`treestrap.search.full_tree`) calls what depends on the game as
``game.name(...)``: ``game`` is a module of that game's compiled kernels and constants
(:mod:`treestrap.search.chess_kernels`, :mod:`treestrap.connect4.search_kernels`; the
family modules list what each needs). :func:`instantiate` copies the function with
``game`` bound to one such module in the copy's globals, and compiles the copy; its
calls of itself reach the copy. numba resolves ``game.name`` when it compiles, so a
game's kernels are called (and inlined) as directly as in a search written for it.

Why a copy with other globals, and not the kernels passed as arguments or a closure
over them: numba caches a kernel by its source file, line, name and argument types,
plus a hash of its bytecode and of its closure's contents, never of its globals. A
dispatcher in a closure (or an argument typed as a compiled function) hashes a
per-process id, so such a search would be compiled afresh in every process; a copy
that differs only in its globals is loaded from the cache like any kernel (the test
suite checks it in fresh processes). Globals being no part of the key, each copy gets a
name of its own (``alphabeta__treestrap_search_chess_kernels``), hence a cache index of
its own: two games' copies called with the same argument types could otherwise load
each other's code. The recursion rules of :mod:`treestrap.core.jit` hold for the
copies as for any kernel: each is self-recursive only and called from Python.

A family function may leave out a branch for some games: numba drops ``if arg is
None`` at compile time when ``arg`` is None, so a game that passes None there need not
supply the kernels of the other branch (the walk's quiescence values).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from treestrap.core.jit import njit

#: The compiled copies made so far, by (family function, game module).
_COMPILED: dict[tuple[Callable[..., Any], types.ModuleType], Any] = {}


def instantiate(function: Callable[..., Any], game: types.ModuleType, **flags: Any) -> Any:
    """``function`` compiled for ``game`` (the same dispatcher on every call); ``flags``
    for numba beside the project's (``inline="always"`` for a small kernel)."""
    known = _COMPILED.get((function, game))
    if known is not None:
        return known
    namespace = dict(function.__globals__)
    namespace["game"] = game
    copy = types.FunctionType(
        function.__code__, namespace, function.__name__, function.__defaults__
    )
    copy.__qualname__ = f"{function.__qualname__}__{game.__name__.replace('.', '_')}"
    copy.__doc__ = function.__doc__
    compiled = njit(**flags)(copy) if flags else njit(copy)
    namespace[function.__name__] = compiled  # its calls of itself reach the copy
    _COMPILED[(function, game)] = compiled
    return compiled
