"""The registry of supervised models (Serban 2014, chapter 3), one module each.

=============  ===================================================  ==============
kind           model                                                 thesis
=============  ===================================================  ==============
``logreg``     3-class softmax regression                            3.1
``mlp``        1 or 2 tanh hidden layers (``hidden``)                 3.2
``convnet``    planes, convolutions (``kernels``/``maps``), ``fc``    3.3, Table 6.14
``moe``        softmax gate over ``experts`` logistic experts        3.5, Algorithm 5
``stockfish``  logistic regression on Stockfish's score              6.2.1, Table 6.12
=============  ===================================================  ==============

:class:`ModelSpec` is what a checkpoint records to rebuild a model; :func:`build_model`
makes one with its initial weights drawn from ``seed`` alone.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from treestrap.supervised.models import convnet, logreg, mlp, moe, stockfish
from treestrap.supervised.models.layers import SupervisedModel, torch

MODEL_KINDS = ("logreg", "mlp", "convnet", "moe", "stockfish")

#: Which fields of a spec each kind uses (the rest are ignored and not recorded).
_SIZES = {
    "logreg": (),
    "mlp": ("hidden",),
    "convnet": ("kernels", "maps", "fc"),
    "moe": ("experts",),
    "stockfish": (),
}


@dataclass(frozen=True)
class ModelSpec:
    """A model's kind and sizes: enough to rebuild it before loading its weights."""

    kind: str
    n_inputs: int
    #: MLP: units of each hidden layer (Serban 6.9.1: 10 on bitboards, ~60-61%).
    hidden: tuple[int, ...] = (10,)
    #: ConvNet: kernel size of each convolution (5 then 3, Table 6.14).
    kernels: tuple[int, ...] = (5, 3)
    #: ConvNet: feature maps of each convolution (his smallest net, 5 and 10).
    maps: tuple[int, ...] = (5, 10)
    #: ConvNet: units of the fully connected layer.
    fc: int = 100
    #: Mixture of experts: number of experts (2 in the issue's benchmark).
    experts: int = 2

    def sizes(self) -> dict[str, Any]:
        """The sizes this kind uses, JSON-ready."""
        return {
            k: list(v) if isinstance(v, tuple) else v
            for k, v in asdict(self).items()
            if k in _SIZES[self.kind]
        }

    @classmethod
    def from_sizes(cls, kind: str, n_inputs: int, sizes: dict[str, Any]) -> ModelSpec:
        if kind not in MODEL_KINDS:
            raise ValueError(f"unknown model kind {kind!r} (known: {', '.join(MODEL_KINDS)})")
        fields = {k: tuple(v) if isinstance(v, list) else v for k, v in sizes.items()}
        unknown = set(fields) - set(_SIZES[kind])
        if unknown:
            raise ValueError(f"sizes {sorted(unknown)} do not apply to a {kind} model")
        return cls(kind=kind, n_inputs=n_inputs, **fields)

    def describe(self) -> str:
        """A short name: ``mlp 20,20``, ``convnet 5x5:5,3x3:10 fc100``, ``moe K=2``."""
        if self.kind == "mlp":
            return "mlp " + ",".join(map(str, self.hidden))
        if self.kind == "convnet":
            convs = ",".join(f"{k}x{k}:{m}" for k, m in zip(self.kernels, self.maps, strict=True))
            return f"convnet {convs} fc{self.fc}"
        if self.kind == "moe":
            return f"moe K={self.experts}"
        return self.kind


def build_model(spec: ModelSpec, seed: int) -> SupervisedModel:
    """A fresh model whose initial weights depend on ``seed`` only."""
    gen = torch.Generator().manual_seed(seed)
    if spec.kind == "logreg":
        net = logreg.build(spec.n_inputs, gen)
    elif spec.kind == "mlp":
        net = mlp.build(spec.n_inputs, spec.hidden, gen)
    elif spec.kind == "convnet":
        net = convnet.build(spec.n_inputs, spec.kernels, spec.maps, spec.fc, gen)
    elif spec.kind == "moe":
        net = moe.build(spec.n_inputs, spec.experts, gen)
    elif spec.kind == "stockfish":
        net = stockfish.build(spec.n_inputs, gen)
    else:
        raise ValueError(f"unknown model kind {spec.kind!r} (known: {', '.join(MODEL_KINDS)})")
    return SupervisedModel(spec.kind, net, spec.n_inputs)


__all__ = ["MODEL_KINDS", "ModelSpec", "SupervisedModel", "build_model"]
