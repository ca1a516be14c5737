"""The linear Connect Four model: weights over :mod:`treestrap.connect4.features`, saved
in the project's weight-file format.

A Connect Four weight file is a weight file of
:mod:`treestrap.evaluation.weight_file_format` whose meta says which game it is for::

    {"format": "treestrap-weights", "version": 1, "model": "linear",
     "game": "connect4", "feature_set": "connect4", "shape": [1286],
     "metadata": {...}}

Chess's loader refuses it (its ``game`` is not chess), and :func:`load_connect4_model`
refuses chess weights, each with a line saying why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from treestrap.connect4.board import Position
from treestrap.connect4.evaluator import Connect4Evaluator, evaluate, make_evaluator
from treestrap.connect4.features import SIZE, feature_names
from treestrap.connect4.hand_eval import hand_weights
from treestrap.evaluation.weight_file_format import (
    FORMAT,
    VERSION,
    WeightFileError,
    check_vector,
    read_weight_file,
    stored_metadata,
    write_weight_file,
)
from treestrap.games.connect4_facts import CONNECT4_FACTS
from treestrap.games.connect4_network import network_from_file
from treestrap.games.registry import DEFAULT_GAME

GAME = CONNECT4_FACTS.name
FEATURE_SET = "connect4"
#: Random starts are uniform in +-RANDOM_SCALE, as chess's ``random`` preset
#: (a centre disc is worth 3 in the hand-written evaluation's units).
RANDOM_SCALE = 1.0


@dataclass
class Connect4Model:
    """Weights over the Connect Four features, with free-form metadata."""

    weights: np.ndarray
    metadata: dict[str, Any] = field(default_factory=dict)
    is_network: ClassVar[bool] = False
    spec: ClassVar[str] = "linear"
    feature_set_name: ClassVar[str] = FEATURE_SET

    def __post_init__(self) -> None:
        self.weights = np.ascontiguousarray(self.weights, dtype=np.float64)
        if self.weights.shape != (SIZE,):
            raise ValueError(
                f"weights of shape {self.weights.shape} do not fit the Connect Four "
                f"features ({SIZE})"
            )

    def feature_names(self) -> list[str]:
        """The weights' names, in order (``--freeze`` picks from them)."""
        return feature_names()

    def evaluator(self) -> Connect4Evaluator:
        """The compiled-code view; it shares this model's weight array."""
        return make_evaluator(self.weights)

    def evaluate(self, pos: Position) -> float:
        """Side-to-move score of a position (unclipped)."""
        return float(evaluate(pos, self.evaluator()))

    def save(self, path: str | Path) -> None:
        """Write the model to ``path`` atomically."""
        meta = {
            "format": FORMAT,
            "version": VERSION,
            "model": "linear",
            "game": GAME,
            "feature_set": FEATURE_SET,
            "shape": [SIZE],
            "metadata": self.metadata,
        }
        write_weight_file(Path(path), self.weights, meta)


def load_connect4_model(path: str | Path) -> Any:
    """Read and check a Connect Four weight file: linear, a network
    (:mod:`treestrap.games.connect4_network`) or n-tuples
    (:mod:`treestrap.games.connect4_ntuple`); :class:`WeightFileError` says what is
    wrong (chess weights among others)."""
    path = Path(path)
    meta, weights = read_weight_file(path)
    game = meta.get("game", DEFAULT_GAME)
    if game != GAME:
        raise WeightFileError(f"{path}: {game} weights, not Connect Four weights")
    if meta.get("model") == "network":
        return network_from_file(path, meta, weights)
    if meta.get("model") == "ntuple":
        from treestrap.games.connect4_ntuple import ntuple_from_file

        return ntuple_from_file(path, meta, weights)
    if meta.get("model") != "linear" or meta.get("feature_set") != FEATURE_SET:
        raise WeightFileError(
            f"{path}: unknown Connect Four model {meta.get('model')!r} over "
            f"{meta.get('feature_set')!r}"
        )
    check_vector(path, meta, weights, SIZE, f" do not match the Connect Four features ({SIZE})")
    metadata = stored_metadata(path, meta, weights)
    return Connect4Model(weights, metadata)


#: The shipped Connect Four preset (``connect4_facts``' ``presets``): the best file of
#: ``treestrap bootstrap --game connect4``, the default Connect Four player.
PRESET = "connect4-zero"


def shipped_connect4_model(name: str = PRESET) -> Any:
    """A shipped preset (``connect4-zero`` unless named), loaded (and checked) from the
    package's data."""
    from importlib.resources import as_file, files

    data = files("treestrap.evaluation.data") / CONNECT4_FACTS.presets[name]
    with as_file(data) as path:
        return load_connect4_model(path)


def random_connect4_model(seed: int = 0, scale: float = RANDOM_SCALE) -> Connect4Model:
    """Small random weights, uniform in ``[-scale, scale]``, reproducible by ``seed``."""
    rng = np.random.default_rng(seed)
    weights = rng.uniform(-scale, scale, SIZE)
    return Connect4Model(weights, {"preset": "random", "seed": seed, "scale": scale})


def hand_written_connect4_model() -> Connect4Model:
    """The hand-written evaluation of :mod:`treestrap.connect4.hand_eval`."""
    return Connect4Model(hand_weights(), {"preset": "hand-written"})
