"""The registry of feature sets, and the one compiled entry point that extracts any
of them.

Each feature set has a name, a size, a layout hash (of its feature names, so a weight
file trained on another layout is refused), a perspective and a compiled extractor.
To add one: write its module (an extractor ``f(pos, idx, val) -> count`` and a names
function), give it the next id here, add one branch to :func:`extract_features` and
one :class:`FeatureSet` entry. Search code is never touched.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from treestrap.core.jit import njit
from treestrap.core.piece import WHITE
from treestrap.core.position import ST_SIDE, Position
from treestrap.evaluation.bitboard_features import (
    BITBOARD_MAX_ACTIVE,
    BITBOARD_SIZE,
    bitboard_feature_names,
    bitboard_features,
)
from treestrap.evaluation.meep import MEEP_MAX_ACTIVE, MEEP_SIZE, meep_feature_names, meep_features

MEEP = 0
BITBOARD = 1

#: Scores from these sets are for the side to move already ...
SIDE_TO_MOVE = "side-to-move"
#: ... and from these for white (negated when black is to move).
WHITE_RELATIVE = "white"

#: Buffer length that fits the active features of every registered set.
MAX_ACTIVE = max(MEEP_MAX_ACTIVE, BITBOARD_MAX_ACTIVE)


@njit
def extract_features(pos: Position, feature_set: int, idx: np.ndarray, val: np.ndarray) -> int:
    """Sparse phi(s) of the given set as (index, value) pairs; returns the count."""
    if feature_set == MEEP:
        return meep_features(pos, idx, val)
    return bitboard_features(pos, idx, val)


@njit(inline="always")
def perspective_sign(pos: Position, feature_set: int) -> float:
    """+1 or -1: what turns the set's raw score into the side to move's score."""
    if feature_set == BITBOARD and pos.st[ST_SIDE] != WHITE:
        return -1.0
    return 1.0


@dataclass(frozen=True)
class FeatureSet:
    """A registered feature set (see the module docstring)."""

    name: str
    id: int
    size: int
    perspective: str
    description: str

    @cached_property
    def names(self) -> list[str]:
        return _NAMES[self.name]()

    @cached_property
    def layout_hash(self) -> str:
        """First 16 hex digits of SHA-256 over the feature names, one per line."""
        text = "\n".join([self.name, *self.names])
        return hashlib.sha256(text.encode()).hexdigest()[:16]


_NAMES = {"meep": meep_feature_names, "bitboard": bitboard_feature_names}

FEATURE_SETS: dict[str, FeatureSet] = {
    "meep": FeatureSet(
        "meep",
        MEEP,
        MEEP_SIZE,
        SIDE_TO_MOVE,
        "material, piece-square tables, pawn structure, mobility, king safety, threats",
    ),
    "bitboard": FeatureSet(
        "bitboard",
        BITBOARD,
        BITBOARD_SIZE,
        WHITE_RELATIVE,
        "12 x 64 piece-square indicators and side to move (Serban 2014)",
    ),
}


def get_feature_set(name: str) -> FeatureSet:
    """The registered set called ``name``; ``ValueError`` lists the known ones."""
    try:
        return FEATURE_SETS[name]
    except KeyError:
        known = ", ".join(sorted(FEATURE_SETS))
        raise ValueError(f"unknown feature set {name!r} (known: {known})") from None


def dense_features(pos: Position, feature_set: FeatureSet) -> np.ndarray:
    """phi(s) as a dense float64 vector (duplicate indices summed): for tests and tools."""
    idx = np.zeros(MAX_ACTIVE, dtype=np.int32)
    val = np.zeros(MAX_ACTIVE, dtype=np.float64)
    n = extract_features(pos, feature_set.id, idx, val)
    dense = np.zeros(feature_set.size, dtype=np.float64)
    np.add.at(dense, idx[:n], val[:n])
    return dense
