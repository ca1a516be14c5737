"""The engine API: a position, limits and a weight set in; a move and search
information out. The UCI front end (:mod:`treestrap.engine.uci`) and in-process
matches use it; it knows nothing of the protocol.

Iterative deepening with aspiration windows around :func:`treestrap.search.tournament.pvs`
(:mod:`treestrap.engine.iteration`), a persistent transposition table, and a timer thread
that raises the stop flag at the hard time limit (the compiled search releases the GIL,
so the timer and the UCI reader run while it searches).

Threads: with :attr:`Engine.threads` n > 1, n - 1 helper threads search the same root
beside the main thread and share its table (Lazy SMP, :mod:`treestrap.engine.lazy_smp`).
The main thread's search is the one reported: it decides the move, the lines and when
to stop, and the helpers stop when it is done. Nodes (reported and limited) are the
threads' sum. With one thread no helper runs and the search is exactly the plain one.

Stopping: :meth:`Engine.stop` raises a flag that the running search reads. A plain
``go`` clears the flag as it starts, so a stop left over from an earlier search never
cuts the next one short. A caller that starts ``go`` on another thread calls
:meth:`Engine.prepare` first, before it starts that thread: the flag is cleared then,
and a ``stop`` that arrives before ``go`` has begun is kept and ends that search at
once. The first iteration (depth 1, a few hundred nodes) always finishes, so a search
stopped at once still answers a searched move, not the first one generated; only a
node limit cuts it short.

MultiPV: with :attr:`Engine.multipv` k > 1, each iteration searches the root k times
(fewer where fewer moves are legal), each time leaving out the first moves of the lines
already found, so line i is the best line among the moves not in lines 1..i-1. Each
line has its own aspiration window, around that line's score of the last iteration.
The lines are reported best first (``SearchInfo.multipv``); the best move is line 1's.
An iteration stopped before its last line is discarded whole, like a plain one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from treestrap.core.move import move_to_uci
from treestrap.core.notation import legal_moves
from treestrap.core.position import (
    MAX_HISTORY,
    ST_FULLMOVE,
    ST_PLY,
    ST_SIDE,
    Position,
    copy_position,
)
from treestrap.engine.iteration import ThreadSearch, aspiration_search
from treestrap.engine.lazy_smp import HelperThreads, node_shares
from treestrap.evaluation.model import Evaluator
from treestrap.search.context import new_context, reset_context
from treestrap.search.scratch import NODES, QNODES, REVISITS, SELDEPTH, STOPPED
from treestrap.search.timeman import DEFAULT_OVERHEAD, RootStability, SearchLimits, allocate
from treestrap.search.tournament import EngineOptions
from treestrap.search.tt import new_search, new_tt
from treestrap.search.value import MATE, MATE_BOUND, MAX_PLY

#: Slots of the transposition table per MiB (one slot is about 49 bytes).
SLOTS_PER_MB = (1 << 20) // 49
#: Largest node limit passed to the compiled search (it holds the limit in an int64).
MAX_NODES = 1 << 62


@dataclass
class SearchInfo:
    """One finished iteration, as UCI ``info`` reports it."""

    depth: int
    seldepth: int
    score: float
    nodes: int
    time: float
    pv: list[str]
    #: The line's rank, 1 for the best, when several are searched (MultiPV); None for a
    #: plain search.
    multipv: int | None = None

    @property
    def nps(self) -> int:
        return int(self.nodes / self.time) if self.time > 0 else 0


@dataclass
class SearchOutcome:
    best_move: str | None  # None when the position has no legal move
    ponder: str | None
    score: float
    depth: int
    nodes: int
    time: float
    infos: list[SearchInfo] = field(default_factory=list)
    #: Of ``nodes``, those Stockfish's rule (one node per move made) would not count:
    #: roots, positions after null moves, children entered again by a re-search.
    revisits: int = 0


@dataclass
class RootLine:
    """One searched line of an iteration: its score and moves."""

    score: float
    pv: list[int]


def tt_bits_for_mb(megabytes: int) -> int:
    """Largest power-of-two table that fits in ``megabytes``."""
    slots = max(16, megabytes * SLOTS_PER_MB)
    return max(4, min(30, slots.bit_length() - 1))


class Engine:
    """Searches positions with one evaluator; keeps its table between moves."""

    def __init__(
        self,
        evaluator: Evaluator,
        hash_mb: int = 16,
        options: EngineOptions | None = None,
        overhead: float = DEFAULT_OVERHEAD,
        multipv: int = 1,
        threads: int = 1,
    ) -> None:
        if threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads}")
        self.evaluator = evaluator
        self.options = options or EngineOptions()
        self.overhead = overhead
        #: Lines searched and reported per iteration (UCI's MultiPV).
        self.multipv = multipv
        #: Search threads: the main one and ``threads - 1`` helpers (UCI's Threads).
        self.threads = threads
        self._helpers = HelperThreads()
        self.ctx = new_context()
        self.tt = new_tt(tt_bits_for_mb(hash_mb))
        self.stop_flag = np.zeros(1, dtype=np.int64)
        self._never_stop = np.zeros(1, dtype=np.int64)  # the flag depth 1 reads
        # ``prepare`` and ``go`` hand the flag over under this lock: see the module
        # docstring. ``_prepared``: the next ``go`` must keep the flag as it is.
        self._flag_lock = threading.Lock()
        self._prepared = False

    def resize(self, hash_mb: int) -> None:
        self.tt = new_tt(tt_bits_for_mb(hash_mb))

    def new_game(self) -> None:
        """Forget everything learned about earlier positions."""
        self.tt = new_tt(int(np.log2(self.tt.keys.shape[0])))

    def stop(self) -> None:
        """Ask a running search to return as soon as possible (thread safe). After
        :meth:`prepare`, this also ends the prepared search before it begins."""
        self.stop_flag[0] = 1

    def prepare(self) -> None:
        """Begin the next search now, before the thread that calls :meth:`go` runs:
        clear the stop flag, and have that ``go`` keep whatever ``stop`` asks from here
        on (it then returns after depth 1)."""
        with self._flag_lock:
            self.stop_flag[0] = 0
            self._prepared = True

    def _begin(self) -> None:
        """The stop flag at the start of ``go``: kept after ``prepare``, else cleared."""
        with self._flag_lock:
            if not self._prepared:
                self.stop_flag[0] = 0
            self._prepared = False

    def _iteration(
        self, pos: Position, opts: EngineOptions, depth: int, prev: float | None
    ) -> float:
        """The main thread's root search at ``depth`` around the last score ``prev``."""
        stop = self.stop_flag if depth > 1 else self._never_stop
        ts = ThreadSearch(self.evaluator, self.ctx, self.tt)
        return aspiration_search(ts, pos, opts, stop, depth, prev)

    def _nodes(self) -> int:
        """Nodes searched so far by every thread."""
        return int(self.ctx.stats[NODES] + self.ctx.stats[QNODES]) + self._helpers.nodes()

    def _lines(
        self, pos: Position, opts: EngineOptions, depth: int, prev: list[RootLine], count: int
    ) -> list[RootLine]:
        """The best ``count`` lines at ``depth``, best first; ``prev``: the last
        iteration's. Stopped, it returns the lines finished so far, and the first line
        even unfinished (depth 1 under a node limit keeps it)."""
        lines: list[RootLine] = []
        try:
            for i in range(count):
                skip = [line.pv[0] for line in lines]
                self.ctx.root_skip[: len(skip) + 1] = [*skip, 0]
                last = prev[i] if i < len(prev) else None
                # Under MultiPV the line's move of the last iteration is searched first
                # (the table's root move is line 1's, or another line's after sorting).
                hint = last.pv[0] if count > 1 and last and last.pv else 0
                self.ctx.root_first[0] = 0 if hint in skip else hint
                v = self._iteration(pos, opts, depth, last.score if last else None)
                if self.ctx.stats[STOPPED] and i > 0:
                    break
                n = int(self.ctx.pv_len[0])
                lines.append(RootLine(v, [int(m) for m in self.ctx.pv[0, :n]]))
                if self.ctx.stats[STOPPED] or not n:
                    break  # no move to leave out of the next line's search
        finally:
            self.ctx.root_skip[0] = 0
            self.ctx.root_first[0] = 0
        # Each line's own search scored it: a later one may come out higher.
        return sorted(lines, key=lambda line: -line.score)

    def go(
        self,
        pos: Position,
        limits: SearchLimits,
        on_info: Callable[[SearchInfo], None] | None = None,
    ) -> SearchOutcome:
        """Search ``pos`` (not modified) within ``limits``; blocks until done."""
        start = time.perf_counter()
        self._begin()  # first: a refused search must not leave the next one prepared
        if pos.st[ST_PLY] + MAX_PLY >= MAX_HISTORY:
            raise ValueError(f"game too long to search: at most {MAX_HISTORY - MAX_PLY} plies")
        root = copy_position(pos)
        moves = legal_moves(root)
        reset_context(self.ctx)
        new_search(self.tt)
        if not moves:
            return SearchOutcome(None, None, 0.0, 0, 0, 0.0)
        if limits.depth is not None and limits.depth < 1:
            raise ValueError(f"search depth must be at least 1, got {limits.depth}")
        if limits.nodes is not None and limits.nodes < 1:
            raise ValueError(f"node limit must be at least 1, got {limits.nodes}")
        limits = replace(limits, fullmove=int(root.st[ST_FULLMOVE]))
        budget = allocate(limits, root.st[ST_SIDE] == 0, self.overhead)
        stability = RootStability()
        max_depth = min(limits.depth if limits.depth else MAX_PLY - 1, MAX_PLY - 1)
        if budget.soft is not None and len(moves) == 1:
            max_depth = 1  # a forced move: answer at once
        threads = self.threads if max_depth > 1 else 1  # depth 1 is over in a moment
        # Each thread's node limit (0: none), the main thread's first.
        shares = [0] * threads
        if limits.nodes:
            shares = node_shares(min(limits.nodes, MAX_NODES), threads)
        opts = self.options._replace(max_nodes=shares[0])
        best = moves[0]
        ponder = None
        score = 0.0
        depth_done = 0
        infos: list[SearchInfo] = []
        count = max(1, min(self.multipv, len(moves)))
        lines: list[RootLine] = []
        timer = None  # started last: nothing may raise between its start and the try
        if budget.hard is not None:
            # Capped: a longer wait than TIMEOUT_MAX raises OverflowError in the timer.
            timer = threading.Timer(min(budget.hard, threading.TIMEOUT_MAX), self.stop)
            timer.daemon = True
            timer.start()
        try:
            # No helper with one thread: the call still clears the last search's counts.
            helper_opts = [self.options._replace(max_nodes=n) for n in shares[1:]]
            self._helpers.start(root, self.evaluator, self.tt, helper_opts)
            for depth in range(1, max_depth + 1):
                lines = self._lines(root, opts, depth, lines, count)
                if self.ctx.stats[STOPPED] and depth > 1:
                    break  # an unfinished iteration proves nothing: keep the last one
                pv = lines[0].pv
                if pv:
                    best = pv[0]
                    ponder = pv[1] if len(pv) > 1 else None
                v = lines[0].score
                score, depth_done = v, depth
                elapsed = time.perf_counter() - start
                for rank, line in enumerate(lines, 1):
                    info = SearchInfo(
                        depth=depth,
                        seldepth=int(self.ctx.stats[SELDEPTH]),
                        score=line.score,
                        nodes=self._nodes(),
                        time=elapsed,
                        pv=[move_to_uci(m) for m in line.pv],
                        multipv=rank if self.multipv > 1 else None,
                    )
                    infos.append(info)
                    if on_info:
                        on_info(info)
                if self.ctx.stats[STOPPED] or self.stop_flag[0]:
                    break  # the flag too: depth 1 does not read it
                scale = stability.update(best, v)
                if budget.soft is not None and time.perf_counter() - start >= budget.soft * scale:
                    break
                if abs(v) >= MATE_BOUND and depth > MATE - abs(v) + 1:
                    break  # a mate seen with room to spare: deeper finds no other result
                if limits.mate and v >= MATE_BOUND and MATE - v <= 2 * limits.mate - 1:
                    break  # "go mate N": a mate in N moves or fewer is found
        finally:
            if timer:
                timer.cancel()
                timer.join()  # a timer that fired late must not stop the next search
            self._helpers.finish()
        nodes = self._nodes()
        return SearchOutcome(
            best_move=move_to_uci(best),
            ponder=move_to_uci(ponder) if ponder else None,
            score=score,
            depth=depth_done,
            nodes=nodes,
            time=time.perf_counter() - start,
            infos=infos,
            revisits=int(self.ctx.stats[REVISITS]) + self._helpers.revisits(),
        )
