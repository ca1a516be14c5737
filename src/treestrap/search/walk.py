"""Reading a training search back from its transposition table (Veness et al. 2009,
Algorithm 2, DeltaFromTransTbl), written once for every game (see
:mod:`treestrap.search.family`): starting at the root, every position whose table
entry has depth >= d is recorded with its bounds (node-relative, as the table holds
them), and the walk continues through its legal successors.

Unlike a literal recursion, each table entry is recorded once even when several paths
lead to it (transpositions), so no position is counted twice in an update.

What the game supplies (its kernels module, ``game``): ``NO_MOVE``,
``position_key(pos)``, ``legal_moves(pos, buffer)``, ``make_move(pos, m)``,
``unmake_move(pos)``, ``walked_flags(pos, ctx, ply) -> (flags, leaf)`` (a node's flags,
and whether the walk stops below it: a finished game) and ``add_node(tree, pos, ev,
parent, move, ply, depth, flags) -> (node, H(s))``. A node is recorded with its static
value and gradient, unless ``values`` is given: then with a value of the game's own
within its bounds (chess: its quiescence value, ``values`` the quiescence searches'
scratch and whether every leaf is exact), by ``add_valued_node(tree, pos, ev, values,
parent, move, ply, depth, flags, lower, upper) -> node``, which a game that never
passes ``values`` need not supply.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from treestrap.core.search_tree import SearchTree, reset_tree, tree_size
from treestrap.search.family import instantiate
from treestrap.search.tt import VISIT_STAMP, TranspositionTable, tt_probe

game: Any = None  # the game's kernels module, bound in each copy (treestrap.search.family)


def walk(
    pos: Any,
    ev: Any,
    tt: Any,
    tree: Any,
    ctx: Any,
    ply: int,
    parent: int,
    move: int,
    min_depth: int,
    stamp: int,
    values: Any,
) -> None:
    """Record the entry of ``pos`` and, below it, those of its successors (module
    docstring); ``stamp`` marks the entries this walk has recorded."""
    slot = tt_probe(tt, game.position_key(pos))
    if slot < 0 or tt.depth[slot] < min_depth or tt.visit[slot] == stamp:
        return
    tt.visit[slot] = stamp
    depth = tt.depth[slot]
    flags, leaf = game.walked_flags(pos, ctx, ply)
    if values is None:
        node, _ = game.add_node(tree, pos, ev, parent, move, ply, depth, flags)
    else:
        lower, upper = tt.lower[slot], tt.upper[slot]
        node = game.add_valued_node(
            tree, pos, ev, values, parent, move, ply, depth, flags, lower, upper
        )
    if node < 0:
        return
    tree.lower[node] = tt.lower[slot]
    tree.upper[node] = tt.upper[slot]
    if leaf:
        return
    moves = ctx.moves[ply]
    n = game.legal_moves(pos, moves)
    for i in range(n):
        m = np.int64(moves[i])  # exact argument type: see the recursion note in core.jit
        game.make_move(pos, m)
        # Look before recursing: most children have no entry deep enough, and a call
        # with all these arrays costs more than the probe.
        child = tt_probe(tt, game.position_key(pos))
        if child >= 0 and tt.depth[child] >= min_depth and tt.visit[child] != stamp:
            walk(pos, ev, tt, tree, ctx, ply + 1, node, m, min_depth, stamp, values)
        game.unmake_move(pos)


def walk_table(
    game: ModuleType,
    pos: Any,
    ev: Any,
    tt: TranspositionTable,
    tree: SearchTree,
    ctx: Any,
    min_depth: int,
    values: Any = None,
) -> int:
    """Record the entries of depth >= ``min_depth`` reachable from ``pos`` into
    ``tree`` (reset first), valued by ``values`` when given (module docstring); returns
    the number of nodes recorded. Plain Python on
    purpose: a compiled caller of a recursive kernel would not load from numba's cache."""
    reset_tree(tree)
    tt.meta[VISIT_STAMP] += 1
    stamp = int(tt.meta[VISIT_STAMP])
    kernel = instantiate(walk, game)
    kernel(pos, ev, tt, tree, ctx, 0, -1, game.NO_MOVE, min_depth, stamp, values)
    return tree_size(tree)
