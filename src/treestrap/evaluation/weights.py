"""Linear weight files, and the linear model that searches and players use.

A linear weight file is a weight file of :mod:`treestrap.evaluation.weight_file_format`
(``.npz``, members ``weights`` and ``meta``) with ``"model": "linear"``::

    {"format": "treestrap-weights", "version": 1, "model": "linear",
     "feature_set": "meep", "layout_hash": "...", "shape": [1830],
     "metadata": {...free-form: algorithm, games, seed, ...}}

Loading (:func:`treestrap.evaluation.weight_files.load_weights`, which reads either
kind) refuses, with a :class:`WeightFileError` saying why, an unknown feature set, a
layout hash or shape that does not match this build, or non-finite weights.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from treestrap.core.position import Position
from treestrap.evaluation.feature_sets import get_feature_set
from treestrap.evaluation.feature_sets.feature_set import FeatureSet
from treestrap.evaluation.model import Evaluator, evaluate, make_evaluator
from treestrap.evaluation.weight_file_format import (
    FORMAT,
    VERSION,
    WeightFileError,
    check_vector,
    stored_metadata,
    write_weight_file,
)

#: The ``model`` field of a linear weight file.
LINEAR = "linear"


@dataclass
class LinearModel:
    """Weights over a feature set, with free-form metadata (how they were made)."""

    feature_set: FeatureSet
    weights: np.ndarray
    metadata: dict[str, Any] = field(default_factory=dict)
    #: linear weights, learned by the linear rules in place
    is_network: ClassVar[bool] = False
    #: the ``--model`` value of this kind
    spec: ClassVar[str] = LINEAR

    def __post_init__(self) -> None:
        self.weights = np.ascontiguousarray(self.weights, dtype=np.float64)
        if self.weights.shape != (self.feature_set.size,):
            raise ValueError(
                f"weights of shape {self.weights.shape} do not fit feature set "
                f"{self.feature_set.name!r} of size {self.feature_set.size}"
            )

    @property
    def feature_set_name(self) -> str:
        return self.feature_set.name

    def feature_names(self) -> list[str]:
        """The weights' names, in order (``--freeze`` picks from them)."""
        return list(self.feature_set.names)

    def evaluator(self) -> Evaluator:
        """The compiled-code view; it shares this model's weight array."""
        return make_evaluator(self.feature_set.id, self.weights)

    def evaluate(self, pos: Position) -> float:
        """Side-to-move score of a position (unclipped)."""
        return float(evaluate(pos, self.evaluator()))

    def save(self, path: str | Path) -> None:
        save_weights(self, path)


def save_weights(model: LinearModel, path: str | Path) -> None:
    """Write ``model`` to ``path`` atomically (temporary file, then rename)."""
    path = Path(path)
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "model": LINEAR,
        "feature_set": model.feature_set.name,
        "layout_hash": model.feature_set.layout_hash,
        "shape": list(model.weights.shape),
        "metadata": model.metadata,
    }
    write_weight_file(path, model.weights, meta)


def linear_from_meta(path: Path, meta: dict[str, Any], weights: np.ndarray) -> LinearModel:
    """Check a linear file's meta and weights (already read by ``load_weights``)."""
    try:
        fs = get_feature_set(str(meta.get("feature_set")))
    except ValueError as exc:
        raise WeightFileError(f"{path}: {exc}") from None
    if meta.get("layout_hash") != fs.layout_hash:
        raise WeightFileError(
            f"{path}: trained on another layout of feature set {fs.name!r} (hash "
            f"{meta.get('layout_hash')}, this build has {fs.layout_hash})"
        )
    check_vector(
        path, meta, weights, fs.size, f" do not match feature set {fs.name!r} of size {fs.size}"
    )
    metadata = stored_metadata(path, meta, weights)
    return LinearModel(fs, weights, metadata)
