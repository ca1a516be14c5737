"""Helper threads of a search (Lazy SMP): more threads search the same root and share the
transposition table, so the main thread finds much of its tree scored already.

Each helper runs the main thread's iterative deepening with aspiration windows
(:mod:`treestrap.engine.iteration`) on its own copy of the root, with its own search
context and its own copy of the evaluator (a network keeps its accumulators in it).
The compiled search releases the GIL, so the threads run on as many cores. Only the
table is shared; its entries are checked whole on every read, so a slot that two
threads write at once reads as empty (:mod:`treestrap.search.tt`).

The helpers differ from the main thread, and from each other, by the depths they leave
out: helper ``h`` skips the depths of every other block of a few (:func:`skips_depth`),
so at any moment some helpers search a ply deeper than the main thread and fill the
table ahead of it. A helper does not end at the main thread's depth limit (``go depth
N``): it searches on, deeper, until the main thread stops it, so that its core keeps
filling the table. Their results are never reported: the main thread alone decides the
move, the timing and the lines, and stops the helpers when it is done. A node limit is
shared out: each thread stops at its share, so the threads together stay within it.
"""

from __future__ import annotations

import threading

import numpy as np

from treestrap.core.position import Position, copy_position
from treestrap.engine.iteration import ThreadSearch, aspiration_search
from treestrap.evaluation.model import Evaluator, thread_copy
from treestrap.search.context import SearchContext, new_context, reset_context
from treestrap.search.scratch import NODES, QNODES, REVISITS, STOPPED
from treestrap.search.tournament import EngineOptions
from treestrap.search.tt import TranspositionTable
from treestrap.search.value import MAX_PLY

#: The skip patterns repeat after this many helpers (blocks of one to four depths, each
#: at every phase).
SKIP_CYCLE = 20


#: The most search threads an engine takes, as its peers offer (Stockfish: 1024). More
#: threads than cores are allowed: they take turns, and a GUI that sends its own count
#: (``Threads 4`` on two cores) gets it rather than an error.
MAX_THREADS = 1024


def max_threads() -> int:
    """The most search threads an engine takes (:data:`MAX_THREADS`), whatever the
    cores."""
    return MAX_THREADS


def skip_pattern(helper: int) -> tuple[int, int]:
    """Helper ``helper``'s (block size, phase), for helpers 1, 2, ...: helpers 1-2 take
    blocks of one depth at phases 0-1, helpers 3-6 blocks of two at phases 0-3, helpers
    7-12 blocks of three, and so on."""
    i = (helper - 1) % SKIP_CYCLE
    size = 1
    while i >= 2 * size:
        i -= 2 * size
        size += 1
    return size, i


def skips_depth(helper: int, depth: int) -> bool:
    """Whether helper ``helper`` leaves out ``depth``: every other block of ``size``
    depths, shifted by its phase (helper 1 searches the even depths only)."""
    size, phase = skip_pattern(helper)
    return ((depth + phase) // size) % 2 == 1


def node_shares(nodes: int, threads: int) -> list[int]:
    """A node limit shared out over ``threads`` threads, the main thread's first (it gets
    the remainder); fewer shares than threads when the limit is smaller than that."""
    threads = max(1, min(threads, nodes))
    share = nodes // threads
    return [nodes - share * (threads - 1)] + [share] * (threads - 1)


class HelperThreads:
    """The helper threads of one engine: started for a search, stopped when it ends. The
    search contexts are kept between searches (they are large); everything else is made
    anew for each search."""

    def __init__(self) -> None:
        #: The helpers poll this flag; :meth:`finish` raises it.
        self.stop_flag = np.zeros(1, dtype=np.int64)
        self._contexts: list[SearchContext] = []
        self._threads: list[threading.Thread] = []
        self._active = 0  # helpers of the current (or last) search
        #: The deepest iteration each helper of the current (or last) search completed.
        self.depths: list[int] = []
        self._errors: list[BaseException] = []

    def start(
        self,
        root: Position,
        evaluator: Evaluator,
        tt: TranspositionTable,
        opts: list[EngineOptions],
    ) -> None:
        """Start one helper per entry of ``opts`` (each with its own node limit) on
        ``root`` (not modified), deepening until :meth:`finish` stops it."""
        self.stop_flag[0] = 0
        self._errors = []
        while len(self._contexts) < len(opts):
            self._contexts.append(new_context())
        self._active = len(opts)
        self.depths = [0] * len(opts)
        for helper, helper_opts in enumerate(opts, 1):
            ctx = self._contexts[helper - 1]
            reset_context(ctx)
            ts = ThreadSearch(thread_copy(evaluator), ctx, tt)
            thread = threading.Thread(
                target=self._run,
                args=(helper, ts, copy_position(root), helper_opts),
                name=f"search-helper-{helper}",
                daemon=True,
            )
            self._threads.append(thread)
            thread.start()

    def _run(self, helper: int, ts: ThreadSearch, pos: Position, opts: EngineOptions) -> None:
        try:
            prev: float | None = None
            for depth in range(1, MAX_PLY):
                if self.stop_flag[0]:
                    return
                if skips_depth(helper, depth):
                    continue
                v = aspiration_search(ts, pos, opts, self.stop_flag, depth, prev)
                if ts.ctx.stats[STOPPED]:
                    return
                prev = v
                self.depths[helper - 1] = depth
        except BaseException as exc:  # handed to the main thread by finish()
            self._errors.append(exc)

    def running(self) -> int:
        """Helpers still searching."""
        return sum(thread.is_alive() for thread in self._threads)

    def finish(self) -> None:
        """Stop the helpers and wait for them (each returns within about a thousand
        nodes); re-raises the first error a helper met."""
        self.stop_flag[0] = 1
        for thread in self._threads:
            thread.join()
        self._threads = []
        if self._errors:
            raise self._errors[0]

    def nodes(self) -> int:
        """Nodes the helpers have searched in the current (or last) search."""
        return sum(int(c.stats[NODES] + c.stats[QNODES]) for c in self._contexts[: self._active])

    def revisits(self) -> int:
        """Of :meth:`nodes`, those Stockfish's rule would not count."""
        return sum(int(c.stats[REVISITS]) for c in self._contexts[: self._active])
