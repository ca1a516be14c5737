"""Score units and conventions (Veness et al. 2009, section 5).

Scores are floats from the side to move's point of view. Terminal positions score
-9999 (loss), 0 (draw), +9999 (win); a mate found ``ply`` plies from the root scores
``MATE - ply`` (or ``-(MATE - ply)``) so shorter mates are preferred. Heuristic values
are clipped to ``+-VALUE_CLIP`` inside searches, which keeps every mate score (at most
``MAX_PLY`` plies deep) strictly outside the heuristic range.
"""

from __future__ import annotations

from treestrap.core.jit import njit
from treestrap.core.position import Position
from treestrap.evaluation.model import Evaluator, evaluate

MATE = 9999.0
DRAW = 0.0
VALUE_CLIP = 9900.0
#: Deepest ply any search reaches (main search, extensions and quiescence together).
#: Kept below MATE - VALUE_CLIP = 99 so a mate score can never look like a heuristic one.
MAX_PLY = 96
#: Any score at least this large in magnitude is a mate score.
MATE_BOUND = MATE - MAX_PLY
INFINITE = float("inf")


@njit(inline="always")
def mate_in(ply: int) -> float:
    """Score of giving mate ``ply`` plies from the root."""
    return MATE - ply


@njit(inline="always")
def mated_in(ply: int) -> float:
    """Score of being mated ``ply`` plies from the root."""
    return -MATE + ply


@njit(inline="always")
def clip_value(v: float) -> float:
    """A heuristic value as used in search: clipped to +-VALUE_CLIP."""
    if v > VALUE_CLIP:
        return VALUE_CLIP
    if v < -VALUE_CLIP:
        return -VALUE_CLIP
    return v


@njit(inline="always")
def static_value(pos: Position, ev: Evaluator) -> float:
    """The heuristic value of ``pos`` for the side to move, clipped as searches use it."""
    return clip_value(evaluate(pos, ev))


@njit(inline="always")
def value_to_node(v: float, ply: int) -> float:
    """A root-relative score at ``ply`` as seen from that node (mate distances counted
    from the node): the form stored in tables and tree records."""
    if v >= MATE_BOUND:
        return v + ply
    if v <= -MATE_BOUND:
        return v - ply
    return v


@njit(inline="always")
def value_from_node(v: float, ply: int) -> float:
    """Inverse of :func:`value_to_node`."""
    if v >= MATE_BOUND:
        return v - ply
    if v <= -MATE_BOUND:
        return v + ply
    return v


def format_value(v: float) -> str:
    """``+1.25``-style pawns for heuristic values (100 = one pawn), ``mate 3`` for mates."""
    if abs(v) >= MATE_BOUND:
        plies = round(MATE - abs(v))
        moves = (plies + 1) // 2
        return f"mate {moves if v > 0 else -moves}"
    return f"{v / 100:+.2f}"
