"""One thread's search of the root at one depth: a window, or an aspiration loop around
the last iteration's score.

The engine's main thread and its helper threads (:mod:`treestrap.engine.lazy_smp`)
search the same way, each with its own evaluator scratch and search context and all
with one shared transposition table (:class:`ThreadSearch`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from treestrap.core.position import Position
from treestrap.evaluation.model import Evaluator
from treestrap.search.context import SearchContext
from treestrap.search.scratch import STOPPED
from treestrap.search.tournament import EngineOptions, pvs
from treestrap.search.tt import TranspositionTable
from treestrap.search.value import INFINITE, MATE_BOUND

#: First aspiration half-width, in centipawns, from depth ASPIRATION_DEPTH on.
ASPIRATION_WINDOW = 25.0
ASPIRATION_DEPTH = 4
#: Past this half-width a failing side of the window opens to infinity.
ASPIRATION_OPEN = 400.0


class ThreadSearch(NamedTuple):
    """What one thread searches with: its own evaluator and context, the shared table."""

    evaluator: Evaluator
    ctx: SearchContext
    tt: TranspositionTable


def search_window(
    ts: ThreadSearch,
    pos: Position,
    opts: EngineOptions,
    stop: np.ndarray,
    depth: int,
    alpha: float,
    beta: float,
) -> float:
    """One search of the root ``pos`` with the window (alpha, beta)."""
    return float(pvs(pos, ts.evaluator, ts.ctx, ts.tt, opts, stop, depth, 0, alpha, beta, True))


def aspiration_search(
    ts: ThreadSearch,
    pos: Position,
    opts: EngineOptions,
    stop: np.ndarray,
    depth: int,
    prev: float | None,
) -> float:
    """One root search at ``depth``, in an aspiration window around the score ``prev``
    of the last iteration (a full window without one); a failing side of the window
    widens, doubling, until the score falls inside. Stopped, it returns at once."""
    if prev is None or depth < ASPIRATION_DEPTH or abs(prev) >= MATE_BOUND:
        return search_window(ts, pos, opts, stop, depth, -INFINITE, INFINITE)
    width = ASPIRATION_WINDOW
    alpha, beta = prev - width, prev + width
    while True:
        v = search_window(ts, pos, opts, stop, depth, alpha, beta)
        if ts.ctx.stats[STOPPED]:
            return v
        if v <= alpha:
            alpha = -INFINITE if width > ASPIRATION_OPEN else v - width
        elif v >= beta:
            beta = INFINITE if width > ASPIRATION_OPEN else v + width
        else:
            return v
        width *= 2
