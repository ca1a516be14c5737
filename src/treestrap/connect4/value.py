"""Score units of the Connect Four searches, the same as chess's (Veness et al. 2009,
section 5; chess's are in ``search/value.py``, which this package does not import).

Scores are floats for the side to move. A win found ``ply`` plies from the root scores
``WIN - ply`` (9999 less the plies), a loss ``-(WIN - ply)``, a draw 0; quicker wins score
more. Heuristic values are clipped to ``+-VALUE_CLIP`` inside the searches, and a game
lasts at most 42 plies, so every win score lies strictly outside the heuristic range.
"""

from __future__ import annotations

from treestrap.connect4.bits import CELLS
from treestrap.core.jit import njit

WIN = 9999.0
DRAW = 0.0
VALUE_CLIP = 9900.0
#: Deepest ply a search reaches: the board is full after 42 discs.
MAX_PLY = CELLS
#: Any score at least this large in magnitude is a win or a loss (a root-relative
#: score has at most 42 plies in it, a node-relative one too).
WIN_BOUND = WIN - 2 * MAX_PLY
INFINITE = float("inf")


@njit(inline="always")
def win_in(ply: int) -> float:
    """Score of winning ``ply`` plies from the root."""
    return WIN - ply


@njit(inline="always")
def loss_in(ply: int) -> float:
    """Score of having lost ``ply`` plies from the root."""
    return -WIN + ply


@njit(inline="always")
def clip_value(v: float) -> float:
    """A heuristic value as the searches use it: clipped to +-VALUE_CLIP."""
    if v > VALUE_CLIP:
        return VALUE_CLIP
    if v < -VALUE_CLIP:
        return -VALUE_CLIP
    return v


@njit(inline="always")
def value_to_node(v: float, ply: int) -> float:
    """A root-relative score at ``ply`` as seen from that node (win distances counted
    from the node): the form stored in tables and tree records."""
    if v >= WIN_BOUND:
        return v + ply
    if v <= -WIN_BOUND:
        return v - ply
    return v


@njit(inline="always")
def value_from_node(v: float, ply: int) -> float:
    """Inverse of :func:`value_to_node`."""
    if v >= WIN_BOUND:
        return v - ply
    if v <= -WIN_BOUND:
        return v + ply
    return v


def format_value(v: float) -> str:
    """``+12.5``-style points for heuristic values, ``win in 3`` / ``loss in 4`` (plies)."""
    if abs(v) >= WIN_BOUND:
        plies = round(WIN - abs(v))
        return f"win in {plies}" if v > 0 else f"loss in {plies}"
    return f"{v:+.1f}"
