"""Score units and conventions of every game's searches (Veness et al. 2009, section 5).

Scores are floats from the side to move's point of view. Terminal positions score
-9999 (loss), 0 (draw), +9999 (win); a mate (in Connect Four: a win) found ``ply``
plies from the root scores ``MATE - ply`` (or ``-(MATE - ply)``) so shorter mates are
preferred. Heuristic values are clipped to ``+-VALUE_CLIP`` inside searches, which
keeps every mate score (at most ``MAX_PLY`` plies deep) strictly outside the heuristic
range: one bound, ``MATE_BOUND``, tells them apart in every game.

Game-neutral: the searches of :mod:`treestrap.search.family` and every game's kernels
share these units (a chess position's static value is in
:mod:`treestrap.search.context`).
"""

from __future__ import annotations

from treestrap.core.jit import njit

MATE = 9999.0
DRAW = 0.0
VALUE_CLIP = 9900.0
#: Deepest ply any search reaches (chess's main search, extensions and quiescence
#: together; a game of Connect Four lasts at most 42 plies). Kept below
#: MATE - VALUE_CLIP = 99 so a mate score can never look like a heuristic one.
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
