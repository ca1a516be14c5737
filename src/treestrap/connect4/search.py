"""The Connect Four alpha-beta used while learning (as chess's ``search/training.py``).

Fail-soft negamax alpha-beta with a two-bound transposition table
(:mod:`treestrap.connect4.table`) and the threat-aware move order of
:func:`treestrap.connect4.board.order_moves`, the table's move first. Connect Four has
no captures, so there is no quiescence search: a leaf's value is its static value,
clipped to the heuristic range (:mod:`treestrap.connect4.value`). A finished game scores
as a loss for the side to move (``-(9999 - ply)``) or a draw.

Contract of :func:`_alphabeta`: ``v <= alpha`` means the depth-``depth`` value is at most
``v``, ``v >= beta`` at least ``v``, otherwise ``v`` is exact. Only a stored result of
exactly this depth may cut a node off, so every stored bound is a bound on the
depth-``d`` value itself, which TreeStrap(alpha-beta) learns from
(:mod:`treestrap.connect4.walk` reads them back). Finished games are stored too (exact),
so the walk reaches them and flags them.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from treestrap.connect4.bits import WIDTH
from treestrap.connect4.board import (
    LOSS,
    NOT_TERMINAL,
    ST_PLY,
    Position,
    make_move,
    order_moves,
    position_key,
    terminal_value,
    unmake_move,
)
from treestrap.connect4.evaluator import Connect4Evaluator, evaluate
from treestrap.connect4.table import (
    NO_MOVE,
    Connect4Table,
    clear_table,
    cutoff,
    new_table,
    probe,
    store,
    store_result,
)
from treestrap.connect4.value import INFINITE, MAX_PLY, clip_value, loss_in, value_to_node
from treestrap.core.jit import njit

# Slots of ``SearchContext.stats``.
NODES = 0
STOPPED = 1
SELDEPTH = 2


class SearchContext(NamedTuple):
    moves: np.ndarray  # int64[MAX_PLY + 1, WIDTH] move lists by ply
    pv: np.ndarray  # int32[MAX_PLY + 1, MAX_PLY + 1] triangular PV table
    pv_len: np.ndarray  # int32[MAX_PLY + 1]
    stats: np.ndarray  # int64[3]: NODES, STOPPED, SELDEPTH


def new_context() -> SearchContext:
    return SearchContext(
        moves=np.zeros((MAX_PLY + 1, WIDTH), dtype=np.int64),
        pv=np.zeros((MAX_PLY + 1, MAX_PLY + 1), dtype=np.int32),
        pv_len=np.zeros(MAX_PLY + 1, dtype=np.int32),
        stats=np.zeros(3, dtype=np.int64),
    )


def reset_context(ctx: SearchContext) -> None:
    ctx.pv_len[:] = 0
    ctx.stats[:] = 0


@njit(inline="always")
def count_node(ctx: SearchContext, ply: int) -> None:
    ctx.stats[NODES] += 1
    if ply > ctx.stats[SELDEPTH]:
        ctx.stats[SELDEPTH] = ply


@njit(inline="always")
def update_pv(ctx: SearchContext, ply: int, move: int) -> None:
    """The PV at ``ply`` becomes ``move`` followed by the child's PV."""
    ctx.pv[ply, 0] = move
    child_len = ctx.pv_len[ply + 1] if ply + 1 <= MAX_PLY else 0
    for j in range(child_len):
        ctx.pv[ply, j + 1] = ctx.pv[ply + 1, j]
    ctx.pv_len[ply] = child_len + 1


@njit(inline="always")
def end_value(pos: Position, ply: int) -> tuple[bool, float]:
    """Whether the game is over, and its value for the side to move at ``ply``."""
    t = terminal_value(pos)
    if t == NOT_TERMINAL:
        return False, 0.0
    return True, loss_in(ply) if t == LOSS else 0.0


class SearchOptions(NamedTuple):
    use_tt: bool = True
    #: False searches every child with a full window and never cuts off: every node
    #: then gets its exact minimax value (the tests check the walk with it).
    prune: bool = True
    #: Stop once this many nodes are searched; 0 = no limit.
    max_nodes: int = 0


@njit
def _alphabeta(
    pos: Position,
    ev: Connect4Evaluator,
    ctx: SearchContext,
    tt: Connect4Table,
    opts: SearchOptions,
    depth: int,
    ply: int,
    alpha: float,
    beta: float,
) -> float:
    """Fail-soft negamax alpha-beta to ``depth`` plies (module docstring). One
    self-recursive function called from Python only (see :mod:`treestrap.core.jit`)."""
    ctx.pv_len[ply] = 0
    if ctx.stats[STOPPED]:
        return 0.0
    if opts.max_nodes > 0 and ctx.stats[NODES] >= opts.max_nodes:
        ctx.stats[STOPPED] = 1
        return 0.0
    count_node(ctx, ply)
    key = position_key(pos)
    over, v = end_value(pos, ply)
    if over:
        if opts.use_tt and depth > 0:
            store(tt, key, depth, value_to_node(v, ply), value_to_node(v, ply), NO_MOVE)
        return v
    if depth <= 0:
        return clip_value(evaluate(pos, ev))

    tt_move = NO_MOVE
    if opts.use_tt:
        slot = probe(tt, key)
        if slot >= 0:
            tt_move = tt.move[slot]
            if ply > 0 and tt.depth[slot] == depth:
                cut, bound = cutoff(tt, slot, ply, alpha, beta)
                if cut:
                    return bound
    moves = ctx.moves[ply]
    n = order_moves(pos, moves)
    if tt_move != NO_MOVE:  # the table's move first, the rest in their order
        for i in range(1, n):
            if moves[i] == tt_move:
                for j in range(i, 0, -1):
                    moves[j] = moves[j - 1]
                moves[0] = tt_move
                break

    alpha_orig = alpha
    best = -INFINITE
    best_move = NO_MOVE
    for i in range(n):
        m = moves[i]
        make_move(pos, m)
        if opts.prune:
            v = -_alphabeta(pos, ev, ctx, tt, opts, depth - 1, ply + 1, -beta, -alpha)
        else:
            v = -_alphabeta(pos, ev, ctx, tt, opts, depth - 1, ply + 1, -INFINITE, INFINITE)
        unmake_move(pos)
        if ctx.stats[STOPPED]:
            return 0.0
        if v > best:
            best = v
            best_move = m
            update_pv(ctx, ply, m)
            alpha = max(alpha, v)
            if opts.prune and v >= beta:
                break
    if opts.use_tt:
        store_result(tt, key, depth, ply, best, alpha_orig, beta, best_move)
    return best


class SearchResult(NamedTuple):
    """What a search found, for the side to move at the root (chess's fields; moves
    are columns 0-6, ``best_move`` -1 when the game is over)."""

    value: float
    best_move: int
    pv: list[int]
    depth: int
    nodes: int
    qnodes: int
    seldepth: int
    stopped: bool


def result_from_context(
    ctx: SearchContext, value: float, depth: int, stopped: bool
) -> SearchResult:
    """The root's result as a finished search (alpha-beta or minimax) left it in ``ctx``."""
    n = int(ctx.pv_len[0])
    pv = [int(m) for m in ctx.pv[0, :n]]
    return SearchResult(
        value=value,
        best_move=pv[0] if pv else NO_MOVE,
        pv=pv,
        depth=depth,
        nodes=int(ctx.stats[NODES]),
        qnodes=0,
        seldepth=int(ctx.stats[SELDEPTH]),
        stopped=stopped,
    )


class Connect4Search:
    """The training alpha-beta with its own scratch space and transposition table.

    >>> from treestrap.connect4.board import parse_moves
    >>> from treestrap.connect4.evaluator import make_evaluator
    >>> from treestrap.connect4.features import SIZE
    >>> ev = make_evaluator(np.zeros(SIZE))
    >>> Connect4Search(tt_bits=12).search(parse_moves("112233"), ev, depth=1).pv
    [3]
    """

    def __init__(self, tt_bits: int = 18, options: SearchOptions | None = None):
        self.options = options or SearchOptions()
        self.ctx = new_context()
        self.tt = new_table(tt_bits)

    def _run(
        self, pos: Position, ev: Connect4Evaluator, opts: SearchOptions, depth: int, fresh: bool
    ) -> float:
        """One full-window search; with ``fresh`` the context and table are cleared
        first. Plain Python on purpose: a compiled caller of the recursive kernel would
        not load from numba's cache."""
        if fresh:
            reset_context(self.ctx)
            clear_table(self.tt)
        return float(_alphabeta(pos, ev, self.ctx, self.tt, opts, depth, 0, -INFINITE, INFINITE))

    def _result(self, value: float, depth: int, stopped: bool) -> SearchResult:
        return result_from_context(self.ctx, value, depth, stopped)

    def search(self, pos: Position, ev: Connect4Evaluator, depth: int) -> SearchResult:
        """A fixed-depth search from a cleared table (the paper's training search)."""
        if not 1 <= depth <= MAX_PLY:
            raise ValueError(f"search depth must be in 1..{MAX_PLY}, got {depth}")
        value = self._run(pos, ev, self.options, depth, True)
        return self._result(value, depth, bool(self.ctx.stats[STOPPED]))

    def search_nodes(
        self, pos: Position, ev: Connect4Evaluator, max_nodes: int, max_depth: int = MAX_PLY
    ) -> SearchResult:
        """Iterative deepening until ``max_nodes`` are spent (counted over all
        iterations); the result of the deepest completed iteration (depth 1 always
        completes). Stops early once a depth reaches the end of every line."""
        if max_nodes < 1:
            raise ValueError(f"node budget must be positive, got {max_nodes}")
        result = None
        remaining = MAX_PLY - int(pos.st[ST_PLY])
        for depth in range(1, max(1, min(max_depth, remaining)) + 1):
            opts = self.options._replace(max_nodes=0 if depth == 1 else max_nodes)
            value = self._run(pos, ev, opts, depth, depth == 1)
            if self.ctx.stats[STOPPED]:
                break
            result = self._result(value, depth, False)
            if self.ctx.stats[NODES] >= max_nodes:
                break
        assert result is not None
        return result
