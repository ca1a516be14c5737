"""Full-tree minimax over Connect Four that keeps every node (TreeStrap(minimax),
Veness et al. 2009, Algorithm 1; chess's ``search/minimax.py`` without quiescence).

No pruning: every node of the depth-``D`` tree is recorded in a
:class:`treestrap.core.search_tree.SearchTree` with its features, static value and exact
minimax value (node-relative). Leaves take their clipped static value; finished games
their result, flagged ``TERMINAL``. A budget of tree nodes stops the search, and so does
a full record; iterative deepening keeps the deepest tree that fits.
"""

from __future__ import annotations

import numpy as np

from treestrap.connect4.board import ST_PLY, Position, make_move, order_moves, unmake_move
from treestrap.connect4.evaluator import Connect4Evaluator, add_node, new_connect4_tree
from treestrap.connect4.search import (
    NODES,
    STOPPED,
    SearchContext,
    SearchResult,
    count_node,
    end_value,
    new_context,
    reset_context,
    result_from_context,
    update_pv,
)
from treestrap.connect4.table import NO_MOVE
from treestrap.connect4.value import MAX_PLY, clip_value, value_to_node
from treestrap.core.jit import njit
from treestrap.core.search_tree import OVERFLOW, TERMINAL, SearchTree, reset_tree


@njit
def _minimax(
    pos: Position,
    ev: Connect4Evaluator,
    tree: SearchTree,
    ctx: SearchContext,
    max_nodes: int,
    depth: int,
    ply: int,
    parent: int,
    move: int,
) -> float:
    """Minimax value (root-relative, side to move) of ``pos``; records the subtree."""
    ctx.pv_len[ply] = 0
    count_node(ctx, ply)
    if max_nodes > 0 and ctx.stats[NODES] > max_nodes:
        ctx.stats[STOPPED] = 1
    node, h = add_node(tree, pos, ev, parent, move, ply, depth, 0)
    if node < 0:
        ctx.stats[STOPPED] = 1  # the record is full: an incomplete tree is of no use
    over, value = end_value(pos, ply)
    if over:
        if node >= 0:
            tree.flags[node] = TERMINAL
    elif depth <= 0 or ctx.stats[STOPPED]:
        value = clip_value(h)
    else:
        value = -np.inf
        moves = ctx.moves[ply]
        n = order_moves(pos, moves)
        for i in range(n):
            m = moves[i]
            make_move(pos, m)
            v = -_minimax(pos, ev, tree, ctx, max_nodes, depth - 1, ply + 1, node, m)
            unmake_move(pos)
            if ctx.stats[STOPPED]:
                break
            if v > value:
                value = v
                update_pv(ctx, ply, m)
    if node >= 0:
        tree.lower[node] = value_to_node(value, ply)
        tree.upper[node] = tree.lower[node]
    return value


class Connect4Minimax:
    """Full-tree minimax with its own scratch space and node record: ``capacity`` bounds
    the nodes recorded, ``max_nodes`` the nodes of one tree in :meth:`search_budget`."""

    def __init__(self, capacity: int, max_nodes: int):
        if max_nodes < 1:
            raise ValueError(f"node budget must be positive, got {max_nodes}")
        self.max_nodes = max_nodes
        self.ctx = new_context()
        self.tree = new_connect4_tree(capacity)
        self._spare = new_connect4_tree(capacity)

    def _run(
        self, pos: Position, ev: Connect4Evaluator, tree: SearchTree, depth: int, budget: int
    ) -> float:
        """Reset the context and ``tree``, and search into ``tree``. Plain Python on
        purpose: a compiled caller of a recursive kernel would not load from numba's
        cache."""
        reset_context(self.ctx)
        reset_tree(tree)
        return float(_minimax(pos, ev, tree, self.ctx, budget, depth, 0, -1, NO_MOVE))

    def _result(self, value: float, depth: int) -> SearchResult:
        return result_from_context(self.ctx, value, depth, bool(self.ctx.stats[STOPPED]))

    def search(self, pos: Position, ev: Connect4Evaluator, depth: int) -> SearchResult:
        """The whole depth-``depth`` tree (no node budget) into ``self.tree``."""
        if not 1 <= depth <= MAX_PLY:
            raise ValueError(f"search depth must be in 1..{MAX_PLY}, got {depth}")
        return self._result(self._run(pos, ev, self.tree, depth, 0), depth)

    def search_budget(
        self, pos: Position, ev: Connect4Evaluator, max_depth: int = MAX_PLY
    ) -> SearchResult:
        """Iterative deepening: the deepest tree that fits ``max_nodes`` and the capacity
        (depth 1 is always kept); ``self.tree`` holds that tree. No iteration starts once
        the growth per ply predicts it would overrun the budget, nor past the end of
        every line."""
        result = None
        previous = 1
        remaining = MAX_PLY - int(pos.st[ST_PLY])
        for depth in range(1, max(1, min(max_depth, remaining)) + 1):
            # Search into the spare record so the last complete tree survives a stop.
            value = self._run(pos, ev, self._spare, depth, self.max_nodes)
            complete = not self.ctx.stats[STOPPED] and not self._spare.meta[OVERFLOW]
            if not complete and result is not None:
                break
            self.tree, self._spare = self._spare, self.tree
            result = self._result(value, depth)
            if not complete:
                break
            nodes = max(int(self.ctx.stats[NODES]), 1)
            if nodes * nodes / previous > self.max_nodes:
                break
            previous = nodes
        assert result is not None
        return result
