"""The tournament search's history of quiet moves: a bonus for the move that cut off, a
malus for the quiet moves tried before it, both pulled towards a bound.

The training search keeps its own plain history (:mod:`treestrap.search.ordering`), so
what it learns from is unchanged. Here each update moves a score by ``bonus - h *
|bonus| / HISTORY_LIMIT`` (a "gravity" rule): scores saturate near the bound instead of
growing until halved, so a move that stops cutting off loses its place within a few
updates. The scores order quiet moves (below killers) and reduce or deepen late moves
(:func:`history_reduction`).
"""

from __future__ import annotations

import numpy as np

from treestrap.core.jit import njit
from treestrap.core.move import move_from, move_to
from treestrap.core.position import Position
from treestrap.search.context import SearchContext
from treestrap.search.ordering import update_quiet_cutoff

#: Scores stay within +-HISTORY_LIMIT (far below the killers' ordering score).
HISTORY_LIMIT = 16_384
#: The largest bonus of one cut-off (reached from depth 8 on).
MAX_BONUS = 1_024
#: One ply less (or more) of late move reduction for this much history.
HISTORY_PER_PLY = 8_192


@njit(inline="always")
def _pull(history: np.ndarray, side: int, m: int, bonus: int) -> None:
    frm, to = move_from(m), move_to(m)
    h = history[side, frm, to]
    history[side, frm, to] = h + bonus - h * abs(bonus) // HISTORY_LIMIT


@njit
def credit_quiet_cutoff(pos: Position, ctx: SearchContext, ply: int, i: int, depth: int) -> None:
    """The quiet move in slot ``i`` of ``ply``'s list cut off: it becomes a killer and
    gains history; the quiet moves in the slots before it (tried first, or pruned)
    lose as much."""
    moves = ctx.moves[ply]
    m = moves[i]
    update_quiet_cutoff(pos, ctx, ply, m, depth, True, False)  # the killers only
    bonus = min(16 * depth * depth, MAX_BONUS)
    side = pos.st[0]
    _pull(ctx.history, side, m, bonus)
    for j in range(i):
        tried = moves[j]
        if (tried & 0xC000) == 0:
            _pull(ctx.history, side, tried, -bonus)


@njit(inline="always")
def history_reduction(pos: Position, ctx: SearchContext, m: int) -> int:
    """Plies of reduction a quiet move's history takes off (negative: adds), -2..2."""
    h = ctx.history[pos.st[0], move_from(m), move_to(m)]
    return max(-2, min(2, int(h / HISTORY_PER_PLY)))
