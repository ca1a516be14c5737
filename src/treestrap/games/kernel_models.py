"""Models a new game gets without writing its own: linear weights over its features and
a tanh network over its inputs, both evaluated by the game's compiled kernels, with
their weight files.

A game hands its kernels' side once, as a :class:`KernelModelKind`: its name (written
into its weight files), its features' names, its network inputs' count and its
``make_evaluator(weights, sizes)``, which returns the evaluator its searches read
(linear ``weights`` shared, not copied, when ``sizes`` is None; else a network's flat
parameters in :mod:`treestrap.evaluation.torch_network`'s order in the evaluator's
``weights``). The models satisfy :class:`~treestrap.games.contract.Model`; a file says
``"game"``, ``"model"`` (``linear`` or ``network``) and, for a network, its ``sizes``.
Chess and Connect Four keep their own models (their files predate this one).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from treestrap.core.layer_sizes import check_layer_sizes, parameter_count
from treestrap.evaluation.torch_network import random_network_parameters, torch_network
from treestrap.evaluation.weight_file_format import (
    FORMAT,
    VERSION,
    WeightFileError,
    check_vector,
    read_weight_file,
    stored_metadata,
    write_weight_file,
)

#: The most layers a kernel network may have (its evaluator holds two activation rows).
MAX_LAYERS = 4


@dataclass(frozen=True)
class KernelModelKind:
    """What a game's kernel models need of it (see the module's docstring)."""

    game: str
    feature_names: tuple[str, ...]
    input_nb: int
    make_evaluator: Callable[[np.ndarray, list[int] | None], Any]

    def linear(self, weights: Any, metadata: dict[str, Any] | None = None) -> KernelLinearModel:
        return KernelLinearModel(self, np.asarray(weights, dtype=np.float64), metadata or {})

    def random_linear(self, feature_set: str, seed: int, scale: float) -> KernelLinearModel:
        """Weights uniform in +-``scale`` (the contract's ``random_model``)."""
        rng = np.random.default_rng(seed)
        weights = rng.uniform(-scale, scale, len(self.feature_names))
        return self.linear(weights, {"preset": "random", "seed": seed})

    def random_network(
        self, sizes: list[int], activation: str, seed: int, scale: float
    ) -> KernelNetworkModel:
        """A tanh network with random parameters (the contract's ``random_network``)."""
        params = random_network_parameters(sizes, seed, scale, n_inputs=self.input_nb)
        return KernelNetworkModel(self, list(sizes), params, {"preset": "random", "seed": seed})

    def load(self, path: Any) -> KernelLinearModel | KernelNetworkModel:
        """A weight file of this game, linear or a network; :class:`WeightFileError`
        says what is wrong (the contract's ``load_model``)."""
        path = Path(path)
        meta, weights = read_weight_file(path)
        kind, sizes = meta.get("model"), meta.get("sizes")
        if meta.get("game") != self.game or kind not in ("linear", "network"):
            raise WeightFileError(f"{path}: not a {self.game} weight file")
        if kind == "linear":
            check_vector(path, meta, weights, len(self.feature_names))
            return self.linear(weights, stored_metadata(path, meta, weights))
        if not isinstance(sizes, list) or not all(type(s) is int for s in sizes):
            raise WeightFileError(f"{path}: bad layer sizes {sizes!r}")
        try:
            check_layer_sizes(sizes, MAX_LAYERS)
        except ValueError as exc:
            raise WeightFileError(f"{path}: {exc}") from None
        check_vector(path, meta, weights, parameter_count(self.input_nb, sizes))
        metadata = stored_metadata(path, meta, weights)
        return KernelNetworkModel(self, sizes, weights, metadata)

    def save(self, weights: np.ndarray, fields: dict[str, Any], metadata: dict, path: Any) -> None:
        meta = {"format": FORMAT, "version": VERSION, "game": self.game, **fields}
        meta.update(shape=[int(weights.size)], metadata=metadata)
        write_weight_file(Path(path), weights, meta)


@dataclass
class KernelLinearModel:
    """Weights over a game's features, one per name."""

    kind: KernelModelKind
    weights: np.ndarray
    metadata: dict[str, Any] = field(default_factory=dict)
    is_network: ClassVar[bool] = False
    spec: ClassVar[str] = "linear"

    @property
    def feature_set_name(self) -> str:
        return self.kind.game

    def feature_names(self) -> list[str]:
        return list(self.kind.feature_names)

    def evaluator(self) -> Any:
        return self.kind.make_evaluator(self.weights, None)  # shared: rules learn in place

    def save(self, path: Any) -> None:
        self.kind.save(self.weights, {"model": "linear"}, self.metadata, path)


@dataclass
class KernelNetworkModel:
    """A tanh network of layer ``sizes`` (the last 1) over a game's inputs."""

    kind: KernelModelKind
    sizes: list[int]
    weights: np.ndarray
    metadata: dict[str, Any] = field(default_factory=dict)
    is_network: ClassVar[bool] = True
    activation: ClassVar[str] = "tanh"

    @property
    def feature_set_name(self) -> str:
        return self.kind.game

    @property
    def spec(self) -> str:
        return "mlp:" + ",".join(map(str, self.sizes[:-1])) if self.sizes[1:] else "logreg"

    def describe(self) -> str:
        return self.spec

    def evaluator(self) -> Any:
        return self.kind.make_evaluator(self.weights.copy(), self.sizes)  # the rule writes it

    def torch_twin(self) -> Any:
        return torch_network(self.sizes, self.weights, self.kind.input_nb)

    @staticmethod
    def write_evaluator(ev: Any, params: np.ndarray) -> None:
        ev.weights[:] = params

    def save(self, path: Any) -> None:
        self.kind.save(self.weights, {"model": "network", "sizes": self.sizes}, self.metadata, path)
