"""Reading a Connect Four training search back from its transposition table (Veness et
al. 2009, Algorithm 2, DeltaFromTransTbl; chess's ``search/tt_walk.py`` without
quiescence): from the root, every position whose table entry has depth >= d is recorded
with its bounds (node-relative: win scores counted from that node), its static value and
gradient, and the walk goes on through its legal successors. Finished games are flagged
``TERMINAL`` (the learning rules leave them out: they have no heuristic value in search).

Each table entry is recorded once even when several paths lead to it (transpositions),
so no position counts twice in an update.
"""

from __future__ import annotations

import numpy as np

from treestrap.connect4.board import (
    NOT_TERMINAL,
    Position,
    legal_moves,
    make_move,
    position_key,
    terminal_value,
    unmake_move,
)
from treestrap.connect4.evaluator import Connect4Evaluator, add_node
from treestrap.connect4.search import Connect4Search
from treestrap.connect4.table import Connect4Table, probe
from treestrap.core.jit import njit
from treestrap.core.search_tree import TERMINAL, SearchTree, reset_tree


@njit
def _walk(
    pos: Position,
    ev: Connect4Evaluator,
    tt: Connect4Table,
    tree: SearchTree,
    moves: np.ndarray,
    ply: int,
    parent: int,
    move: int,
    min_depth: int,
    stamp: int,
) -> None:
    slot = probe(tt, position_key(pos))
    if slot < 0 or tt.depth[slot] < min_depth or tt.visit[slot] == stamp:
        return
    tt.visit[slot] = stamp
    over = terminal_value(pos) != NOT_TERMINAL
    node, _ = add_node(tree, pos, ev, parent, move, ply, tt.depth[slot], TERMINAL if over else 0)
    if node < 0:
        return
    tree.lower[node] = tt.lower[slot]
    tree.upper[node] = tt.upper[slot]
    if over:
        return
    n = legal_moves(pos, moves[ply])
    for i in range(n):
        m = moves[ply, i]
        make_move(pos, m)
        # Look before recursing: a call with all these arrays costs more than the probe.
        child = probe(tt, position_key(pos))
        if child >= 0 and tt.depth[child] >= min_depth and tt.visit[child] != stamp:
            _walk(pos, ev, tt, tree, moves, ply + 1, node, m, min_depth, stamp)
        unmake_move(pos)


def walk_tt(
    pos: Position,
    ev: Connect4Evaluator,
    search: Connect4Search,
    tree: SearchTree,
    min_depth: int,
) -> None:
    """Record the entries of depth >= ``min_depth`` reachable from ``pos`` in the table
    of ``search``'s last search into ``tree`` (reset first). Plain Python on purpose: a
    compiled caller of a recursive kernel would not load from numba's cache."""
    reset_tree(tree)
    tt = search.tt
    tt.meta[1] += 1
    stamp = np.int64(tt.meta[1])
    _walk(pos, ev, tt, tree, search.ctx.moves, 0, -1, -1, min_depth, stamp)
