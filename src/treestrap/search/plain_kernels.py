"""The search-family kernels of a game without captures (Connect Four, a test's
tic-tac-toe): no quiescence search, no extensions, no killers or history. Written once
and compiled per game, like the family's searches (:func:`instantiate_plain`).

Each reads, as ``game.name``, what its game module offers besides: ``end_value(pos,
ply) -> (over, value)`` (a finished game's value for the side to move, a loss
``mated_in(ply)``), ``ordered_moves(pos, buffer) -> n`` (its legal moves in the order
it wants searched), ``evaluate``, ``evaluate_gradient``, ``position_key`` and
``NO_MOVE``; it gets the family's node recording (:func:`~treestrap.search.node.add_node`)
as well. A node at the
horizon takes its static value, clipped to the heuristic range; a finished game is
stored in the table (exact), so the walk reaches it and flags it ``TERMINAL`` (the
learning rules leave such nodes out). The table's move is searched first.
"""

from __future__ import annotations

import types
from typing import Any, NamedTuple

import numpy as np

from treestrap.core.search_tree import TERMINAL
from treestrap.search.family import instantiate
from treestrap.search.node import add_node
from treestrap.search.scratch import STATS_NB, STOPPED
from treestrap.search.tt import tt_store
from treestrap.search.value import clip_value, value_to_node

game: Any = None  # each compiled copy's own game module (search/family.py)


class PlainSearchOptions(NamedTuple):
    """The training alpha-beta's options for a game without captures."""

    use_tt: bool = True
    #: False searches every child with a full window and never cuts off: every node
    #: then gets its exact minimax value (the tests check the walk with it).
    prune: bool = True
    #: Stop once this many nodes are searched; 0 = no limit.
    max_nodes: int = 0
    #: True lets a table entry of a deeper search cut a node off (a playing search's
    #: rule); False, the training rule, only one of exactly the node's depth.
    deeper_cutoffs: bool = False


class PlainMinimaxLimits(NamedTuple):
    """The full-tree minimax's limits for a game without captures."""

    #: tree nodes before the search stops; 0 = no limit
    max_nodes: int = 0


class PlainContext(NamedTuple):
    """A search's scratch (:mod:`treestrap.search.scratch` says what each field holds)."""

    moves: np.ndarray  # int64[max_ply + 1, width] move lists by ply
    pv: np.ndarray  # int32[max_ply + 1, max_ply + 1] triangular PV table
    pv_len: np.ndarray  # int32[max_ply + 1]
    stats: np.ndarray  # int64[STATS_NB]


def new_plain_context(max_ply: int, width: int) -> PlainContext:
    """Scratch for searches of at most ``max_ply`` plies, ``width`` moves a position."""
    return PlainContext(
        moves=np.zeros((max_ply + 1, width), dtype=np.int64),
        pv=np.zeros((max_ply + 1, max_ply + 1), dtype=np.int32),
        pv_len=np.zeros(max_ply + 1, dtype=np.int32),
        stats=np.zeros(STATS_NB, dtype=np.int64),
    )


def settled(pos: Any, ev: Any, tt: Any, opts: Any, depth: int, ply: int) -> tuple:
    """A finished game (stored in the table, exact) or the horizon's static value."""
    over, v = game.end_value(pos, ply)
    if over:
        if opts.use_tt and depth > 0:
            node_value = value_to_node(v, ply)
            tt_store(tt, game.position_key(pos), depth, node_value, node_value, game.NO_MOVE)
        return True, v
    if depth <= 0:
        return True, clip_value(game.evaluate(pos, ev))
    return False, 0.0


def expand(pos: Any, ctx: Any, ply: int) -> tuple:
    """The moves in the game's order (a game that goes on has one)."""
    return False, 0.0, game.ordered_moves(pos, ctx.moves[ply])


def order(pos: Any, ctx: Any, ply: int, n: int, tt_move: int) -> None:
    """The table's move first, the rest in their order."""
    if tt_move == game.NO_MOVE:
        return
    moves = ctx.moves[ply]
    for i in range(1, n):
        if moves[i] == tt_move:
            for j in range(i, 0, -1):
                moves[j] = moves[j - 1]
            moves[0] = tt_move
            return


def next_move(ctx: Any, ply: int, i: int, n: int) -> int:
    return ctx.moves[ply, i]


def quiescence_moves(
    pos: Any, ev: Any, ctx: Any, key: Any, ply: int, alpha: float, beta: float
) -> tuple:
    """Never called (no ``HAS_QUIESCENCE``)."""
    return True, 0.0, alpha, 0


def extension(pos: Any, opts: Any) -> int:
    return 0


def credit_cutoff(pos: Any, ctx: Any, ply: int, m: int, depth: int, opts: Any) -> None:
    return None


def walked_flags(pos: Any, ctx: Any, ply: int) -> tuple:
    """A finished game is flagged ``TERMINAL``, and the walk stops there."""
    over = game.end_value(pos, ply)[0]
    return (TERMINAL if over else 0), over


def node_kind(pos: Any, ctx: Any, lim: Any, ply: int, quiet: bool) -> int:
    return 0


def minimax_moves(
    pos: Any, ctx: Any, lim: Any, depth: int, ply: int, quiet: bool, h: float, leaf_q: Any
) -> tuple:
    """A minimax node's ``(flags, value, n)``: a finished game (``TERMINAL``), a leaf's
    clipped static value at the horizon or once the search stopped, else its moves."""
    over, value = game.end_value(pos, ply)
    if over:
        return TERMINAL, value, -1
    if depth <= 0 or ctx.stats[STOPPED]:
        return 0, clip_value(h), -1
    return 0, -np.inf, game.ordered_moves(pos, ctx.moves[ply])


def minimax_extension(pos: Any, lim: Any) -> int:
    return 0


#: The kernels a game module takes from here.
PLAIN_KERNELS = (
    settled,
    expand,
    order,
    next_move,
    quiescence_moves,
    extension,
    credit_cutoff,
    walked_flags,
    node_kind,
    minimax_moves,
    minimax_extension,
)


def instantiate_plain(module: types.ModuleType) -> None:
    """Give the game ``module`` every kernel of :data:`PLAIN_KERNELS`, compiled for it
    (inlined where the family's searches call them, as a kernel written for it would
    be); ``module`` offers what the module docstring lists."""
    module.HAS_QUIESCENCE = False
    for function in PLAIN_KERNELS:
        setattr(module, function.__name__, instantiate(function, module, inline="always"))
    module.add_node = instantiate(add_node, module)
