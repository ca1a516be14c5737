"""Turning search results into learning targets and weight changes.

The record of a finished search (:class:`treestrap.search.tree.SearchTree`) holds, per
node, the model's value H(s), its gradient dH/dtheta (sparse) and bounds on the search
value. From it:

* exact targets (minimax, or alpha-beta without cut-offs): ``delta = V(s) - H(s)``;
* one-sided targets (alpha-beta bounds, Veness et al. section 4): ``delta = a(s) - H(s)``
  if H(s) is above the upper bound ``a(s)``, ``b(s) - H(s)`` if below the lower bound
  ``b(s)``, else 0 (an exact value is both bounds, so this covers the exact case too);

and ``delta_theta = eta * sum_s delta(s) * dH(s)/dtheta``.

Targets are clipped to the heuristic range (+-9900): a mate score says "won", which
the heuristic can express as its largest value but not as a distance to mate. A
smaller ``clip`` (``--target-clip``) stops there: a linear evaluation fitted to mate
scores of +-9900 grows every material weight of the side that mates (in self-play from
the hand-set weights the pawn went from 117 to 377 in 100 games), while with a clip of
some pawns a position that is already that far ahead takes no pull from its mates.
Terminal positions (mate, stalemate, draws by rule) carry no heuristic value in
search and are left out.

The objective turns a target T and a value H into the error ``delta`` that multiplies
dH/dtheta, always in value units (so one step size serves every objective):

* ``squared`` (the paper): ``0.5 (T - H)^2``, ``delta = T - H``;
* ``cross-entropy``: H read as a win probability ``p(H) = (1 + tanh(beta H)) / 2``
  (KnightCap's squash: one pawn is a quarter of the way to a win), soft cross-entropy
  towards ``p(T)`` (Serban's Table 4.1), ``delta = (tanh(beta T) - tanh(beta H)) / beta``;
* ``squashed``: squared error between the squashed values,
  ``delta = (tanh(beta T) - tanh(beta H)) (1 - tanh(beta H)^2) / beta``.

All three equal ``T - H`` for small values. The squashed two bound a node's pull by
about a queen: a mate target (+-9900) from a position the heuristic calls level moves
the weights like a 4-pawn error (``1 / beta``), not a 99-pawn one, so the few mating
trees of a game no longer outweigh its many quiet ones.
"""

from __future__ import annotations

import numpy as np

from treestrap.learn.shared_options import OBJECTIVES
from treestrap.learn.temporal import BETA
from treestrap.search.tree import NOISY, QUIESCENCE, TERMINAL, SearchTree
from treestrap.search.value import VALUE_CLIP


def objective_deltas(static: np.ndarray, target: np.ndarray, objective: str) -> np.ndarray:
    """The error ``delta`` of each value ``static`` against its ``target`` under
    ``objective`` (module docstring), in value units."""
    if objective == "squared":
        return target - static
    t_h = np.tanh(BETA * static)
    gap = (np.tanh(BETA * target) - t_h) / BETA
    if objective == "cross-entropy":
        return gap
    if objective == "squashed":
        return gap * (1.0 - t_h * t_h)
    raise ValueError(f"unknown objective {objective!r}: {', '.join(OBJECTIVES)}")


def bounded_deltas(
    static: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    objective: str = "squared",
    clip: float = VALUE_CLIP,
) -> np.ndarray:
    """One-sided errors: towards the violated bound, 0 inside ``[lower, upper]``.

    Values are compared as the clip maps them (``v -> clip(v, -clip, clip)``, bounds
    and ``static`` alike): a value beyond the clip agrees with any bound beyond it,
    so an unbounded side never becomes a bound at the clip."""
    lo = np.clip(lower, -clip, clip)
    hi = np.clip(upper, -clip, clip)
    seen = np.clip(static, -clip, clip)
    target = np.where(seen > hi, hi, np.where(seen < lo, lo, static))
    return objective_deltas(static, target, objective)


def node_mask(tree: SearchTree, min_depth: int, quiet_only: bool = False) -> np.ndarray:
    """Nodes that take part in an update: remaining depth >= ``min_depth``, not terminal
    (and, for ``min_depth >= 1``, not quiescence; with ``quiet_only``, not ``NOISY``)."""
    n = int(tree.meta[0])
    flags = tree.flags[:n]
    mask = (tree.depth[:n] >= min_depth) & ((flags & TERMINAL) == 0)
    if min_depth >= 1:
        mask &= (flags & QUIESCENCE) == 0
    if quiet_only:
        mask &= (flags & NOISY) == 0
    return mask


def tree_delta(
    tree: SearchTree,
    size: int,
    step: float,
    min_depth: int = 1,
    normalise: bool = False,
    objective: str = "squared",
    quiet_only: bool = False,
    clip: float = VALUE_CLIP,
) -> tuple[np.ndarray, np.ndarray]:
    """``(delta_theta, deltas of the nodes used)`` for a TreeStrap update over ``tree``;
    ``normalise`` divides the sum by the number of nodes taking part (a mean);
    ``quiet_only`` leaves out the nodes flagged ``NOISY``; bounds are clipped to
    ``+-clip``."""
    n = int(tree.meta[0])
    mask = node_mask(tree, min_depth, quiet_only)
    deltas = bounded_deltas(tree.static[:n], tree.lower[:n], tree.upper[:n], objective, clip)
    deltas = np.where(mask, deltas, 0.0)
    used = int(mask.sum())
    if normalise and used > 0:
        step = step / used
    return gradient_step(tree, deltas, size, step), deltas[mask]


def gradient_step(tree: SearchTree, deltas: np.ndarray, size: int, step: float) -> np.ndarray:
    """``step * sum_i deltas[i] * dH(s_i)/dtheta`` over the recorded nodes."""
    n = deltas.shape[0]
    starts = tree.feat_start[: n + 1]
    counts = np.diff(starts)
    end = int(starts[-1])
    per_pair = np.repeat(deltas, counts) * tree.feat_val[:end]
    return step * np.bincount(tree.feat_idx[:end], weights=per_pair, minlength=size)


def sparse_step(
    idx: np.ndarray, val: np.ndarray, delta: float, size: int, step: float
) -> np.ndarray:
    """``step * delta * gradient`` for one position's sparse gradient."""
    return step * delta * np.bincount(idx, weights=val, minlength=size)
