"""What every search keeps as it runs, whatever the game: its counters and its
principal variation.

A game's search context is its own named tuple of preallocated arrays; the searches of
:mod:`treestrap.search.family` read only four of its fields, so any game's context
serves them:

=========  ==============================  ===========================================
field      dtype, shape                    meaning
=========  ==============================  ===========================================
moves      int[MAX_PLY + 1, game's moves]  each ply's move list
pv         int32[MAX_PLY + 1, MAX_PLY + 1] triangular principal-variation table
pv_len     int32[MAX_PLY + 1]              the PV's length at each ply
stats      int64[STATS_NB]                 the counters below
=========  ==============================  ===========================================
"""

from __future__ import annotations

from typing import Any

from treestrap.core.jit import njit
from treestrap.search.value import MAX_PLY

# Slots of ``stats``.
NODES = 0  # main-search nodes (depth >= 1; every node in a game without quiescence)
QNODES = 1  # quiescence nodes
STOPPED = 2  # 1 once a limit stopped the search
SELDEPTH = 3  # deepest ply reached
EVAL_HITS = 4  # static values read back from the evaluation cache
#: Nodes of NODES + QNODES that Stockfish's rule (one node per move made) leaves out:
#: the root of each search call, the position after a null move, and a move's child
#: entered again by a re-search (LMR at full depth, PVS with the full window).
REVISITS = 5
STATS_NB = 6


def reset_counters(ctx: Any) -> None:
    """Forget the last search's principal variation and counters."""
    ctx.pv_len[:] = 0
    ctx.stats[:] = 0


@njit(inline="always")
def update_pv(ctx: Any, ply: int, move: int) -> None:
    """The PV at ``ply`` becomes ``move`` followed by the child's PV."""
    ctx.pv[ply, 0] = move
    child_len = ctx.pv_len[ply + 1] if ply + 1 <= MAX_PLY else 0
    for j in range(child_len):
        ctx.pv[ply, j + 1] = ctx.pv[ply + 1, j]
    ctx.pv_len[ply] = child_len + 1


@njit(inline="always")
def count_node(ctx: Any, ply: int, quiescence: bool) -> None:
    """Count a node of the main search or of quiescence, and the deepest ply reached."""
    ctx.stats[QNODES if quiescence else NODES] += 1
    if ply > ctx.stats[SELDEPTH]:
        ctx.stats[SELDEPTH] = ply


@njit(inline="always")
def searched_nodes(ctx: Any) -> int:
    """Nodes so far, main search and quiescence together."""
    return ctx.stats[NODES] + ctx.stats[QNODES]


@njit(inline="always")
def count_revisit(ctx: Any, nodes_before: int) -> None:
    """Count a call of the search that entered no new position by a move, given the
    nodes before the call: a call stopped at its entry counted no node, so it counts no
    revisit either."""
    if searched_nodes(ctx) > nodes_before:
        ctx.stats[REVISITS] += 1
