"""Move ordering that knows nothing of the evaluation weights (as the training search
requires): the transposition-table move, captures by MVV-LVA, killer moves, then the
history heuristic.
"""

from __future__ import annotations

import numpy as np

from treestrap.core.jit import njit
from treestrap.core.move import move_from, move_to
from treestrap.core.piece import NO_PIECE, PAWN, QUEEN
from treestrap.core.position import Position

TT_MOVE_SCORE = 1 << 40
CAPTURE_SCORE = 1 << 32
KILLER_SCORE = 1 << 31
#: History counters are halved when they reach this, so quiet moves stay below killers.
HISTORY_MAX = 1 << 30


@njit(inline="always")
def mvv_lva(pos: Position, m: int) -> int:
    """Most valuable victim first, then least valuable attacker (types pawn..king)."""
    victim = pos.board[move_to(m)]
    victim_type = PAWN if victim == NO_PIECE else victim % 6  # en passant takes a pawn
    attacker_type = pos.board[move_from(m)] % 6
    return victim_type * 8 + 7 - attacker_type


@njit
def score_moves(
    pos: Position,
    moves: np.ndarray,
    scores: np.ndarray,
    n: int,
    tt_move: int,
    killers: np.ndarray,
    history: np.ndarray,
) -> None:
    """Fill ``scores[:n]`` for ``moves[:n]``; ``killers`` is this ply's pair."""
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
            scores[i] = history[side, move_from(m), move_to(m)]


@njit(inline="always")
def pick_next(moves: np.ndarray, scores: np.ndarray, i: int, n: int) -> int:
    """Swap the best-scored move of ``[i, n)`` into slot ``i`` and return it (one
    selection-sort step: cheap when a cut-off comes early)."""
    best = i
    for j in range(i + 1, n):
        if scores[j] > scores[best]:
            best = j
    if best != i:
        moves[i], moves[best] = moves[best], moves[i]
        scores[i], scores[best] = scores[best], scores[i]
    return moves[i]


@njit(inline="always")
def update_quiet_cutoff(
    pos: Position,
    m: int,
    depth: int,
    killers: np.ndarray,
    history: np.ndarray,
    use_killers: bool,
    use_history: bool,
) -> None:
    """A quiet move caused a beta cut-off: remember it as a killer, credit its history."""
    if use_killers and killers[0] != m:
        killers[1] = killers[0]
        killers[0] = m
    if not use_history:
        return
    side = pos.st[0]
    h = history[side, move_from(m), move_to(m)] + depth * depth
    history[side, move_from(m), move_to(m)] = h
    if h >= HISTORY_MAX:
        history[:, :, :] //= 2
