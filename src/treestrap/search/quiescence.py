"""A position's quiescence value Q(s) and its principal leaf, for learning.

The training search never evaluates an interior node statically: at its horizon it
calls a quiescence search, so the heuristic it actually uses at a node ``s`` is
Q(s), the value of the captures (all evasions in check) from ``s`` down to quiet
positions, each scored by H. Asking H(s) itself to match a node's search value asks a
static evaluation to see the captures at hand, and it cannot: with the hand-set
weights the recorded nodes of depth-3 training searches sit about +220 above their
static values for the side to move (60 middlegame roots of twic0920), and the learned
weights grow into a bonus for whoever is to move. Q(s) against the same bounds is
off by +3.
So TreeStrap's ``--node-value quiescence`` moves Q(s) instead, through the gradient
of H at the principal quiescence leaf l(s) (as TD-Leaf moves the principal leaf):
``dQ(s)/dtheta = (-1)^k dH(l(s))/dtheta`` for a leaf ``k`` plies below ``s``.

:func:`quiescence` is the quiescence branch of the training alpha-beta
(:func:`treestrap.search.training.alphabeta`) with a full window, written as a loop
over an explicit stack: a recursive kernel may not call another recursive kernel
(see :mod:`treestrap.core.jit`), and the table walk that calls this one is recursive.
:func:`add_quiescence_node` records a node of that walk with Q(s) and the signed
gradient of H at l(s); a node whose quiescence value is not H's (a mate or a draw
inside the quiescence search) is flagged ``TERMINAL``.
"""

from __future__ import annotations

import numpy as np

from treestrap.core.jit import njit
from treestrap.core.makemove import make_move, unmake_move
from treestrap.core.movegen import generate_captures, generate_moves
from treestrap.core.position import ST_HALFMOVE, Position, current_key, in_check
from treestrap.core.search_tree import TERMINAL, SearchTree
from treestrap.core.status import is_insufficient_material, is_repetition
from treestrap.evaluation.model import Evaluator
from treestrap.search.context import SearchContext, cached_static_value, static_value
from treestrap.search.ordering import pick_next, score_moves
from treestrap.search.scratch import update_pv
from treestrap.search.tree import add_node
from treestrap.search.value import INFINITE, MAX_PLY, clip_value, mated_in

#: Nodes one quiescence search may visit before the rest of its nodes stand pat: a
#: safety valve (a typical middlegame node needs tens); it bounds the cost of a pathological
#: capture sequence, not the value of ordinary ones.
QUIESCENCE_NODES = 20_000


@njit(inline="always")
def _enter(
    pos: Position,
    ev: Evaluator,
    ctx: SearchContext,
    ply: int,
    alpha: np.ndarray,
    beta: np.ndarray,
    best: np.ndarray,
    count: np.ndarray,
    nodes: int,
) -> bool:
    """Set up the node at ``ply``; returns True if it is already decided (its value in
    ``best[ply]``), False if its moves (``count[ply]``) are to be searched."""
    ctx.pv_len[ply] = 0
    if ply > 0 and (is_repetition(pos) or is_insufficient_material(pos)):
        best[ply] = 0.0
        return True
    if ply >= MAX_PLY - 1 or nodes >= QUIESCENCE_NODES:
        best[ply] = static_value(pos, ev)
        return True
    moves = ctx.moves[ply]
    if in_check(pos):
        n = generate_moves(pos, moves)
        if n == 0:
            best[ply] = mated_in(ply)
            return True
        if pos.st[ST_HALFMOVE] >= 100:
            best[ply] = 0.0
            return True
        best[ply] = -INFINITE
    else:
        if pos.st[ST_HALFMOVE] >= 100:
            best[ply] = 0.0
            return True
        stand = cached_static_value(pos, ev, ctx, current_key(pos))
        best[ply] = stand
        if stand >= beta[ply]:
            return True
        if stand > alpha[ply]:
            alpha[ply] = stand
        n = generate_captures(pos, moves)
    score_moves(pos, ctx, ply, n, 0)
    count[ply] = n
    return False


@njit
def quiescence(
    pos: Position,
    ev: Evaluator,
    ctx: SearchContext,
    alpha0: float = -INFINITE,
    beta0: float = INFINITE,
) -> float:
    """Quiescence value of ``pos`` for the side to move (mate scores count plies from
    ``pos``), fail-soft within ``(alpha0, beta0)`` as :func:`alphabeta` is: exact inside
    the window (the full window by default), a bound at or beyond it. Its principal
    variation is left in ``ctx.pv[0, :ctx.pv_len[0]]``. Uses ``ctx``'s move lists, PV
    table and quiescence stacks, and its evaluation cache, which must hold values of
    this evaluator (a search's own, or one cleared by
    :func:`~treestrap.search.context.reset_context`)."""
    alpha, beta, best = ctx.q_bounds[0], ctx.q_bounds[1], ctx.q_bounds[2]
    count, index, played = ctx.q_moves[0], ctx.q_moves[1], ctx.q_moves[2]
    index[0] = 0
    alpha[0] = alpha0
    beta[0] = beta0
    ply = 0
    nodes = 1
    done = _enter(pos, ev, ctx, 0, alpha, beta, best, count, nodes)
    while True:
        if not done and index[ply] < count[ply]:
            m = pick_next(ctx, ply, index[ply], count[ply])
            index[ply] += 1
            played[ply] = m
            make_move(pos, m)
            ply += 1
            nodes += 1
            alpha[ply] = -beta[ply - 1]
            beta[ply] = -alpha[ply - 1]
            index[ply] = 0
            done = _enter(pos, ev, ctx, ply, alpha, beta, best, count, nodes)
            continue
        # The node at ply is finished: hand its value to the parent.
        if ply == 0:
            return best[0]
        v = -best[ply]
        unmake_move(pos)
        ply -= 1
        done = False
        if v > best[ply]:
            best[ply] = v
            update_pv(ctx, ply, played[ply])
            if v > alpha[ply]:
                alpha[ply] = v
            if v >= beta[ply]:
                done = True


#: Width of the null windows that test a quiescence value against a bound: any
#: positive width decides the test; this one is a hundredth of a centipawn.
NULL_WINDOW = 0.01


@njit
def add_quiescence_node(
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
