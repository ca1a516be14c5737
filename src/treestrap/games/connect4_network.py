"""The Connect Four network model: a tanh MLP over the 85 bitboard inputs
(:mod:`treestrap.connect4.network`), saved in the project's weight-file format.

Its file is a weight file of :mod:`treestrap.evaluation.weight_file_format` whose meta
says the game and the layers::

    {"format": "treestrap-weights", "version": 1, "model": "network",
     "game": "connect4", "inputs": "connect4-bitboard", "sizes": [64, 1],
     "shape": [5569], "metadata": {...}}

:func:`treestrap.games.connect4_model.load_connect4_model` reads linear and network
files alike, so every Connect Four player (``FILE.npz[:depth=N]``) takes either.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from treestrap.connect4.board import Position
from treestrap.connect4.evaluator import Connect4Evaluator, evaluate, make_evaluator
from treestrap.connect4.inputs import INPUT_NB
from treestrap.connect4.network import (
    check_sizes,
    network_buffer,
    parameter_count,
    write_parameters,
)
from treestrap.evaluation.torch_network import random_network_parameters, torch_network
from treestrap.evaluation.weight_file_format import (
    FORMAT,
    VERSION,
    WeightFileError,
    check_vector,
    stored_metadata,
    write_weight_file,
)
from treestrap.games.connect4_facts import CONNECT4_FACTS

INPUTS = "connect4-bitboard"


@dataclass
class Connect4NetworkModel:
    """A network of layer ``sizes`` (the last is 1) with flat parameters ``weights``
    (:mod:`treestrap.evaluation.torch_network`'s order), and free-form metadata."""

    sizes: list[int]
    weights: np.ndarray
    metadata: dict[str, Any] = field(default_factory=dict)
    is_network: ClassVar[bool] = True
    #: its hidden units (the only kind Connect Four networks have)
    activation: ClassVar[str] = "tanh"
    feature_set_name: ClassVar[str] = CONNECT4_FACTS.network_inputs

    def __post_init__(self) -> None:
        self.sizes = [int(s) for s in self.sizes]
        check_sizes(self.sizes)
        self.weights = np.ascontiguousarray(self.weights, dtype=np.float64).reshape(-1)
        count = parameter_count(self.sizes)
        if self.weights.size != count:
            raise ValueError(
                f"{self.weights.size} parameters for a network of layers {self.sizes} ({count})"
            )

    def evaluator(self) -> Connect4Evaluator:
        """A compiled-code view over a copy of the parameters (its own scratch): a
        learner writes its steps into the evaluator it holds."""
        return make_evaluator(network_buffer(self.sizes, self.weights))

    def evaluate(self, pos: Position) -> float:
        """Side-to-move score of a position (unclipped)."""
        return float(evaluate(pos, self.evaluator()))

    def torch_twin(self) -> Any:
        """A float64 torch module equal to this network over its 85 inputs, for fitting."""
        return torch_network(list(self.sizes), self.weights, INPUT_NB)

    @staticmethod
    def write_evaluator(ev: Connect4Evaluator, params: np.ndarray) -> None:
        """New parameters into an evaluator of this kind, in place."""
        write_parameters(ev.weights, params)

    @property
    def spec(self) -> str:
        """The ``--model`` value of this network: "logreg" or "mlp:H"."""
        hidden = self.sizes[:-1]
        return "mlp:" + ",".join(map(str, hidden)) if hidden else "logreg"

    def describe(self) -> str:
        hidden = self.sizes[:-1]
        return f"MLP({','.join(map(str, hidden))})" if hidden else "logistic regression"

    def save(self, path: str | Path) -> None:
        """Write the network to ``path`` atomically."""
        meta = {
            "format": FORMAT,
            "version": VERSION,
            "model": "network",
            "game": CONNECT4_FACTS.name,
            "inputs": INPUTS,
            "sizes": self.sizes,
            "shape": [int(self.weights.size)],
            "metadata": self.metadata,
        }
        write_weight_file(Path(path), self.weights, meta)


def network_from_file(
    path: Path, meta: dict[str, Any], weights: np.ndarray
) -> Connect4NetworkModel:
    """A network file's model from its container (read and checked for the game by the
    caller); :class:`WeightFileError` says what is wrong."""
    sizes = meta.get("sizes")
    if meta.get("inputs") != INPUTS or not isinstance(sizes, list):
        raise WeightFileError(f"{path}: not a Connect Four network over {INPUTS!r}")
    try:
        model = Connect4NetworkModel(sizes, weights, {})
    except (ValueError, TypeError) as exc:
        raise WeightFileError(f"{path}: {exc}") from None
    check_vector(path, meta, weights)
    metadata = stored_metadata(path, meta, weights)
    model.metadata = metadata
    return model


def random_connect4_network(
    sizes: list[int], seed: int, scale: float = 1.0
) -> Connect4NetworkModel:
    """A fresh network: every weight and bias uniform in ``+-scale/sqrt(fan_in)``
    (``scale`` 1: PyTorch's default), drawn from ``seed``."""
    check_sizes(sizes)
    params = random_network_parameters(sizes, seed, scale, n_inputs=INPUT_NB)
    return Connect4NetworkModel(sizes, params, {"preset": "random", "seed": seed, "scale": scale})
