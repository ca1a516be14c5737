"""Loading any weight file: read the container, then hand it to its model kind.

:func:`load_weights` reads and checks the container
(:func:`~treestrap.evaluation.weight_file_format.read_weight_file`) and passes its
``meta`` and ``weights`` to the loader of the file's ``model``: linear weights
(:mod:`treestrap.evaluation.weights`), a network
(:mod:`treestrap.evaluation.network_weights`) or a perspective network
(:mod:`treestrap.evaluation.perspective_weights`). Saving needs no dispatch: each model
saves itself (``model.save(path)``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from treestrap.evaluation.network_weights import NETWORK, NetworkModel, network_from_meta
from treestrap.evaluation.perspective_weights import (
    PERSPECTIVE,
    PerspectiveModel,
    perspective_from_meta,
)
from treestrap.evaluation.weight_file_format import WeightFileError, read_weight_file
from treestrap.evaluation.weights import LINEAR, LinearModel, linear_from_meta

#: A chess model of any kind.
ChessModel = LinearModel | NetworkModel | PerspectiveModel

#: The loader of each ``model`` kind: the file's path (for messages), meta and weights.
_LOADERS: dict[str, Callable[[Path, dict[str, Any], np.ndarray], ChessModel]] = {
    LINEAR: linear_from_meta,
    NETWORK: network_from_meta,
    PERSPECTIVE: perspective_from_meta,
}


def load_weights(path: str | Path) -> ChessModel:
    """Read and check a weight file; :class:`WeightFileError` says what is wrong. A
    linear file gives a :class:`~treestrap.evaluation.weights.LinearModel`, a network
    file a :class:`~treestrap.evaluation.network_weights.NetworkModel`, a perspective
    network's a :class:`~treestrap.evaluation.perspective_weights.PerspectiveModel`."""
    path = Path(path)
    meta, weights = read_weight_file(path)
    if "game" in meta:  # chess files name no game; another game's do (games/facts.py)
        raise WeightFileError(f"{path}: {meta['game']} weights, not chess weights")
    kind = meta.get("model")
    loader = _LOADERS.get(kind)
    if loader is None:
        raise WeightFileError(f"{path}: unknown model kind {kind!r}")
    return loader(path, meta, weights)
