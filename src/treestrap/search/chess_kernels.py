"""Chess's kernels for the search family (:mod:`treestrap.search.family`): what the
training alpha-beta, the table walk and the full-tree minimax call as ``game.name``.

Chess searches on below the horizon (quiescence over all captures and promotions, all
evasions when in check, with no pruning that depends on the evaluation weights),
extends a move that gives check by one ply, orders moves by the table move, MVV-LVA,
killers and history (:mod:`treestrap.search.ordering`), and scores draws by
repetition (one earlier occurrence), the fifty-move rule and insufficient material 0
below the root. Each kernel is inlined into the family's searches, which then compile
to what a search written for chess alone would.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from treestrap.core.jit import njit
from treestrap.core.makemove import make_move, unmake_move
from treestrap.core.movegen import generate_captures, generate_moves
from treestrap.core.position import ST_HALFMOVE, Position, current_key, in_check
from treestrap.core.search_tree import BUDGET_LEAF, NOISY, QUIESCENCE, TERMINAL, SearchTree
from treestrap.core.status import is_insufficient_material, is_repetition
from treestrap.evaluation.model import Evaluator
from treestrap.search.context import (
    SearchContext,
    cached_static_value,
    new_context,
    reset_context,
    static_value,
)
from treestrap.search.ordering import pick_next, score_moves, update_quiet_cutoff
from treestrap.search.quiescence import add_quiescence_node
from treestrap.search.quiet import is_quiet
from treestrap.search.scratch import STOPPED
from treestrap.search.tree import add_node
from treestrap.search.value import INFINITE, MAX_PLY, clip_value, mated_in

# What the family's searches call as game.name, whether or not this module does.
__all__ = [
    "add_node",
    "make_move",
    "new_context",
    "reset_context",
    "unmake_move",
]

#: The null move of core/move.py's encoding: no move.
NO_MOVE = 0
#: Nodes at depth <= 0 search on: captures and promotions, evasions when in check.
HAS_QUIESCENCE = True
#: The deepest search asked for: its extensions and quiescence need room below.
MAX_DEPTH = MAX_PLY - 1

position_key = current_key
legal_moves = generate_moves
order = score_moves  # the table move, MVV-LVA, killers, history
next_move = pick_next


def plies_left(pos: Position) -> int:
    """As deep as a search may go: a chess game has no set end."""
    return MAX_DEPTH


@njit(inline="always")
def settled(pos: Position, ev: Evaluator, tt: Any, opts: Any, depth: int, ply: int) -> tuple:
    """A draw by repetition or material below the root, or the deepest ply's static value."""
    if ply > 0 and (is_repetition(pos) or is_insufficient_material(pos)):
        return True, 0.0
    if ply >= MAX_PLY:
        return True, static_value(pos, ev)
    return False, 0.0


@njit(inline="always")
def expand(pos: Position, ctx: SearchContext, ply: int) -> tuple:
    """Every legal move; none is mate or stalemate, and the fifty-move rule draws
    below the root."""
    n = generate_moves(pos, ctx.moves[ply])
    if n == 0:
        return True, (mated_in(ply) if in_check(pos) else 0.0), 0
    if ply > 0 and pos.st[ST_HALFMOVE] >= 100:
        return True, 0.0, 0
    return False, 0.0, n


@njit(inline="always")
def quiescence_moves(
    pos: Position,
    ev: Evaluator,
    ctx: SearchContext,
    key: np.uint64,
    ply: int,
    alpha: float,
    beta: float,
) -> tuple:
    """In check every evasion (none: mated); else the stand pat, cut off at once when
    it reaches beta, and the captures and promotions. ``(settled, best, alpha, n)``."""
    moves = ctx.moves[ply]
    if in_check(pos):
        n = generate_moves(pos, moves)
        if n == 0:
            return True, mated_in(ply), alpha, 0
        if pos.st[ST_HALFMOVE] >= 100:
            return True, 0.0, alpha, 0
        return False, -INFINITE, alpha, n
    if pos.st[ST_HALFMOVE] >= 100:
        return True, 0.0, alpha, 0
    best = cached_static_value(pos, ev, ctx, key)  # stand pat
    if best >= beta:
        return True, best, alpha, 0
    if best > alpha:
        alpha = best
    return False, best, alpha, generate_captures(pos, moves)


@njit(inline="always")
def extension(pos: Position, opts: Any) -> int:
    """One ply for a move that gives check (the position after it is in check)."""
    return 1 if opts.check_extension and in_check(pos) else 0


@njit(inline="always")
def credit_cutoff(
    pos: Position, ctx: SearchContext, ply: int, m: int, depth: int, opts: Any
) -> None:
    """A quiet move that cut off becomes a killer and earns history credit."""
    if not (m & 0xC000):
        update_quiet_cutoff(pos, ctx, ply, m, depth, opts.killers, opts.history)


@njit(inline="always")
def walked_flags(pos: Position, ctx: SearchContext, ply: int) -> tuple:
    """A walked node is ``NOISY`` unless quiet; the walk stops at the deepest ply."""
    return (0 if is_quiet(pos, ctx.moves[ply]) else NOISY), ply >= MAX_PLY


@njit(inline="always")
def add_valued_node(
    tree: SearchTree,
    pos: Position,
    ev: Evaluator,
    values: tuple,
    parent: int,
    move: int,
    ply: int,
    depth: int,
    flags: int,
    lower: float,
    upper: float,
) -> int:
    """A walked node valued by Q(s) (``values``: the quiescence searches' context,
    whether every node gets its exact leaf), as
    :func:`~treestrap.search.quiescence.add_quiescence_node` says."""
    qctx, exact_leaves = values
    return add_quiescence_node(
        tree, pos, ev, qctx, parent, move, ply, depth, flags, lower, upper, exact_leaves
    )


@njit(inline="always")
def node_kind(pos: Position, ctx: SearchContext, lim: Any, ply: int, quiet: bool) -> int:
    """``QUIESCENCE`` below the horizon, and ``NOISY`` when asked for and not quiet."""
    kind = QUIESCENCE if quiet else 0
    if lim.mark_noisy and not is_quiet(pos, ctx.moves[ply]):
        kind |= NOISY
    return kind


@njit(inline="always")
def minimax_moves(
    pos: Position,
    ctx: SearchContext,
    lim: Any,
    depth: int,
    ply: int,
    quiet: bool,
    h: float,
    leaf_q: np.ndarray,
) -> tuple:
    """A minimax node's ``(flags, value, n)``: the draws and mates (``TERMINAL``), a
    static leaf once a budget or the deepest ply is reached (``BUDGET_LEAF``), the stand
    pat and captures below the horizon (every evasion in check), else every move."""
    moves = ctx.moves[ply]
    checked = in_check(pos)
    if ply > 0 and (is_repetition(pos) or is_insufficient_material(pos)):
        return TERMINAL, 0.0, -1
    budget_spent = lim.max_qnodes_per_leaf > 0 and leaf_q[0] > lim.max_qnodes_per_leaf
    if ply >= MAX_PLY or ctx.stats[STOPPED] or (quiet and budget_spent):
        return BUDGET_LEAF, clip_value(h), -1
    if quiet and not checked:
        if pos.st[ST_HALFMOVE] >= 100:
            return TERMINAL, 0.0, -1
        return 0, clip_value(h), generate_captures(pos, moves)  # stand pat
    n = generate_moves(pos, moves)
    if n == 0:
        return TERMINAL, (mated_in(ply) if checked else 0.0), -1
    if ply > 0 and pos.st[ST_HALFMOVE] >= 100:
        return TERMINAL, 0.0, -1
    return 0, -np.inf, n


@njit(inline="always")
def minimax_extension(pos: Position, lim: Any) -> int:
    """One ply for a move that gives check, when the limits ask for it."""
    return 1 if lim.check_extension and in_check(pos) else 0
