"""Reading a training search back from its transposition table (Veness et al. 2009,
Algorithm 2, DeltaFromTransTbl): starting at the root, every position whose table
entry has depth >= d is recorded with its bounds, and the walk continues through its
legal successors. Each node is flagged ``NOISY`` unless it is quiet (``search/quiet.py``).

Unlike a literal recursion, each table entry is recorded once even when several paths
lead to it (transpositions), so no position is counted twice in an update.
"""

from __future__ import annotations

import numpy as np

from treestrap.core.jit import njit
from treestrap.core.makemove import make_move, unmake_move
from treestrap.core.movegen import generate_moves
from treestrap.core.position import Position, current_key
from treestrap.evaluation.model import Evaluator
from treestrap.search.context import SearchContext
from treestrap.search.quiet import is_quiet
from treestrap.search.tree import NOISY, SearchTree, add_node, reset_tree
from treestrap.search.tt import TranspositionTable, tt_probe
from treestrap.search.value import MAX_PLY


@njit
def _walk(
    pos: Position,
    ev: Evaluator,
    tt: TranspositionTable,
    tree: SearchTree,
    ctx: SearchContext,
    ply: int,
    parent: int,
    move: int,
    min_depth: int,
    stamp: int,
) -> None:
    slot = tt_probe(tt, current_key(pos))
    if slot < 0 or tt.depth[slot] < min_depth or tt.visit[slot] == stamp:
        return
    tt.visit[slot] = stamp
    moves = ctx.moves[ply]
    flags = 0 if is_quiet(pos, moves) else NOISY
    node, _ = add_node(tree, pos, ev, parent, move, ply, tt.depth[slot], flags)
    if node < 0:
        return
    tree.lower[node] = tt.lower[slot]
    tree.upper[node] = tt.upper[slot]
    if ply >= MAX_PLY:
        return
    n = generate_moves(pos, moves)
    for i in range(n):
        m = np.int64(moves[i])  # exact argument type: see the recursion note in core.jit
        make_move(pos, m)
        # Look before recursing: most children have no entry deep enough, and a call
        # with all these arrays costs more than the probe.
        child = tt_probe(tt, current_key(pos))
        if child >= 0 and tt.depth[child] >= min_depth and tt.visit[child] != stamp:
            _walk(pos, ev, tt, tree, ctx, ply + 1, node, m, min_depth, stamp)
        unmake_move(pos)


def walk_tt(
    pos: Position,
    ev: Evaluator,
    tt: TranspositionTable,
    tree: SearchTree,
    ctx: SearchContext,
    min_depth: int,
) -> int:
    """Record the entries of depth >= ``min_depth`` reachable from ``pos`` into
    ``tree`` (reset first); returns the number of nodes recorded. Plain Python on
    purpose: a compiled caller of a recursive kernel would not load from numba's cache."""
    reset_tree(tree)
    tt.meta[1] += 1
    _walk(pos, ev, tt, tree, ctx, 0, -1, 0, min_depth, int(tt.meta[1]))
    return int(tree.meta[0])
