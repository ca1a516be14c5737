"""Perspective networks made without data: random ones (for checks) and materialistic
ones (for speed and plumbing checks: searches with random weights build exploding
quiescence trees, as nothing tells a queen from a pawn).
"""

from __future__ import annotations

import numpy as np

from treestrap.evaluation.outcome import CENTIPAWNS_PER_LOGIT
from treestrap.evaluation.perspective import INPUTS, parameter_count, split_parameters
from treestrap.evaluation.perspective_weights import PerspectiveModel

#: Accumulator units per centipawn of material a materialistic network reads: a
#: difference of 2,000 centipawns keeps an accumulator between 0 and 1.
UNITS_PER_CENTIPAWN = 1.0 / 4000.0


def random_perspective(
    width: int,
    seed: int = 0,
    activation: str = "crelu",
    buckets: int = 1,
    scale: float = 1.0,
) -> PerspectiveModel:
    """Every parameter uniform in ``+-scale / sqrt(fan_in)`` (PyTorch's default range
    for ``scale`` 1; the feature transformer's fan-in counted as the 32 pieces a
    position has at most), from ``seed``."""
    rng = np.random.default_rng(seed)
    params = np.empty(parameter_count(width, buckets))
    w, b, ow, ob = split_parameters(params, width, buckets)
    for part, fan_in in ((w, 32), (b, 32), (ow, 2 * width), (ob, 2 * width)):
        bound = scale / np.sqrt(fan_in)
        part[...] = rng.uniform(-bound, bound, part.shape)
    meta = {"preset": "random-perspective", "seed": seed, "scale": scale}
    return PerspectiveModel(width, params, meta, activation, buckets)


def material_perspective(
    width: int,
    seed: int = 0,
    activation: str = "crelu",
    buckets: int = 1,
    noise: float = 0.1,
) -> PerspectiveModel:
    """A network that scores about the hand-set material, with seeded noise: unit ``j``
    of an accumulator reads ``1/2 + s_j * (ours - theirs) * UNITS_PER_CENTIPAWN`` with
    ``s_j`` alternately +1 and -1, and the output weighs it ``s_j * c`` (its negation
    for the other side's accumulator), so the halves' constant and squared terms cancel
    and ``z = material / CENTIPAWNS_PER_LOGIT`` for crelu and screlu alike (while no
    accumulator clips). ``noise``: relative spread of the random part."""
    from treestrap.evaluation.presets import hand_set_bitboard

    rng = np.random.default_rng(seed)
    material = hand_set_bitboard()[:INPUTS]  # ours positive, theirs negative
    sign = np.where(np.arange(width) % 2 == 0, 1.0, -1.0)
    params = np.empty(parameter_count(width, buckets))
    w, b, ow, ob = split_parameters(params, width, buckets)
    w[...] = np.outer(material * UNITS_PER_CENTIPAWN, sign)
    w += rng.normal(0.0, noise * 100 * UNITS_PER_CENTIPAWN, w.shape)
    b[...] = 0.5
    c = 1.0 / (2 * width * UNITS_PER_CENTIPAWN * CENTIPAWNS_PER_LOGIT)
    ow[...] = c * np.concatenate([sign, -sign]) * (1.0 + rng.normal(0.0, noise, ow.shape))
    ob[...] = 0.0
    meta = {"preset": "material-perspective", "seed": seed, "noise": noise}
    return PerspectiveModel(width, params, meta, activation, buckets)
