"""Full-tree minimax that keeps every node (TreeStrap(minimax), Veness et al. 2009,
Algorithm 1; Serban 2014, Algorithm 6), written once for every game (see
:mod:`treestrap.search.family`).

No pruning: every node of the depth-``D`` tree (and, in a game with quiescence, of the
quiescence searches below its leaves) is recorded in a
:class:`~treestrap.core.search_tree.SearchTree` with its features, static value and
exact minimax value (node-relative). A main-tree budget stops the search (iterative
deepening then keeps the deepest tree that fits), and so does a full record: a
search that stops says its value is not usable.

What the game supplies (its kernels module, ``game``): ``NO_MOVE``, ``HAS_QUIESCENCE``,
``make_move(pos, m)``, ``unmake_move(pos)``, ``add_node(tree, pos, ev, parent, move,
ply, depth, flags) -> (node, H(s))``, ``node_kind(pos, ctx, lim, ply, quiet)`` (the
flags a node gets before its value: quiescence, not quiet), ``minimax_moves(pos, ctx,
lim, depth, ply, quiet, h, leaf_q) -> (flags, value, n)`` (a leaf's flags and value
with ``n`` -1, or the ``n`` moves into ``ctx.moves[ply]`` with ``value`` -inf or the
stand pat) and ``minimax_extension(pos, lim)``. ``lim`` is the game's limits tuple;
the search reads its ``max_nodes`` (0: no limit). ``leaf_q[0]`` counts the
quiescence nodes below the current leaf, for a game's per-leaf budget.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from treestrap.core.search_tree import OVERFLOW, SearchTree, reset_tree
from treestrap.search.alphabeta import SearchResult, result_from_context
from treestrap.search.family import instantiate
from treestrap.search.scratch import NODES, STOPPED, count_node, update_pv
from treestrap.search.value import value_to_node

game: Any = None  # the game's kernels module, bound in each copy (treestrap.search.family)


def minimax(
    pos: Any,
    ev: Any,
    tree: Any,
    ctx: Any,
    lim: Any,
    depth: int,
    ply: int,
    parent: int,
    move: int,
    leaf_q: np.ndarray,
) -> float:
    """Minimax value (root-relative, side to move) of ``pos``; records the subtree."""
    ctx.pv_len[ply] = 0
    quiet = game.HAS_QUIESCENCE and depth <= 0
    count_node(ctx, ply, quiet)
    if quiet:
        leaf_q[0] += 1
    elif lim.max_nodes > 0 and ctx.stats[NODES] > lim.max_nodes:
        ctx.stats[STOPPED] = 1
    kind = game.node_kind(pos, ctx, lim, ply, quiet)
    node, h = game.add_node(tree, pos, ev, parent, move, ply, max(depth, 0), kind)
    if node < 0:
        ctx.stats[STOPPED] = 1  # the record is full: an incomplete tree is of no use
    flags, value, n = game.minimax_moves(pos, ctx, lim, depth, ply, quiet, h, leaf_q)
    if n >= 0:
        if not quiet and depth == 1:
            leaf_q[0] = 0  # the children's quiescence searches start their budgets
        moves = ctx.moves[ply]
        for i in range(n):
            m = np.int64(moves[i])  # exact argument type: see the recursion note in core.jit
            game.make_move(pos, m)
            child_depth = depth - 1
            if not quiet:
                child_depth += game.minimax_extension(pos, lim)
                if child_depth <= 0:
                    leaf_q[0] = 0
            v = -minimax(pos, ev, tree, ctx, lim, child_depth, ply + 1, node, m, leaf_q)
            game.unmake_move(pos)
            if ctx.stats[STOPPED]:
                break
            if v > value:
                value = v
                update_pv(ctx, ply, m)
    if node >= 0:
        tree.flags[node] |= flags
        tree.lower[node] = value_to_node(value, ply)
        tree.upper[node] = tree.lower[node]
    return value


class FullTreeSearch:
    """Full-tree minimax of one game (its kernels module ``game``, which also gives
    ``new_context()``, ``reset_context(ctx)``, ``MAX_DEPTH`` and ``plies_left(pos)``)
    with its own scratch space and two node records of the game's making: the last
    complete tree in ``tree``, the next one searched into ``_spare``."""

    def __init__(self, game: ModuleType, limits: Any, tree: SearchTree, spare: SearchTree):
        self.game = game
        self.kernel = instantiate(minimax, game)
        self.limits = limits
        self.ctx = game.new_context()
        self.tree = tree
        self._spare = spare

    def _run(self, pos: Any, ev: Any, tree: SearchTree, depth: int, limits: Any) -> float:
        """Reset the context and ``tree``, and search into ``tree``. Plain Python on
        purpose: a compiled caller of a recursive kernel would not load from numba's
        cache."""
        self.game.reset_context(self.ctx)
        reset_tree(tree)
        leaf_q = np.zeros(1, dtype=np.int64)
        no_move = self.game.NO_MOVE
        return float(self.kernel(pos, ev, tree, self.ctx, limits, depth, 0, -1, no_move, leaf_q))

    def _result(self, value: float, depth: int) -> SearchResult:
        stopped = bool(self.ctx.stats[STOPPED])
        return result_from_context(self.ctx, value, depth, stopped, self.game.NO_MOVE)

    def search(self, pos: Any, ev: Any, depth: int, limits: Any = None) -> SearchResult:
        """A depth-``depth`` tree within ``limits`` (the search's own when None); every
        node lands in ``self.tree``."""
        deepest = self.game.MAX_DEPTH
        if not 1 <= depth <= deepest:
            raise ValueError(f"search depth must be in 1..{deepest}, got {depth}")
        limits = self.limits if limits is None else limits
        return self._result(self._run(pos, ev, self.tree, depth, limits), depth)

    def search_budget(self, pos: Any, ev: Any, max_depth: int = 32) -> SearchResult:
        """Iterative deepening: the deepest tree that fits ``limits.max_nodes`` and the
        capacity (depth 1 is always kept); ``self.tree`` holds that tree.

        A deeper iteration that would not fit is wasted work (it runs until the budget
        stops it), so none starts once the observed growth per ply predicts it would
        overrun the budget, nor past the end of every line (``plies_left``)."""
        if self.limits.max_nodes <= 0:
            raise ValueError("search_budget needs limits.max_nodes > 0")
        result = None
        previous = 1
        for depth in range(1, max(1, min(max_depth, self.game.plies_left(pos))) + 1):
            # Search into the spare record so the last complete tree survives a stop.
            value = self._run(pos, ev, self._spare, depth, self.limits)
            complete = not self.ctx.stats[STOPPED] and not self._spare.meta[OVERFLOW]
            if not complete and result is not None:
                break
            self.tree, self._spare = self._spare, self.tree
            result = self._result(value, depth)
            if not complete:
                break
            nodes = max(int(self.ctx.stats[NODES]), 1)
            if nodes * nodes / previous > self.limits.max_nodes:
                break
            previous = nodes
        assert result is not None
        return result
