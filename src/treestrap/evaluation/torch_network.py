"""Networks in torch: the one definition of a multilayer perceptron that both the
supervised MLP (:mod:`treestrap.supervised.models.mlp`) and non-linear TreeStrap's torch
twin of the compiled network (:mod:`treestrap.evaluation.network`) are built from.

An :func:`mlp` is ``top(hidden(x))``: ``hidden`` a ``Sequential`` of a ``Linear`` and
an activation (``Tanh``, or ``Hardtanh(0, 1)`` for a clipped ReLU) per hidden width,
``top`` a ``Linear`` to the outputs. Its parameters
are named ``hidden.<2k>.weight``/``.bias`` and ``top.weight``/``.bias``, the names that
supervised checkpoints store.

:func:`torch_network` makes the twin of a compiled network from its flat parameters and
:func:`network_parameters_of` reads them back; :func:`random_network_parameters` draws
a fresh network's flat parameters. torch is imported only by the functions that need it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from treestrap.evaluation.feature_sets.bitboard import BITBOARD_SIZE


def mlp(
    n_inputs: int,
    hidden: Sequence[int],
    outputs: int,
    dtype: Any = None,
    activation: str = "tanh",
) -> Any:
    """A torch module ``top(hidden(x))`` with ``activation`` ("tanh" or "crelu") after
    every hidden layer and none after ``top``; no hidden widths give a single linear
    layer. The layers get ``torch.nn.Linear``'s own initialisation, made in order from
    the input (so torch's global random stream is drawn the same way by every caller);
    callers that want other weights overwrite them."""
    if activation not in ("tanh", "crelu"):
        raise ValueError(f"unknown activation {activation!r}: tanh or crelu")
    return _mlp_class()(n_inputs, hidden, outputs, dtype, activation)


@functools.cache
def _mlp_class() -> type:
    """The module class of :func:`mlp` (built on first use: see the module docstring)."""
    import torch

    class MLP(torch.nn.Module):
        """Linear layers with an activation between them: ``top(hidden(x))``."""

        def __init__(
            self, n_inputs: int, hidden: Sequence[int], outputs: int, dtype: Any, activation: str
        ) -> None:
            super().__init__()
            layers: list[torch.nn.Module] = []
            fan_in = n_inputs
            for width in hidden:
                unit = torch.nn.Tanh() if activation == "tanh" else torch.nn.Hardtanh(0.0, 1.0)
                layers += [torch.nn.Linear(fan_in, width, dtype=dtype), unit]
                fan_in = width
            # Registered before ``top``: the parameters' order is the layers' order.
            self.hidden = torch.nn.Sequential(*layers)
            self.top = torch.nn.Linear(fan_in, outputs, dtype=dtype)

        def linears(self) -> list[torch.nn.Linear]:
            """The linear layers from the input to ``top``."""
            return [m for m in self.hidden if isinstance(m, torch.nn.Linear)] + [self.top]

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.top(self.hidden(x))

    return MLP


def random_network_parameters(
    sizes: list[int], seed: int, scale: float = 1.0, n_inputs: int = BITBOARD_SIZE
) -> np.ndarray:
    """Flat parameters (:mod:`treestrap.evaluation.network` order) of a fresh network of
    layer ``sizes`` on ``n_inputs`` inputs (chess's ``bitboard`` by default): every
    weight and bias uniform in ``+-scale/sqrt(fan_in)`` (``scale`` 1: PyTorch's
    ``nn.Linear`` default), drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    parts: list[np.ndarray] = []
    fan_in = n_inputs
    for k, size in enumerate(sizes):
        bound = scale / np.sqrt(fan_in)
        # Layer 0 is stored input-major (``W0[inputs, size0]``), the others out-major.
        shape = (fan_in, size) if k == 0 else (size, fan_in)
        parts.append(rng.uniform(-bound, bound, shape).reshape(-1))
        parts.append(rng.uniform(-bound, bound, size))
        fan_in = size
    return np.concatenate(parts)


def torch_network(
    sizes: list[int],
    params: np.ndarray,
    n_inputs: int = BITBOARD_SIZE,
    activation: str = "tanh",
) -> Any:
    """A float64 torch module equal to the compiled network of layer ``sizes``, flat
    ``params`` and hidden ``activation`` on ``n_inputs`` inputs (chess's 769 by default;
    Connect Four's 85):
    ``[B, n_inputs]`` inputs to ``[B, 3]`` scores ``(z, 0, 0)``, so that
    :func:`treestrap.learn.replay.minibatch_step` reads ``z = z_win - z_loss`` from it as
    from a supervised model. :func:`network_parameters_of` reads its parameters back in
    the same order."""
    import torch

    net = mlp(n_inputs, sizes[:-1], sizes[-1], dtype=torch.float64, activation=activation)
    params = np.asarray(params, dtype=np.float64).reshape(-1)
    tensors = _parameters_in_order(net)
    if params.size != sum(t.numel() for t in tensors):
        raise ValueError(f"{params.size} parameters for a network of layers {sizes}")
    copy_network_order(params, tensors)
    return _scores_module()(net)


def copy_network_order(flat: np.ndarray, tensors: list[Any]) -> None:
    """Write flat parameters in the compiled network's order into ``tensors``, the
    torch order (each layer's weight ``[out, in]`` then bias; the float64 parameters of
    a :func:`torch_network` or the optimizer buffers shaped like them), through numpy
    views of their memory (torch's own copies cost more than the compiled steps).
    Layer 0 is stored input-major: its rows are the inputs' columns."""
    at = 0
    for k, t in enumerate(tensors):
        view = t.detach().numpy()
        part = flat[at : at + view.size]
        if view.ndim == 2:
            out, inp = view.shape
            view[...] = part.reshape(inp, out).T if k == 0 else part.reshape(out, inp)
        else:
            view[...] = part
        at += view.size


def network_parameters_of(model: Any) -> np.ndarray:
    """The flat parameters of a :func:`torch_network` module (layer 0 input-major)."""
    return network_order(_parameters_in_order(model.net))


def _parameters_in_order(net: Any) -> list[Any]:
    """An :func:`mlp`'s weight and bias tensors, layer by layer from the input."""
    return [t for linear in net.linears() for t in (linear.weight, linear.bias)]


def network_order(tensors: list[Any]) -> np.ndarray:
    """:func:`copy_network_order`'s inverse: torch-ordered tensors as one flat vector
    in the compiled network's order."""
    parts: list[np.ndarray] = []
    for k, t in enumerate(tensors):
        a = t.detach().double().numpy()
        parts.append((a.T if k == 0 else a).reshape(-1).copy())
    return np.concatenate(parts)


def twin_shape(model: Any) -> tuple[list[int], str] | None:
    """The layer sizes and activation of a :func:`torch_network` module; ``None`` for
    any other model (a supervised one, say)."""
    import torch

    if not isinstance(model, _scores_module()):
        return None
    linears = model.net.linears()
    sizes = [linear.weight.shape[0] for linear in linears]
    tanh = any(isinstance(m, torch.nn.Tanh) for m in model.net.hidden)
    return sizes, "tanh" if tanh else "crelu"


@functools.cache
def _scores_module() -> type:
    """The module class of :func:`torch_network` (built on first use)."""
    import torch

    class ScoresOf(torch.nn.Module):
        """``net``'s single output ``z`` as class scores ``(z, 0, 0)``."""

        def __init__(self, net: torch.nn.Module) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            z = self.net(x.to(torch.float64))
            return torch.nn.functional.pad(z, (0, 2))

    return ScoresOf
