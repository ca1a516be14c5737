"""Network weight files, and the network model that searches and players use.

A network weight file is a weight file of :mod:`treestrap.evaluation.weight_file_format`
(``.npz``, members ``weights`` and ``meta``) with ``"model": "network"``::

    {"format": "treestrap-weights", "version": 1, "model": "network",
     "feature_set": "bitboard", "layout_hash": "...", "layers": [20, 1],
     "activation": "tanh" (or "crelu"), "output": "z_win - z_loss (white)", "mapping": "...",
     "shape": [15421], "metadata": {...provenance...}}

``weights`` is the flat parameter vector of :mod:`treestrap.evaluation.network` (layer 0
as ``W0[769, size0]`` then ``b0``, each further layer ``Wk[size_k, size_k-1]`` then
``bk``). A hybrid network's file adds ``"linear": {"feature_set": "meep", "layout_hash":
"...", "size": N}`` and its ``weights`` end with those N linear weights, whose score
is added to the network's. :func:`treestrap.evaluation.weight_files.load_weights` reads
these files as it reads linear ones, so ``treestrap uci --weights`` and tournament
players take either kind. Files are written by code only:
:func:`treestrap.supervised.convert.convert_network` from a supervised checkpoint, and
training runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from treestrap.core.position import Position
from treestrap.evaluation.feature_sets import get_feature_set
from treestrap.evaluation.feature_sets.feature_set import FeatureSet
from treestrap.evaluation.model import NETWORK as NETWORK_KIND
from treestrap.evaluation.model import Evaluator, evaluate, make_evaluator
from treestrap.evaluation.network import (
    ACTIVATIONS,
    H_INPUTS,
    H_SIZES,
    check_sizes,
    invalidate_accumulators,
    pack_network,
    packed_parameters,
    parameter_count,
    quantize_first_layer,
)
from treestrap.evaluation.outcome import MAPPING
from treestrap.evaluation.weight_file_format import (
    FORMAT,
    VERSION,
    WeightFileError,
    check_vector,
    stored_metadata,
    write_weight_file,
)

#: The ``model`` field of a network weight file.
NETWORK = "network"
OUTPUT = "z_win - z_loss (white)"


@dataclass
class NetworkModel:
    """A network on the ``bitboard`` inputs: layer sizes (the last is 1) and the flat
    parameters of :mod:`treestrap.evaluation.network`, with provenance metadata."""

    sizes: list[int]
    weights: np.ndarray
    metadata: dict[str, Any] = field(default_factory=dict)
    #: A hybrid's linear part: weights over ``linear_set`` added to the network's score
    #: (kept as they are by network learning).
    linear: np.ndarray | None = None
    linear_set: str = "meep"
    #: The hidden units' activation, a name of ``network.ACTIVATIONS``.
    activation: str = "tanh"
    #: a network, learned by Algorithm 7 through its torch twin
    is_network: ClassVar[bool] = True

    def __post_init__(self) -> None:
        if self.activation not in ACTIVATIONS:
            raise ValueError(
                f"unknown activation {self.activation!r} (known: {', '.join(ACTIVATIONS)})"
            )
        if self.linear is not None:
            self.linear = np.asarray(self.linear, dtype=np.float64).reshape(-1)
            size = self.linear_feature_set.size
            if self.linear.shape != (size,):
                raise ValueError(
                    f"{self.linear.size} linear weights do not fit feature set "
                    f"{self.linear_set!r} ({size})"
                )
        self.sizes = [int(s) for s in self.sizes]
        check_sizes(self.sizes)
        fs = self.feature_set
        expected = parameter_count(fs.size, self.sizes)
        w = np.asarray(self.weights, dtype=np.float64).reshape(-1)
        if w.shape != (expected,):
            raise ValueError(
                f"{w.shape[0]} parameters do not fit a network of layers {self.sizes} "
                f"({expected} expected)"
            )
        self.weights = quantize_first_layer(w, fs.size, self.sizes[0])

    @property
    def feature_set(self) -> FeatureSet:
        return get_feature_set("bitboard")

    @property
    def feature_set_name(self) -> str:
        return self.feature_set.name

    @property
    def spec(self) -> str:
        """The ``--model`` value of this network: "logreg", "mlp:20" or "crelu:256"."""
        hidden = self.sizes[:-1]
        kind = "mlp" if self.activation == "tanh" else self.activation
        return f"{kind}:" + ",".join(map(str, hidden)) if hidden else "logreg"

    @property
    def linear_feature_set(self) -> FeatureSet:
        return get_feature_set(self.linear_set)

    def describe(self) -> str:
        """``logreg``, ``mlp 20`` or ``crelu 256`` (hidden sizes), with ``+ linear meep``
        for a hybrid."""
        hidden = self.sizes[:-1]
        kind = "mlp" if self.activation == "tanh" else self.activation
        text = f"{kind} " + ",".join(map(str, hidden)) if hidden else "logreg"
        return text if self.linear is None else f"{text} + linear {self.linear_set}"

    def evaluator(self, incremental: bool = True) -> Evaluator:
        """The compiled-code view, with its own accumulators; ``incremental=False``
        recomputes the first layer at every evaluation (for benchmarks and checks)."""
        linear_set = -1 if self.linear is None else self.linear_feature_set.id
        buf = pack_network(
            self.weights, self.sizes, incremental, self.linear, linear_set, self.activation
        )
        return make_evaluator(self.feature_set.id, buf, NETWORK_KIND)

    def evaluate(self, pos: Position) -> float:
        """Side-to-move score of a position (unclipped)."""
        return float(evaluate(pos, self.evaluator()))

    def report(self) -> str:
        """What ``weights show`` prints of it."""
        return describe_network(self)

    def torch_twin(self) -> Any:
        """A float64 torch module equal to this network (without a hybrid's linear part),
        for fitting; :func:`~treestrap.evaluation.torch_network.network_parameters_of`
        reads its parameters back."""
        from treestrap.evaluation.torch_network import torch_network

        return torch_network(list(self.sizes), self.weights, activation=self.activation)

    @staticmethod
    def write_evaluator(ev: Evaluator, params: np.ndarray) -> None:
        """New parameters into an evaluator of this kind, in place."""
        update_network_evaluator(ev, params)

    def save(self, path: str | Path) -> None:
        save_network(self, path)


def save_network(model: NetworkModel, path: str | Path) -> None:
    """Write ``model`` to ``path`` atomically (temporary file, then rename)."""
    path = Path(path)
    fs = model.feature_set
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "model": NETWORK,
        "feature_set": fs.name,
        "layout_hash": fs.layout_hash,
        "layers": model.sizes,
        "activation": model.activation,
        "output": OUTPUT,
        "mapping": MAPPING,
        "shape": list(model.weights.shape),
        "metadata": model.metadata,
    }
    weights = model.weights
    if model.linear is not None:
        linear_fs = model.linear_feature_set
        meta["linear"] = {
            "feature_set": linear_fs.name,
            "layout_hash": linear_fs.layout_hash,
            "size": linear_fs.size,
        }
        weights = np.concatenate([model.weights, model.linear])
        meta["shape"] = [weights.size]
    write_weight_file(path, weights, meta)


def network_from_meta(path: Path, meta: dict[str, Any], weights: np.ndarray) -> NetworkModel:
    """Check a network file's meta and weights (already read by ``load_weights``)."""
    activation = meta.get("activation")
    if activation not in ACTIVATIONS or meta.get("output") != OUTPUT:
        raise WeightFileError(
            f"{path}: network with activation {activation!r} and output "
            f"{meta.get('output')!r}; this build reads {' or '.join(map(repr, ACTIVATIONS))} "
            f"and {OUTPUT!r}"
        )
    fs = get_feature_set("bitboard")
    if meta.get("feature_set") != fs.name or meta.get("layout_hash") != fs.layout_hash:
        raise WeightFileError(
            f"{path}: a network on feature set {meta.get('feature_set')!r} (layout hash "
            f"{meta.get('layout_hash')}); this build's networks read {fs.name!r} "
            f"(hash {fs.layout_hash})"
        )
    layers = meta.get("layers")
    if not isinstance(layers, list) or not all(isinstance(s, int) for s in layers):
        raise WeightFileError(f"{path}: bad layer sizes {layers!r}")
    check_vector(path, meta, weights)
    metadata = stored_metadata(path, meta, weights)
    linear, linear_set = None, "meep"
    part = meta.get("linear")
    if part is not None:
        try:
            linear_fs = get_feature_set(str(part["feature_set"]))
            size = int(part["size"])
        except (KeyError, TypeError, ValueError):
            raise WeightFileError(f"{path}: bad linear part {part!r:.80}") from None
        if part.get("layout_hash") != linear_fs.layout_hash or size != linear_fs.size:
            raise WeightFileError(
                f"{path}: a linear part on feature set {linear_fs.name!r} of another "
                f"layout (hash {part.get('layout_hash')}, this build {linear_fs.layout_hash})"
            )
        if size >= weights.size:
            raise WeightFileError(f"{path}: {weights.size} weights hold no network")
        weights, linear, linear_set = weights[:-size], weights[-size:], linear_fs.name
    try:
        return NetworkModel(layers, weights, metadata, linear, linear_set, str(activation))
    except ValueError as exc:
        raise WeightFileError(f"{path}: {exc}") from None


def describe_network(model: NetworkModel) -> str:
    """A short text report of a network file: shape, parameter statistics, metadata."""
    w = model.weights
    lines = [
        f"model: {model.describe()} network on {model.feature_set.name} "
        f"(layers {model.sizes}, {model.activation} hidden units)",
        f"output: {OUTPUT}; {MAPPING}",
        f"parameters: {w.size}  mean {w.mean():+.4f}  std {w.std():.4f}  "
        f"min {w.min():+.4f}  max {w.max():+.4f}",
    ]
    if model.linear is not None:
        lines.append(
            f"linear part: {model.linear.size} weights on {model.linear_set}, added to the "
            "network's score (kept fixed by network learning)"
        )
    # The provenance record is printed as a chain by ``weights show``, not as a value.
    meta = sorted((k, v) for k, v in model.metadata.items() if k != "provenance")
    lines += [f"{key}: {value}" for key, value in meta]
    return "\n".join(lines)


def update_network_evaluator(ev: Evaluator, params: np.ndarray) -> None:
    """Write new parameters into a network evaluator in place, so every search holding
    it sees them (what a learner does after a step): layer 0 is rounded to the exact
    grid and the accumulators are forgotten (:mod:`treestrap.evaluation.network`)."""
    if ev.kind != NETWORK_KIND:
        raise ValueError("not a network evaluator")
    buf = ev.weights
    target = packed_parameters(buf)
    params = np.asarray(params, dtype=np.float64).reshape(-1)
    if params.shape != target.shape:
        raise ValueError(f"{params.size} parameters for a network of {target.size}")
    size0 = int(buf[H_SIZES])
    target[:] = quantize_first_layer(params, int(buf[H_INPUTS]), size0)
    invalidate_accumulators(buf)
