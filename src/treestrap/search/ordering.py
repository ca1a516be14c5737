"""Move ordering that knows nothing of the evaluation weights (as the training search
requires): the transposition-table move, captures by MVV-LVA, killer moves, then the
history heuristic.

The search calls these with its :class:`treestrap.search.context.SearchContext` and a
ply: they read and update that ply's move list, scores and killers, and the history.
"""

from __future__ import annotations

import numpy as np

from treestrap.core.jit import njit
from treestrap.core.move import move_from, move_to
from treestrap.core.piece import NO_PIECE, PAWN, QUEEN
from treestrap.core.position import Position
from treestrap.search.context import SearchContext

TT_MOVE_SCORE = 1 << 40
CAPTURE_SCORE = 1 << 32
KILLER_SCORE = 1 << 31
#: History counters are halved when they reach this, so quiet moves stay below killers.
HISTORY_MAX = 1 << 30


@njit(inline="always")
def mvv_lva(pos: Position, m: int) -> int:
    """Most valuable victim first, then least valuable attacker (types pawn..king)."""
    # int(): the board holds int8s; compiled code widens them anyway, plain Python
    # (NUMBA_DISABLE_JIT=1) would keep int8 and overflow when the score is added.
    victim = int(pos.board[move_to(m)])
    victim_type = PAWN if victim == NO_PIECE else victim % 6  # en passant takes a pawn
    attacker_type = int(pos.board[move_from(m)]) % 6
    return victim_type * 8 + 7 - attacker_type


@njit
def score_moves(pos: Position, ctx: SearchContext, ply: int, n: int, tt_move: int) -> None:
    """Score the first ``n`` moves of the list at ``ply`` for :func:`pick_next`."""
    moves = ctx.moves[ply]
    scores = ctx.scores[ply]
    killers = ctx.killers[ply]
    side = pos.st[0]
    for i in range(n):
        m = moves[i]
        if m == tt_move:
            scores[i] = TT_MOVE_SCORE
        elif m & 0x4000:  # capture
            scores[i] = CAPTURE_SCORE + mvv_lva(pos, m) * 16
        elif m & 0x8000:  # quiet promotion: queen first
            scores[i] = CAPTURE_SCORE + (((m >> 12) & 3) + 1 == QUEEN) * 8
        elif m == killers[0]:
            scores[i] = KILLER_SCORE + 1
        elif m == killers[1]:
            scores[i] = KILLER_SCORE
        else:
            scores[i] = ctx.history[side, move_from(m), move_to(m)]


@njit(inline="always")
def pick_next(ctx: SearchContext, ply: int, i: int, n: int) -> int:
    """Swap the best-scored move of ``[i, n)`` at ``ply`` into slot ``i`` and return it
    (one selection-sort step: cheap when a cut-off comes early)."""
    moves = ctx.moves[ply]
    scores = ctx.scores[ply]
    best = i
    for j in range(i + 1, n):
        if scores[j] > scores[best]:
            best = j
    if best != i:
        moves[i], moves[best] = moves[best], moves[i]
        scores[i], scores[best] = scores[best], scores[i]
    return moves[i]


@njit(inline="always")
def is_killer(ctx: SearchContext, ply: int, m: int) -> bool:
    return m == ctx.killers[ply, 0] or m == ctx.killers[ply, 1]


@njit
def _halve(history: np.ndarray) -> None:
    """Age every history score (a loop: no temporary array)."""
    flat = history.reshape(-1)
    for i in range(flat.size):
        flat[i] //= 2


@njit(inline="always")
def update_quiet_cutoff(
    pos: Position,
    ctx: SearchContext,
    ply: int,
    m: int,
    depth: int,
    use_killers: bool,
    use_history: bool,
) -> None:
    """A quiet move caused a beta cut-off: remember it as a killer, credit its history."""
    killers = ctx.killers[ply]
    if use_killers and killers[0] != m:
        killers[1] = killers[0]
        killers[0] = m
    if not use_history:
        return
    history = ctx.history
    side = pos.st[0]
    h = history[side, move_from(m), move_to(m)] + depth * depth
    history[side, move_from(m), move_to(m)] = h
    if h >= HISTORY_MAX:
        _halve(history)
