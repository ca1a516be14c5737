"""The objectives of Serban's non-linear TreeStrap (2014, Table 4.1), as losses of a
network's output and their gradients.

A network outputs ``z = z_win - z_loss`` (white's frame); Serban's heuristic is
``H = sigmoid(z) = P(white wins)``. A search value becomes a target probability
``V = P(white wins)`` through :func:`treestrap.evaluation.outcome.white_win_probability`
(the one mapping the searches use too). Each objective ``J(V, H)`` of Table 4.1 is
maximised; here its negation is a loss to minimise, per position, with its
gradient with respect to ``z``:

- ``squared``: ``(z - logit V)^2``, on the score scale (Serban 4.2 advocates squared
  error on the score, not on the probability); gradient ``2 (z - logit V)``;
- ``hard-ce``: ``-[y log H + (1 - y) log(1 - H)]`` with ``y = 1[V >= 0.5]``; ``H - y``;
- ``soft-ce``: ``-[V log H + (1 - V) log(1 - H)]``; ``H - V``;
- ``reverse-kl``: ``KL[H | V] = H log(H / V) + (1 - H) log((1 - H) / (1 - V))``;
  ``H (1 - H) (z - logit V)``.

Reversed KL: Table 4.1 writes ``J = H log V + (1 - H) log(1 - V)``, the cross term of
``-KL[H | V]`` without ``H``'s entropy; that alone is linear in ``H`` and drives every
``H`` to 0 or 1. The loss here is the divergence itself, which the text names and
describes (mode seeking). Targets are clipped to ``[V_EPS, 1 - V_EPS]`` where a log of
``V`` appears (a mate makes ``V`` 0 or 1 to double precision), and ``logit V`` to
``+-LOGIT_CLIP``.

Bounds (TreeStrap(alpha-beta) carried over to networks): a transposition-table entry
gives ``lower <= V <= upper`` rather than ``V``. :func:`bounded_loss` is zero while
``H`` lies inside the bounds and otherwise the objective towards the violated bound;
with ``lower == upper`` it is the objective itself, so minimax samples and bounded
ones share one loss.
"""

from __future__ import annotations

import numpy as np

from treestrap.evaluation.outcome import CENTIPAWNS_PER_LOGIT
from treestrap.search.value import VALUE_CLIP

OBJECTIVES = ("squared", "hard-ce", "soft-ce", "reverse-kl")
#: The largest target log-odds: a heuristic value at the search's clip (9900
#: centipawns, about 57 logits); mates are clipped to it.
LOGIT_CLIP = VALUE_CLIP / CENTIPAWNS_PER_LOGIT
#: Target probabilities are kept this far from 0 and 1 where their log is taken.
V_EPS = 1e-12


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def _log_sigmoid(z: np.ndarray) -> np.ndarray:
    return -np.logaddexp(0.0, -z)


def target_logit(v: np.ndarray) -> np.ndarray:
    """``logit V`` of target probabilities, clipped to ``+-LOGIT_CLIP``."""
    v = np.clip(np.asarray(v, dtype=np.float64), V_EPS, 1.0 - V_EPS)
    return np.clip(np.log(v) - np.log1p(-v), -LOGIT_CLIP, LOGIT_CLIP)


def _check(objective: str) -> None:
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {objective!r} (known: {', '.join(OBJECTIVES)})")


def objective_loss(objective: str, z: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Per-position loss of network outputs ``z`` against target probabilities ``v``."""
    _check(objective)
    z = np.asarray(z, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    if objective == "squared":
        return (z - target_logit(v)) ** 2
    if objective in ("hard-ce", "soft-ce"):
        y = (v >= 0.5).astype(np.float64) if objective == "hard-ce" else v
        return -(y * _log_sigmoid(z) + (1.0 - y) * _log_sigmoid(-z))
    h = _sigmoid(z)
    vc = np.clip(v, V_EPS, 1.0 - V_EPS)
    log_h, log_1h = _log_sigmoid(z), _log_sigmoid(-z)
    return h * (log_h - np.log(vc)) + (1.0 - h) * (log_1h - np.log1p(-vc))


def objective_gradient(objective: str, z: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``d loss / d z`` per position (the table in the module docstring)."""
    _check(objective)
    z = np.asarray(z, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    if objective == "squared":
        return 2.0 * (z - target_logit(v))
    h = _sigmoid(z)
    if objective == "hard-ce":
        return h - (v >= 0.5).astype(np.float64)
    if objective == "soft-ce":
        return h - v
    vc = np.clip(v, V_EPS, 1.0 - V_EPS)
    return h * (1.0 - h) * (z - (np.log(vc) - np.log1p(-vc)))


def bounded_targets(
    z: np.ndarray, lower: np.ndarray, upper: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The one-sided rule of TreeStrap(alpha-beta) (Veness et al. 2009) for networks:
    which bound each output ``z`` is moved towards, and whether it is moved at all.

    ``lower <= upper`` are bounds on the target probability ``V`` (0 and 1 where a
    search value has no bound). A sample whose ``H = sigmoid(z)`` lies within them is
    left alone; one below ``lower`` goes towards ``lower``, one above ``upper``
    towards ``upper``. Exact bounds (``lower == upper``, a minimax value) always pull:
    such a sample is a minimax sample, whatever ``H`` is. Returns ``(targets,
    active)``."""
    lower = np.asarray(lower, dtype=np.float64)
    upper = np.asarray(upper, dtype=np.float64)
    h = _sigmoid(np.asarray(z, dtype=np.float64))
    exact = lower >= upper
    above = (h > upper) & ~exact
    active = exact | above | (h < lower)
    return np.where(above, upper, lower), active


def bounded_loss(objective: str, z: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """Per-position one-sided loss: zero inside the bounds, else ``objective``'s loss
    towards the violated bound (:func:`bounded_targets`); with ``lower == upper`` it is
    :func:`objective_loss` of the minimax value.

    Under ``hard-ce`` the bound is rounded to 0 or 1 as any target is, so a sample
    below a lower bound under one half is pushed further down: the one-sided rule
    suits the objectives whose minimum is at the bound (``squared``, ``soft-ce``,
    ``reverse-kl``)."""
    targets, active = bounded_targets(z, lower, upper)
    return np.where(active, objective_loss(objective, z, targets), 0.0)


def bounded_gradient(
    objective: str, z: np.ndarray, lower: np.ndarray, upper: np.ndarray
) -> np.ndarray:
    """``d bounded_loss / d z`` per position: zero inside the bounds, else
    :func:`objective_gradient` towards the violated bound."""
    targets, active = bounded_targets(z, lower, upper)
    return np.where(active, objective_gradient(objective, z, targets), 0.0)
