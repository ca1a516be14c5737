"""Perft for Connect Four: the number of move sequences of a given length, a game that
ends (four made) ending its sequences there. It checks the move generator, make/unmake
and the end-of-game test against another implementation's counts."""

from __future__ import annotations

import numpy as np

from treestrap.connect4.bits import CELLS, WIDTH
from treestrap.connect4.board import Position, legal_moves, make_move, unmake_move
from treestrap.core.jit import njit


@njit
def perft_kernel(pos: Position, depth: np.int64, stack: np.ndarray) -> np.int64:
    moves = stack[depth]
    n = legal_moves(pos, moves)
    if depth == 1:
        return np.int64(n)
    total = np.int64(0)
    for i in range(n):
        make_move(pos, moves[i])
        total += perft_kernel(pos, np.int64(depth - 1), stack)
        unmake_move(pos)
    return total


def perft(pos: Position, depth: int) -> int:
    """Leaves of the legal move tree ``depth`` plies deep (1 for depth 0)."""
    if not 0 <= depth <= CELLS:
        raise ValueError(f"perft depth must be in 0..{CELLS}, got {depth}")
    if depth == 0:
        return 1
    stack = np.zeros((depth + 1, WIDTH), dtype=np.int64)
    return int(perft_kernel(pos, np.int64(depth), stack))
