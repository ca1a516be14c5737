"""The interface every feature set implements, and what follows from it alone: the
layout hash and a dense phi(s) for tests and tools.

Compiled functions of a feature set all take ``(pos, idx, val)`` and return the count
``n`` of (index, value) pairs written to ``idx[:n]``/``val[:n]`` (an index may repeat:
values add). ``extract`` writes phi(s) in the set's own perspective; ``gradient`` writes
the gradient of a linear model's side-to-move score ``sign * theta . phi(s)`` with
respect to theta, that is ``sign * phi(s)``, where ``sign`` is +1 for a side-to-move set
and -1 for a white-relative one when black is to move.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from treestrap.core.position import Position
from treestrap.evaluation.feature_sets import FEATURE_SET_NAMES, get_feature_set

#: Perspectives: scores from these sets are for the side to move already ...
PERSPECTIVE_SIDE_TO_MOVE = "side-to-move"
#: ... and from these for white (negated when black is to move).
PERSPECTIVE_WHITE = "white"


@dataclass(frozen=True)
class FeatureSet:
    """One feature set: everything the rest of the program knows about it."""

    name: str
    size: int
    #: Most (index, value) pairs one extraction writes: the buffers' least length.
    max_active: int
    perspective: str  # PERSPECTIVE_SIDE_TO_MOVE or PERSPECTIVE_WHITE
    description: str
    #: Builds one readable name per index (the layout the hash is taken over).
    feature_names: Callable[[], list[str]] = field(repr=False)
    #: Compiled ``(pos, idx, val) -> n``: phi(s) in the set's perspective.
    extract: Any = field(repr=False)
    #: Compiled ``(pos, idx, val) -> n``: ``sign * phi(s)`` (see the module docstring).
    gradient: Any = field(repr=False)
    #: Compiled ``(pos, weights) -> float``: ``theta . gradient`` summed in the pairs'
    #: order without storing them (:mod:`~treestrap.evaluation.feature_sets.sink`), or
    #: None to sum over ``gradient``'s pairs.
    score: Any = field(repr=False, default=None)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # Pickled by name (for worker processes): unpickling gives the registered set,
        # not a copy carrying its compiled functions.
        return get_feature_set, (self.name,)

    @property
    def id(self) -> int:
        """Its place in the registry: what compiled code dispatches on."""
        return FEATURE_SET_NAMES.index(self.name)

    @cached_property
    def names(self) -> list[str]:
        return self.feature_names()

    @cached_property
    def layout_hash(self) -> str:
        """First 16 hex digits of SHA-256 over the set's name and feature names, one per
        line: weight files record it, so one trained on another layout is refused."""
        text = "\n".join([self.name, *self.names])
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def dense_features(pos: Position, feature_set: FeatureSet) -> np.ndarray:
    """phi(s) as a dense float64 vector (duplicate indices summed): for tests and tools."""
    idx = np.zeros(feature_set.max_active, dtype=np.int32)
    val = np.zeros(feature_set.max_active, dtype=np.float64)
    n = feature_set.extract(pos, idx, val)
    dense = np.zeros(feature_set.size, dtype=np.float64)
    np.add.at(dense, idx[:n], val[:n])
    return dense
