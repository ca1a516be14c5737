"""Perft: count the leaves of the legal move tree, the standard test of a move
generator (published counts exist for many positions).

``bulk=True`` counts the moves at the last ply without playing them; ``bulk=False``
makes and unmakes every leaf move, which also exercises make/unmake and hashing.
"""

from __future__ import annotations

import numpy as np

from treestrap.core.jit import njit
from treestrap.core.makemove import make_move, unmake_move
from treestrap.core.move import MAX_MOVES
from treestrap.core.movegen import generate_moves
from treestrap.core.position import Position

#: Deepest perft the preallocated move stack supports.
MAX_PERFT_DEPTH = 64


def new_move_stack(depth: int = MAX_PERFT_DEPTH) -> np.ndarray:
    """A ``[depth, MAX_MOVES]`` int32 buffer: one move list per ply."""
    return np.zeros((max(depth, 1), MAX_MOVES), dtype=np.int32)


@njit
def perft_kernel(pos: Position, depth: int, ply: int, stack: np.ndarray, bulk: bool) -> int:
    moves = stack[ply]
    n = generate_moves(pos, moves)
    if depth == 1 and bulk:
        return n
    total = 0
    for i in range(n):
        make_move(pos, moves[i])
        if depth == 1:
            total += 1
        else:
            total += perft_kernel(pos, depth - 1, ply + 1, stack, bulk)
        unmake_move(pos)
    return total


def perft(pos: Position, depth: int, bulk: bool = True) -> int:
    """Number of leaf nodes of the legal move tree of ``depth`` plies."""
    if depth < 0 or depth > MAX_PERFT_DEPTH:
        raise ValueError(f"perft depth must be in 0..{MAX_PERFT_DEPTH}, got {depth}")
    if depth == 0:
        return 1
    return int(perft_kernel(pos, depth, 0, new_move_stack(depth), bulk))


def divide(pos: Position, depth: int, bulk: bool = True) -> list[tuple[int, int]]:
    """Perft split by root move: ``[(move, leaf count), ...]`` (``depth >= 1``)."""
    if depth < 1 or depth > MAX_PERFT_DEPTH:
        raise ValueError(f"divide depth must be in 1..{MAX_PERFT_DEPTH}, got {depth}")
    # The root loop is Python: a compiled caller of the recursive kernel would not load
    # from numba's cache (see treestrap.core.jit).
    stack = new_move_stack(depth)
    n = generate_moves(pos, stack[0])
    rows = []
    for move in [int(m) for m in stack[0, :n]]:
        make_move(pos, move)
        count = 1 if depth == 1 else perft_kernel(pos, depth - 1, 1, stack, bulk)
        unmake_move(pos)
        rows.append((move, int(count)))
    return rows
