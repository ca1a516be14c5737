"""Starting weights: the hand-set baseline and the paper's small random start.

The hand-set preset is deliberately plain, textbook knowledge in centipawns (pawn =
100): material, simple piece-square shapes, passed-pawn bonuses by rank, mobility,
a king shelter. It is the yardstick learned weights are compared against, not a tuned
evaluation.
"""

from __future__ import annotations

import numpy as np

from treestrap.evaluation.feature_sets import get_feature_set
from treestrap.evaluation.feature_sets import meep as M
from treestrap.evaluation.feature_sets.bitboard import SIDE_TO_MOVE
from treestrap.evaluation.feature_sets.feature_set import FeatureSet
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.perspective_weights import PerspectiveModel
from treestrap.evaluation.preset_names import (
    HAND_SET,
    LEARNED,
    PRESET_NAMES,
    RANDOM,
    SHIPPED_FILES,
)
from treestrap.evaluation.weights import LinearModel

#: Classical piece values (pawn, knight, bishop, rook, queen), in centipawns.
PIECE_VALUES = (100.0, 320.0, 330.0, 500.0, 900.0)
#: Default spread of random initial weights: "small random numbers" (Veness et al.),
#: tiny next to a pawn's 100 so that no initial preference survives the first updates.
RANDOM_SCALE = 1.0


def _center_distance(sq: int) -> float:
    """0 on the four centre squares, 3 in the corners (file/rank Manhattan-like)."""
    f, r = sq % 8, sq // 8
    return max(abs(f - 3.5), abs(r - 3.5)) - 0.5


def _psqt_shape(ptype: int, rel_sq: int, phase: int) -> float:
    f, r = rel_sq % 8, rel_sq // 8
    centre = _center_distance(rel_sq)
    if ptype == 0:  # pawns: advance, more so in the endgame; central pawns a little
        if r in (0, 7):
            return 0.0  # no pawn ever stands on its first or last rank
        advance = (r - 1) * (10.0 if phase == 2 else 5.0)
        return advance + (10.0 if f in (3, 4) and r in (3, 4) and phase < 2 else 0.0)
    if ptype == 1:  # knights: the rim is dim
        return 15.0 - 10.0 * centre
    if ptype == 2:  # bishops: slight centre preference
        return 5.0 - 5.0 * centre
    if ptype == 3:  # rooks: the seventh rank
        return 20.0 if r == 6 else 0.0
    if ptype == 4:
        return 2.0 - 2.0 * centre
    if phase == 2:  # king in the endgame: centralise
        return 20.0 - 10.0 * centre
    # king before the endgame: stay home, on a wing
    return (20.0 if r == 0 and f in (1, 2, 6) else 0.0) - 15.0 * r


def hand_set_meep() -> np.ndarray:
    w = np.zeros(M.MEEP_SIZE)
    w[M.MATERIAL : M.MATERIAL + 5] = PIECE_VALUES
    w[M.BISHOP_PAIR] = 30.0
    for p in range(M.PHASE_NB):
        for t in range(6):
            for sq in range(64):
                w[M.PSQT + p * M.PSQT_SIZE + t * 64 + sq] = _psqt_shape(t, sq, p)
        pb = M.PAWNS + p * M.PAWNS_SIZE
        passed = (5.0, 10.0, 20.0, 35.0, 60.0, 100.0)
        for r in range(6):
            w[pb + M.P_PASSED_RANK + r] = passed[r] * (1.5 if p == 2 else 1.0)
            w[pb + M.P_PASSED_FREE + r] = passed[r] / 4
            w[pb + M.P_CONNECTED + r] = 5.0
        w[pb + M.P_DOUBLED : pb + M.P_DOUBLED + 8] = -15.0
        w[pb + M.P_ISOLATED : pb + M.P_ISOLATED + 8] = -15.0
        w[pb + M.P_BACKWARD : pb + M.P_BACKWARD + 8] = -10.0
        mb = M.MOBILITY + p * M.MOBILITY_SIZE
        for t, (mid, step) in {1: (4, 4.0), 2: (6, 4.0), 3: (7, 2.0), 4: (13, 1.0)}.items():
            for m in range(M.MOBILITY_CAP[t] + 1):
                w[mb + M.MOBILITY_BASE[t] + m] = (m - mid) * step
        if p < 2:  # king safety matters while there is material to attack with
            kb = M.KING_SAFETY + p * M.KING_SIZE
            for k in range(16):
                w[kb + M.K_ATTACK_WEIGHT + k] = -2.0 * k * k
            for df in range(3):
                w[kb + M.K_SHIELD + df * 2] = 10.0
                w[kb + M.K_SHIELD + df * 2 + 1] = 5.0
                w[kb + M.K_OPEN + df * 2] = -20.0
                w[kb + M.K_OPEN + df * 2 + 1] = -10.0
    for a in range(6):  # a cheaper piece attacking a dearer one is a threat
        for v in range(1, 5):
            if a < v or a == 5:
                w[M.THREATS + a * 6 + v] = 15.0
    w[M.HANGING : M.HANGING + 5] = -10.0
    w[M.TEMPO] = 10.0
    return w


def hand_set_bitboard() -> np.ndarray:
    """Piece values on every square: white positive, black negative (white-relative)."""
    w = np.zeros(SIDE_TO_MOVE + 1)
    for t, value in enumerate(PIECE_VALUES):
        w[t * 64 : (t + 1) * 64] = value
        w[(6 + t) * 64 : (7 + t) * 64] = -value
    return w


#: The hand-set weights of each feature set that has them.
HAND_SET_WEIGHTS = {"meep": hand_set_meep, "bitboard": hand_set_bitboard}


def hand_set_model(feature_set: str = "meep") -> LinearModel:
    """The hand-set baseline for ``feature_set``."""
    fs = get_feature_set(feature_set)
    if fs.name not in HAND_SET_WEIGHTS:
        raise ValueError(f"feature set {fs.name!r} has no hand-set weights")
    return LinearModel(fs, HAND_SET_WEIGHTS[fs.name](), {"preset": "hand-set"})


def random_model(
    feature_set: str | FeatureSet = "meep", seed: int = 0, scale: float = RANDOM_SCALE
) -> LinearModel:
    """Small random weights, uniform in ``[-scale, scale]``, reproducible by ``seed``."""
    fs = feature_set if isinstance(feature_set, FeatureSet) else get_feature_set(feature_set)
    rng = np.random.default_rng(seed)
    weights = rng.uniform(-scale, scale, fs.size)
    return LinearModel(fs, weights, {"preset": "random", "seed": seed, "scale": scale})


LEARNED_FILE = SHIPPED_FILES[LEARNED]


def _shipped(name: str) -> LinearModel | NetworkModel | PerspectiveModel:
    """A shipped preset, loaded (and checked) from the package's data."""
    from importlib.resources import as_file, files

    from treestrap.evaluation.weight_files import load_weights

    with as_file(files("treestrap.evaluation.data") / SHIPPED_FILES[name]) as path:
        model = load_weights(path)
    model.metadata = {**model.metadata, "preset": name}
    return model


def learned_model() -> LinearModel:
    """The learned preset (linear meep weights)."""
    model = _shipped(LEARNED)
    assert isinstance(model, LinearModel)
    return model


def preset_model(name: str, seed: int = 0) -> LinearModel | NetworkModel | PerspectiveModel:
    """A preset by name (``random`` uses ``seed``); ``ValueError`` lists the names."""
    if name == HAND_SET:
        return hand_set_model()
    if name == LEARNED:
        return learned_model()
    if name == RANDOM:
        return random_model(seed=seed)
    if name in SHIPPED_FILES:
        return _shipped(name)
    raise ValueError(f"unknown preset {name!r} (known: {', '.join(PRESET_NAMES)})")
