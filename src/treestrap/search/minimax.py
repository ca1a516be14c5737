"""Full-tree minimax that keeps every node (TreeStrap(minimax), Veness et al. 2009,
Algorithm 1; Serban 2014, Algorithm 6).

No pruning: every node of the depth-``D`` tree, and of the quiescence searches below
its leaves, is recorded in a :class:`treestrap.search.tree.SearchTree` with its
features, static value and exact minimax value. The quiescence and draw rules are
those of :mod:`treestrap.search.training`, so with extensions and the table off both
searches return the same root value.

Budgets (Serban used 5,000 tree nodes and 500 quiescence nodes per leaf): a main-tree
budget stops the search (used by iterative deepening to pick the deepest tree that
fits); a per-leaf quiescence budget turns further quiescence nodes into static leaves.
A search also stops when the record is full (exhaustive quiescence below a depth-3
tree can run to millions of nodes); ``stopped`` then says its value is not usable.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from treestrap.core.jit import njit
from treestrap.core.makemove import make_move, unmake_move
from treestrap.core.movegen import generate_captures, generate_moves
from treestrap.core.position import ST_HALFMOVE, Position, in_check
from treestrap.core.status import is_insufficient_material, is_repetition
from treestrap.evaluation.model import Evaluator
from treestrap.search.context import (
    NODES,
    STOPPED,
    SearchContext,
    count_node,
    new_context,
    reset_context,
    update_pv,
)
from treestrap.search.quiet import is_quiet
from treestrap.search.training import SearchResult, result_from_context
from treestrap.search.tree import (
    BUDGET_LEAF,
    NOISY,
    OVERFLOW,
    QUIESCENCE,
    TERMINAL,
    SearchTree,
    add_node,
    new_tree,
    reset_tree,
)
from treestrap.search.value import MAX_PLY, clip_value, mated_in, value_to_node


class MinimaxLimits(NamedTuple):
    check_extension: bool = False
    #: main-tree nodes (depth >= 1) before the search stops; 0 = no limit
    max_nodes: int = 0
    #: quiescence nodes below one leaf before further ones become static leaves
    max_qnodes_per_leaf: int = 0
    #: flag the nodes that are not quiet (``NOISY``, search/quiet.py) for ``--quiet-only``
    mark_noisy: bool = False


@njit(inline="always")
def _leaf_budget_spent(lim: MinimaxLimits, leaf_q: np.ndarray) -> bool:
    return lim.max_qnodes_per_leaf > 0 and leaf_q[0] > lim.max_qnodes_per_leaf


@njit
def _minimax(
    pos: Position,
    ev: Evaluator,
    tree: SearchTree,
    ctx: SearchContext,
    lim: MinimaxLimits,
    depth: int,
    ply: int,
    parent: int,
    move: int,
    leaf_q: np.ndarray,
) -> float:
    """Minimax value (root-relative, side to move) of ``pos``; records the subtree."""
    ctx.pv_len[ply] = 0
    quiet = depth <= 0
    count_node(ctx, ply, quiet)
    if quiet:
        leaf_q[0] += 1
    elif lim.max_nodes > 0 and ctx.stats[NODES] > lim.max_nodes:
        ctx.stats[STOPPED] = 1
    kind = QUIESCENCE if quiet else 0
    if lim.mark_noisy and not is_quiet(pos, ctx.moves[ply]):
        kind |= NOISY
    node, h = add_node(tree, pos, ev, parent, move, ply, max(depth, 0), kind)
    if node < 0:
        ctx.stats[STOPPED] = 1  # the record is full: an incomplete tree is of no use
    flags = 0
    value = 0.0
    n = -1
    moves = ctx.moves[ply]
    checked = in_check(pos)
    if ply > 0 and (is_repetition(pos) or is_insufficient_material(pos)):
        flags = TERMINAL
    elif ply >= MAX_PLY or ctx.stats[STOPPED] or (quiet and _leaf_budget_spent(lim, leaf_q)):
        value = clip_value(h)
        flags = BUDGET_LEAF
    elif quiet and not checked:
        if pos.st[ST_HALFMOVE] >= 100:
            flags = TERMINAL
        else:
            value = clip_value(h)  # stand pat
            n = generate_captures(pos, moves)
    else:
        n = generate_moves(pos, moves)
        if n == 0:
            value = mated_in(ply) if checked else 0.0
            flags = TERMINAL
            n = -1
        elif ply > 0 and pos.st[ST_HALFMOVE] >= 100:
            flags = TERMINAL
            n = -1
        else:
            value = -np.inf
    if n >= 0:
        if not quiet and depth == 1:
            leaf_q[0] = 0  # the children's quiescence searches start their budgets
        for i in range(n):
            m = np.int64(moves[i])  # exact argument type: see the recursion note in core.jit
            make_move(pos, m)
            child_depth = depth - 1
            if lim.check_extension and not quiet and in_check(pos):
                child_depth += 1
            if not quiet and child_depth <= 0:
                leaf_q[0] = 0
            v = -_minimax(pos, ev, tree, ctx, lim, child_depth, ply + 1, node, m, leaf_q)
            unmake_move(pos)
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


class MinimaxSearch:
    """Full-tree minimax with its own scratch space and node record.

    ``capacity`` bounds the nodes recorded (main tree and quiescence together).
    """

    def __init__(self, capacity: int = 200_000, limits: MinimaxLimits | None = None):
        self.limits = limits or MinimaxLimits()
        self.ctx = new_context()
        self.tree = new_tree(capacity)
        self._spare = new_tree(capacity)

    def _run(self, pos: Position, ev: Evaluator, tree: SearchTree, depth: int) -> float:
        """Reset the context and ``tree``, and search into ``tree``. Plain Python on
        purpose: a compiled caller of a recursive kernel would not load from numba's
        cache."""
        reset_context(self.ctx)
        reset_tree(tree)
        leaf_q = np.zeros(1, dtype=np.int64)
        return float(_minimax(pos, ev, tree, self.ctx, self.limits, depth, 0, -1, 0, leaf_q))

    def _result(self, value: float, depth: int) -> SearchResult:
        return result_from_context(self.ctx, value, depth, bool(self.ctx.stats[STOPPED]))

    def search(self, pos: Position, ev: Evaluator, depth: int) -> SearchResult:
        """A depth-``depth`` tree; every node lands in ``self.tree``."""
        if not 1 <= depth < MAX_PLY:
            raise ValueError(f"search depth must be in 1..{MAX_PLY - 1}, got {depth}")
        value = self._run(pos, ev, self.tree, depth)
        return self._result(value, depth)

    def search_budget(self, pos: Position, ev: Evaluator, max_depth: int = 32) -> SearchResult:
        """Iterative deepening: the deepest tree that fits ``limits.max_nodes`` and the
        capacity (depth 1 is always kept); ``self.tree`` holds that tree.

        A deeper iteration that would not fit is wasted work (it runs until the budget
        stops it), so none starts once the observed growth per ply predicts it would
        overrun the budget."""
        if self.limits.max_nodes <= 0:
            raise ValueError("search_budget needs limits.max_nodes > 0")
        result = None
        previous = 1
        for depth in range(1, max_depth + 1):
            # Search into the spare record so the last complete tree survives a stop.
            value = self._run(pos, ev, self._spare, depth)
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
