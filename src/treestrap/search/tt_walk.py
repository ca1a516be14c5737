"""Reading a training search back from its transposition table (Veness et al. 2009,
Algorithm 2, DeltaFromTransTbl): starting at the root, every position whose table
entry has depth >= d is recorded with its bounds, and the walk continues through its
legal successors. Each node is flagged ``NOISY`` unless it is quiet (``search/quiet.py``).

With ``quiescence`` values a node is recorded with Q(s), its quiescence value, and the
gradient of H at its principal quiescence leaf, signed for the side to move at ``s``
(:mod:`treestrap.search.quiescence` says why); a node whose quiescence value is not
H's (a mate or a draw inside the quiescence search) is flagged ``TERMINAL``. With
``exact_leaves`` every such node gets its exact quiescence value and principal leaf
(a network's replay set stores the leaf's inputs, to be valued later by a network
that has moved on, so a node whose value lies inside its bounds is not
left out as it is for the linear rules, whose error there is 0 at once).

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
from treestrap.search.quiescence import quiescence
from treestrap.search.quiet import is_quiet
from treestrap.search.tree import NOISY, TERMINAL, SearchTree, add_node, reset_tree
from treestrap.search.tt import TranspositionTable, tt_probe
from treestrap.search.value import INFINITE, MAX_PLY, clip_value

#: Width of the null windows that test a quiescence value against a bound: any
#: positive width decides the test; this one is a hundredth of a centipawn.
NULL_WINDOW = 0.01


@njit
def _add_quiescence_node(
    tree: SearchTree,
    pos: Position,
    ev: Evaluator,
    qctx: SearchContext,
    parent: int,
    move: int,
    ply: int,
    depth: int,
    flags: int,
    lower_bound: float,
    upper_bound: float,
    exact_leaves: bool,
) -> int:
    """Record ``pos`` with its quiescence value and its principal leaf's signed gradient;
    returns the node index (-1 if the record is full).

    Only a value outside the node's bounds moves the weights, so a null-window search
    at the bound comes first (both bounds finite: a window just around them). Most nodes
    end there, a cut node's stand pat usually reaching its lower bound at once: they are
    recorded with their own features and a value within their bounds (their error is 0
    whatever the gradient). The rest are searched again with the full window for their
    exact value and principal leaf (every node with ``exact_leaves``)."""
    inside = False
    v = 0.0
    if exact_leaves:
        inside = False
    elif lower_bound == -INFINITE and upper_bound == INFINITE:
        inside = True
    elif upper_bound == INFINITE:
        v = quiescence(pos, ev, qctx, lower_bound - NULL_WINDOW, lower_bound)
        inside = v >= lower_bound
    elif lower_bound == -INFINITE:
        v = quiescence(pos, ev, qctx, upper_bound, upper_bound + NULL_WINDOW)
        inside = v <= upper_bound
    else:
        v = quiescence(pos, ev, qctx, lower_bound - NULL_WINDOW, upper_bound + NULL_WINDOW)
        inside = lower_bound <= v <= upper_bound
    if inside:
        node, h = add_node(tree, pos, ev, parent, move, ply, depth, flags)
        if node >= 0:
            tree.static[node] = min(max(h, lower_bound), upper_bound)
        return node
    q = quiescence(pos, ev, qctx)
    k = qctx.pv_len[0]
    for j in range(k):
        make_move(pos, np.int64(qctx.pv[0, j]))
    node, h = add_node(tree, pos, ev, parent, move, ply, depth, flags)
    for _ in range(k):
        unmake_move(pos)
    if node < 0:
        return node
    tree.key[node] = current_key(pos)
    sign = 1.0 if k % 2 == 0 else -1.0
    if sign < 0.0:
        tree.static[node] = -h
        for j in range(tree.feat_start[node], tree.feat_start[node + 1]):
            tree.feat_val[j] = -tree.feat_val[j]
    if q != sign * clip_value(h):
        tree.flags[node] |= TERMINAL
    return node


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
    use_quiescence: bool,
    qctx: SearchContext,
    exact_leaves: bool,
) -> None:
    slot = tt_probe(tt, current_key(pos))
    if slot < 0 or tt.depth[slot] < min_depth or tt.visit[slot] == stamp:
        return
    tt.visit[slot] = stamp
    moves = ctx.moves[ply]
    flags = 0 if is_quiet(pos, moves) else NOISY
    if use_quiescence:
        node = _add_quiescence_node(
            tree,
            pos,
            ev,
            qctx,
            parent,
            move,
            ply,
            tt.depth[slot],
            flags,
            tt.lower[slot],
            tt.upper[slot],
            exact_leaves,
        )
    else:
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
            _walk(
                pos,
                ev,
                tt,
                tree,
                ctx,
                ply + 1,
                node,
                m,
                min_depth,
                stamp,
                use_quiescence,
                qctx,
                exact_leaves,
            )
        unmake_move(pos)


def walk_tt(
    pos: Position,
    ev: Evaluator,
    tt: TranspositionTable,
    tree: SearchTree,
    ctx: SearchContext,
    min_depth: int,
    quiescence_ctx: SearchContext | None = None,
    exact_leaves: bool = False,
) -> int:
    """Record the entries of depth >= ``min_depth`` reachable from ``pos`` into
    ``tree`` (reset first); returns the number of nodes recorded. With
    ``quiescence_ctx`` (scratch space of its own) nodes carry quiescence values (module
    docstring; ``exact_leaves``: every node's exact value and leaf). Plain Python on
    purpose: a compiled caller of a recursive kernel would not load from numba's cache."""
    reset_tree(tree)
    tt.meta[1] += 1
    use_q = quiescence_ctx is not None
    qctx = quiescence_ctx if quiescence_ctx is not None else ctx
    # The search that filled the table evaluated most of the positions the walk's
    # quiescence searches reach, with this evaluator: they read its values back.
    qctx = qctx._replace(eval_keys=ctx.eval_keys, eval_values=ctx.eval_values)
    stamp = int(tt.meta[1])
    _walk(pos, ev, tt, tree, ctx, 0, -1, 0, min_depth, stamp, use_q, qctx, exact_leaves)
    return int(tree.meta[0])
