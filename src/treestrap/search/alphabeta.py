"""The alpha-beta search used while learning (Veness et al. 2009, section 5), written
once for every game (see :mod:`treestrap.search.family`).

Contract of :func:`alphabeta`: negamax, fail-soft. It returns ``v`` such that
``v <= alpha`` means the true depth-``depth`` value is at most ``v``, ``v >= beta`` that
it is at least ``v``, and otherwise ``v`` is exact. Values are for the side to move,
mate (win) scores count plies from the root. A two-bound transposition table
(:mod:`treestrap.search.tt`) gives the move to try first, and only a result of exactly
this depth may cut a node off: then every stored bound is a bound on the depth-``d``
value itself, which TreeStrap(alpha-beta) learns from (:mod:`treestrap.search.walk`
reads them back). A node budget stops the search; :class:`AlphaBetaSearch` drives it
to a depth or by iterative deepening within a budget.

What the game supplies (its kernels module, ``game``):

* ``NO_MOVE``; ``HAS_QUIESCENCE``: whether nodes at depth <= 0 search on (captures)
  or are the horizon (their value settled by ``settled``);
* ``position_key(pos)``, ``make_move(pos, m)``, ``unmake_move(pos)``;
* ``settled(pos, ev, tt, opts, depth, ply) -> (bool, value)``: a node decided before
  the table and the moves (a draw, a finished game, the horizon; a game may store it);
* ``expand(pos, ctx, ply) -> (bool, value, n)``: the moves into ``ctx.moves[ply]``, or
  the node's value when there are none that count;
* ``quiescence_moves(pos, ev, ctx, key, ply, alpha, beta) -> (bool, best, alpha, n)``:
  a quiescence node's stand pat and moves (a game without quiescence never calls it);
* ``order(pos, ctx, ply, n, tt_move)``, ``next_move(ctx, ply, i, n)``: the move order;
* ``extension(pos, opts)``: plies added to a move's depth (check extension);
* ``credit_cutoff(pos, ctx, ply, m, depth, opts)``: a move cut off (killers, history).

``opts`` is the game's options tuple; the search reads its ``use_tt``, ``prune``
(False: every child gets the full window, so every node's value is exact),
``max_nodes`` (0: no limit) and ``deeper_cutoffs`` (False, the training rule: only a
table entry of exactly a node's depth cuts it off).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, NamedTuple

from treestrap.core.jit import njit
from treestrap.search.family import instantiate
from treestrap.search.scratch import (
    NODES,
    QNODES,
    SELDEPTH,
    STOPPED,
    count_node,
    searched_nodes,
    update_pv,
)
from treestrap.search.tt import (
    clear_tt,
    new_search,
    new_tt,
    tt_cutoff,
    tt_probe,
    tt_store_result,
)
from treestrap.search.value import INFINITE

game: Any = None  # the game's kernels module, bound in each copy (treestrap.search.family)


@njit(inline="always")
def out_of_nodes(ctx: Any, max_nodes: int) -> bool:
    """Whether the search is stopped, or stops now that ``max_nodes`` are spent."""
    if ctx.stats[STOPPED]:
        return True
    if max_nodes > 0 and searched_nodes(ctx) >= max_nodes:
        ctx.stats[STOPPED] = 1
        return True
    return False


def alphabeta(
    pos: Any,
    ev: Any,
    ctx: Any,
    tt: Any,
    opts: Any,
    depth: int,
    ply: int,
    alpha: float,
    beta: float,
) -> float:
    """Fail-soft negamax alpha-beta to ``depth`` plies (module docstring); in a game
    with quiescence, ``depth <= 0`` is the quiescence search.

    One self-recursive function on purpose: numba's cache cannot load a recursive
    kernel that calls another recursive kernel (see :mod:`treestrap.core.jit`).
    """
    ctx.pv_len[ply] = 0
    if out_of_nodes(ctx, opts.max_nodes):
        return 0.0
    quiescence = game.HAS_QUIESCENCE and depth <= 0
    count_node(ctx, ply, quiescence)
    settled, value = game.settled(pos, ev, tt, opts, depth, ply)
    if settled:
        return value

    key = game.position_key(pos)
    tt_move = game.NO_MOVE
    if quiescence:
        settled, best, alpha, n = game.quiescence_moves(pos, ev, ctx, key, ply, alpha, beta)
        if settled:
            return best
    else:
        best = -INFINITE
        if opts.use_tt:
            slot = tt_probe(tt, key)
            if slot >= 0:
                tt_move = tt.move[slot]
                # Only a result of exactly this depth may cut off (module docstring),
                # unless the options take deeper ones too (a playing search).
                stored = tt.depth[slot]
                if ply > 0 and (stored == depth or (opts.deeper_cutoffs and stored > depth)):
                    cut, bound = tt_cutoff(tt, slot, ply, alpha, beta)
                    if cut:
                        return bound
        settled, value, n = game.expand(pos, ctx, ply)
        if settled:
            return value

    game.order(pos, ctx, ply, n, tt_move)
    alpha_orig = alpha
    best_move = game.NO_MOVE
    for i in range(n):
        m = game.next_move(ctx, ply, i, n)
        game.make_move(pos, m)
        child_depth = depth - 1
        if not quiescence:
            child_depth += game.extension(pos, opts)
        if opts.prune or quiescence:
            v = -alphabeta(pos, ev, ctx, tt, opts, child_depth, ply + 1, -beta, -alpha)
        else:
            v = -alphabeta(pos, ev, ctx, tt, opts, child_depth, ply + 1, -INFINITE, INFINITE)
        game.unmake_move(pos)
        if ctx.stats[STOPPED]:
            return 0.0
        if v > best:
            best = v
            best_move = m
            update_pv(ctx, ply, m)
            alpha = max(alpha, v)
            if (opts.prune or quiescence) and v >= beta:
                if not quiescence:
                    game.credit_cutoff(pos, ctx, ply, m, depth, opts)
                break

    if opts.use_tt and not quiescence:
        tt_store_result(tt, key, depth, ply, best, alpha_orig, beta, best_move)
    return best


class SearchResult(NamedTuple):
    """What a search found, for the side to move at the root (``best_move`` is the
    game's "no move" when the root has none)."""

    value: float
    best_move: int
    pv: list[int]
    depth: int
    nodes: int
    qnodes: int
    seldepth: int
    stopped: bool


def result_from_context(
    ctx: Any, value: float, depth: int, stopped: bool, no_move: int = 0
) -> SearchResult:
    """The root's result as a finished search (alpha-beta or minimax) left it in ``ctx``."""
    n = int(ctx.pv_len[0])
    pv = [int(m) for m in ctx.pv[0, :n]]
    return SearchResult(
        value=float(value),
        best_move=pv[0] if pv else no_move,
        pv=pv,
        depth=depth,
        nodes=int(ctx.stats[NODES]),
        qnodes=int(ctx.stats[QNODES]),
        seldepth=int(ctx.stats[SELDEPTH]),
        stopped=stopped,
    )


class AlphaBetaSearch:
    """The training alpha-beta of one game (its kernels module ``game``, which also
    gives ``new_context()``, ``reset_context(ctx)``, ``MAX_DEPTH`` and
    ``plies_left(pos)``) with its own scratch space and transposition table."""

    def __init__(self, game: ModuleType, options: Any, tt_bits: int) -> None:
        self.game = game
        self.kernel = instantiate(alphabeta, game)
        self.options = options
        self.ctx = game.new_context()
        self.tt = new_tt(tt_bits, game.NO_MOVE)

    def _run(self, pos: Any, ev: Any, opts: Any, depth: int, fresh: bool) -> float:
        """One full-window search of ``depth`` plies; with ``fresh`` the context is reset
        and the table cleared first. The PV is left in ``ctx.pv[0, :ctx.pv_len[0]]``.

        Plain Python on purpose: a compiled caller of the recursive kernel would not
        load from numba's cache."""
        if fresh:
            self.game.reset_context(self.ctx)
            clear_tt(self.tt)
        return float(self.kernel(pos, ev, self.ctx, self.tt, opts, depth, 0, -INFINITE, INFINITE))

    def _check_depth(self, depth: int) -> None:
        deepest = self.game.MAX_DEPTH
        if not 1 <= depth <= deepest:
            raise ValueError(f"search depth must be in 1..{deepest}, got {depth}")

    def _result(self, value: float, depth: int, stopped: bool) -> SearchResult:
        return result_from_context(self.ctx, value, depth, stopped, self.game.NO_MOVE)

    def search(self, pos: Any, ev: Any, depth: int) -> SearchResult:
        """A fixed-depth search from a cleared table (the paper's training search)."""
        self._check_depth(depth)
        value = self._run(pos, ev, self.options, depth, True)
        return self._result(value, depth, bool(self.ctx.stats[STOPPED]))

    def deepen(
        self, pos: Any, ev: Any, depth: int, max_nodes: int = 0, keep_table: bool = False
    ) -> SearchResult:
        """One iteration of an iterative deepening that the caller drives (a clock, say):
        a ``depth``-ply search over the table the last iteration left, its moves first,
        stopped once ``max_nodes`` nodes are searched since depth 1 (0: no limit). Depth 1
        resets the counters and clears the table, or with ``keep_table`` only marks its
        entries as older (a game's next move reuses its last searches: with the option
        ``deeper_cutoffs`` their deeper results cut nodes off). A stopped result's value
        and move are not to be used."""
        self._check_depth(depth)
        opts = self.options._replace(max_nodes=max_nodes)
        fresh = depth == 1 and not keep_table
        if depth == 1 and keep_table:
            self.game.reset_context(self.ctx)
            new_search(self.tt)
        value = self._run(pos, ev, opts, depth, fresh)
        return self._result(value, depth, bool(self.ctx.stats[STOPPED]))

    def clear_table(self) -> None:
        """Forget every stored result (a new game)."""
        clear_tt(self.tt)

    def search_nodes(
        self, pos: Any, ev: Any, max_nodes: int, max_depth: int | None = None
    ) -> SearchResult:
        """Iterative deepening until ``max_nodes`` are spent (counted over all
        iterations, main search and quiescence); the result of the deepest completed
        iteration (depth 1 always completes). Goes no deeper than the game's
        ``plies_left``: past the end of every line a search finds nothing new."""
        if max_nodes < 1:
            raise ValueError(f"node budget must be positive, got {max_nodes}")
        deepest = self.game.MAX_DEPTH if max_depth is None else max_depth
        result = None
        for depth in range(1, max(1, min(deepest, self.game.plies_left(pos))) + 1):
            opts = self.options._replace(max_nodes=0 if depth == 1 else max_nodes)
            value = self._run(pos, ev, opts, depth, depth == 1)
            if self.ctx.stats[STOPPED]:
                break
            result = self._result(value, depth, False)
            if searched_nodes(self.ctx) >= max_nodes:
                break
        assert result is not None
        return result
