"""Perspective network weight files, and the model that searches and players use.

A perspective network's weight file is a weight file of
:mod:`treestrap.evaluation.weight_file_format` with ``"model": "perspective"``::

    {"format": "treestrap-weights", "version": 1, "model": "perspective",
     "feature_set": "bitboard", "layout_hash": "...", "width": 256, "buckets": 1,
     "activation": "crelu" (or "screlu"), "quantization": {"QA": 256, "QB": 1024},
     "output": "z_win - z_loss (side to move)", "mapping": "...", "shape": [197633],
     "metadata": {...provenance...}}

``weights`` is the flat parameter vector of :mod:`treestrap.evaluation.perspective`
(``W[768, N]`` input-major, ``b[N]``, output weights ``[B, 2N]``, output biases
``[B]``), every value on the integer grid the compiled network runs on, so the file,
the compiled network and the float64 torch twin are the same function.
:func:`treestrap.evaluation.weight_files.load_weights` reads these files, so ``treestrap
uci``, ``weights show`` and tournament players take them as any other weights.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from treestrap.core.position import Position
from treestrap.evaluation.feature_sets import get_feature_set
from treestrap.evaluation.feature_sets.feature_set import FeatureSet
from treestrap.evaluation.model import PERSPECTIVE as PERSPECTIVE_KIND
from treestrap.evaluation.model import Evaluator, evaluate, make_evaluator
from treestrap.evaluation.perspective import (
    ACTIVATIONS,
    INPUTS,
    QA,
    QB,
    pack_perspective,
    parameter_count,
    quantize,
    write_parameters,
)
from treestrap.evaluation.weight_file_format import (
    FORMAT,
    VERSION,
    WeightFileError,
    check_vector,
    stored_metadata,
    write_weight_file,
)

#: The ``model`` field of a perspective network's weight file.
PERSPECTIVE = "perspective"
OUTPUT = "z_win - z_loss (side to move)"
MAPPING = "cp = (400 / ln 10) * (z_win - z_loss), the side to move's"
_SPEC = re.compile(r"perspective:(?P<width>\d+)(?P<rest>(:[a-z0-9]+)*)")


def parse_spec(spec: str) -> tuple[int, str, int]:
    """``(width, activation, buckets)`` of a ``--model`` value such as
    ``perspective:256``, ``perspective:256:screlu`` or ``perspective:512:buckets8``."""
    m = _SPEC.fullmatch(spec)
    if m is None:
        raise ValueError(f"not a perspective network: {spec!r} (e.g. perspective:256:screlu)")
    activation, buckets = "crelu", 1
    for part in filter(None, m.group("rest").split(":")):
        if part in ACTIVATIONS:
            activation = part
        elif part.startswith("buckets") and part[7:].isdigit():
            buckets = int(part[7:])
        else:
            raise ValueError(f"{spec!r}: unknown part {part!r} (crelu, screlu or bucketsB)")
    return int(m.group("width")), activation, buckets


@dataclass
class PerspectiveModel:
    """A perspective network: accumulator width, parameters (on the grid), provenance."""

    width: int
    weights: np.ndarray
    metadata: dict[str, Any] = field(default_factory=dict)
    #: the accumulators' activation, a name of ``perspective.ACTIVATIONS``
    activation: str = "crelu"
    #: output buckets by piece count
    buckets: int = 1
    #: a network: its parameters are fitted through its torch twin
    is_network: ClassVar[bool] = True
    #: fitted offline: no self-play rule learns one (yet), so a run refuses to start from it
    learns_online: ClassVar[bool] = False

    def __post_init__(self) -> None:
        if self.activation not in ACTIVATIONS:
            raise ValueError(
                f"unknown activation {self.activation!r} (known: {', '.join(ACTIVATIONS)})"
            )
        self.width, self.buckets = int(self.width), int(self.buckets)
        if self.width < 1 or not 1 <= self.buckets <= 32:
            raise ValueError(f"width {self.width} and buckets {self.buckets} (1 to 32)")
        self.weights = quantize(self.weights, self.width, self.buckets, self.activation)

    @property
    def feature_set(self) -> FeatureSet:
        """What its twin reads and its gradient pairs are: the ``bitboard`` inputs."""
        return get_feature_set("bitboard")

    def report(self) -> str:
        """What ``weights show`` prints of it."""
        return describe_perspective(self)

    @property
    def feature_set_name(self) -> str:
        return self.feature_set.name

    @property
    def sizes(self) -> list[int]:
        """The accumulator's width and the one output."""
        return [self.width, 1]

    @property
    def spec(self) -> str:
        """The ``--model`` value: "perspective:256", "perspective:256:screlu:buckets8"."""
        parts = [PERSPECTIVE, str(self.width)]
        parts += [self.activation] if self.activation != "crelu" else []
        parts += [f"buckets{self.buckets}"] if self.buckets > 1 else []
        return ":".join(parts)

    def describe(self) -> str:
        """``perspective (768 -> 256) x 2 -> 1, crelu`` and the buckets if any."""
        text = f"perspective ({INPUTS} -> {self.width}) x 2 -> 1, {self.activation}"
        return text if self.buckets == 1 else f"{text}, {self.buckets} output buckets"

    def evaluator(self, incremental: bool = True) -> Evaluator:
        """The compiled view, with its own accumulators; ``incremental=False``
        recomputes them at every evaluation (for checks and benchmarks)."""
        buf = pack_perspective(self.weights, self.width, self.buckets, self.activation, incremental)
        return make_evaluator(self.feature_set.id, buf, PERSPECTIVE_KIND)

    def evaluate(self, pos: Position) -> float:
        """Side-to-move score of a position (unclipped)."""
        return float(evaluate(pos, self.evaluator()))

    def torch_twin(self, dtype: Any = None) -> Any:
        """A torch module equal to this network (float64 unless ``dtype`` says),
        reading ``bitboard`` rows (:mod:`treestrap.evaluation.torch_perspective`)."""
        from treestrap.evaluation.torch_perspective import torch_perspective

        return torch_perspective(self.width, self.buckets, self.activation, self.weights, dtype)

    @staticmethod
    def write_evaluator(ev: Evaluator, params: np.ndarray) -> None:
        """New parameters into an evaluator of this kind, in place (rounded to the
        grid; the accumulators forgotten)."""
        if ev.kind != PERSPECTIVE_KIND:
            raise ValueError("not a perspective network's evaluator")
        write_parameters(ev.weights, params)

    def save(self, path: str | Path) -> None:
        """Write the weight file atomically."""
        fs = self.feature_set
        meta = {
            "format": FORMAT,
            "version": VERSION,
            "model": PERSPECTIVE,
            "feature_set": fs.name,
            "layout_hash": fs.layout_hash,
            "width": self.width,
            "buckets": self.buckets,
            "activation": self.activation,
            "quantization": {"QA": QA, "QB": QB},
            "output": OUTPUT,
            "mapping": MAPPING,
            "shape": list(self.weights.shape),
            "metadata": self.metadata,
        }
        write_weight_file(Path(path), self.weights, meta)


def perspective_from_meta(
    path: Path, meta: dict[str, Any], weights: np.ndarray
) -> PerspectiveModel:
    """Check a perspective network file's meta and weights (read by ``load_weights``)."""
    fs = get_feature_set("bitboard")
    if meta.get("feature_set") != fs.name or meta.get("layout_hash") != fs.layout_hash:
        raise WeightFileError(
            f"{path}: a perspective network on {meta.get('feature_set')!r} (layout hash "
            f"{meta.get('layout_hash')}); this build's read {fs.name!r} (hash {fs.layout_hash})"
        )
    if meta.get("output") != OUTPUT or meta.get("quantization") != {"QA": QA, "QB": QB}:
        raise WeightFileError(
            f"{path}: output {meta.get('output')!r}, quantization {meta.get('quantization')}; "
            f"this build reads {OUTPUT!r} with QA {QA}, QB {QB}"
        )
    width, buckets, activation = meta.get("width"), meta.get("buckets"), meta.get("activation")
    if not isinstance(width, int) or not isinstance(buckets, int) or activation not in ACTIVATIONS:
        raise WeightFileError(
            f"{path}: bad width {width!r}, buckets {buckets!r} or activation {activation!r}"
        )
    check_vector(path, meta, weights)
    if weights.size != parameter_count(width, buckets):
        raise WeightFileError(
            f"{path}: {weights.size} weights for width {width} and {buckets} buckets "
            f"({parameter_count(width, buckets)} expected)"
        )
    metadata = stored_metadata(path, meta, weights)
    try:
        model = PerspectiveModel(width, weights, metadata, str(activation), buckets)
    except ValueError as exc:
        raise WeightFileError(f"{path}: {exc}") from None
    if not np.array_equal(model.weights, weights):
        raise WeightFileError(f"{path}: weights off the network's integer grid")
    return model


def describe_perspective(model: PerspectiveModel) -> str:
    """A short text report of a perspective network file: shape, parameters, metadata."""
    w = model.weights
    first = w[: INPUTS * model.width]
    lines = [
        f"model: {model.describe()} on the {INPUTS} piece-square inputs per perspective "
        f"(spec {model.spec})",
        f"output: {OUTPUT}; {MAPPING}",
        f"quantization: int16 accumulators, feature weights in 1/{QA}, output weights in 1/{QB}",
        f"parameters: {w.size}  feature weights mean {first.mean():+.4f}  std "
        f"{first.std():.4f}  min {first.min():+.4f}  max {first.max():+.4f}",
    ]
    meta = sorted((k, v) for k, v in model.metadata.items() if k != "provenance")
    lines += [f"{key}: {value}" for key, value in meta]
    return "\n".join(lines)
