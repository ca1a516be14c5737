"""The torch twin of a perspective network (:mod:`treestrap.evaluation.perspective`).

It reads what every chess twin reads, rows of the 769 ``bitboard`` inputs, and gives
what :func:`treestrap.learn.replay.minibatch_step` reads from any twin: class scores
``(z, 0, 0)`` with ``z = z_win - z_loss`` in white's frame. Inside it does what the
compiled network does: the feature transformer over the 768 piece-square inputs and
over their colour flip (black's perspective), the two accumulators side to move first,
the clipped (or squared clipped) ReLU, the output of the piece count's bucket.

In float64 on the parameters' grid every sum is exact, so its ``z`` equals the
compiled network's bit for bit; in float32 (as a trainer would run it) to rounding.
torch is imported by the functions that need it only.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from treestrap.evaluation.colour_flip import COLOUR_FLIP_INDEX
from treestrap.evaluation.perspective import INPUTS, MAX_PIECES, split_parameters


def torch_perspective(
    width: int, buckets: int, activation: str, params: np.ndarray, dtype: Any = None
) -> Any:
    """A torch module equal to the perspective network of these parameters (flat, in
    :func:`~treestrap.evaluation.perspective.split_parameters` order); float64 unless
    ``dtype`` says otherwise."""
    import torch

    twin = _twin_class()(width, buckets, activation, dtype or torch.float64)
    params = np.asarray(params, dtype=np.float64).reshape(-1)
    w, b, ow, ob = split_parameters(params, width, buckets)
    with torch.no_grad():
        for tensor, value in zip(twin.parameters_in_order(), (w.T, b, ow, ob), strict=True):
            tensor.copy_(torch.from_numpy(np.ascontiguousarray(value)))
    return twin


def perspective_parameters_of(twin: Any) -> np.ndarray:
    """The flat parameters of a :func:`torch_perspective` module, as float64."""
    w, b, ow, ob = (t.detach().double().numpy() for t in twin.parameters_in_order())
    return np.concatenate([w.T.reshape(-1), b, ow.reshape(-1), ob])


@functools.cache
def _twin_class() -> type:
    """The module class of :func:`torch_perspective` (built on first use)."""
    import torch

    class PerspectiveTwin(torch.nn.Module):
        """``(768 -> N) x 2 -> buckets`` on ``bitboard`` rows; see the module docstring."""

        def __init__(self, width: int, buckets: int, activation: str, dtype: Any) -> None:
            super().__init__()
            self.width, self.buckets, self.activation = width, buckets, activation
            self.transformer = torch.nn.Linear(INPUTS, width, dtype=dtype)
            self.output = torch.nn.Linear(2 * width, buckets, dtype=dtype)
            # Black's input j is white's input flip(j) (the flip is its own inverse).
            flip = torch.as_tensor(COLOUR_FLIP_INDEX[:INPUTS], dtype=torch.long)
            self.register_buffer("flip", flip)

        def parameters_in_order(self) -> list[torch.Tensor]:
            """Feature weights ``[N, 768]``, biases, output weights ``[B, 2N]``, biases."""
            t, o = self.transformer, self.output
            return [t.weight, t.bias, o.weight, o.bias]

        def side_to_move_logit(self, x: torch.Tensor) -> torch.Tensor:
            """``z`` of the side to move, ``[rows]``."""
            x = x.to(self.transformer.weight.dtype)
            pieces = x[:, :INPUTS]
            white = x[:, INPUTS:].bool()
            a_white = self.transformer(pieces)
            a_black = self.transformer(pieces[:, self.flip])
            ours = torch.where(white, a_white, a_black)
            theirs = torch.where(white, a_black, a_white)
            h = torch.clamp(torch.cat([ours, theirs], dim=1), 0.0, 1.0)
            if self.activation == "screlu":
                h = h * h
            z = self.output(h)
            count = pieces.sum(dim=1).round().long()
            bucket = torch.clamp((count - 1) * self.buckets // MAX_PIECES, max=self.buckets - 1)
            return z.gather(1, bucket[:, None])[:, 0]

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            z = self.side_to_move_logit(x)
            white = x[:, INPUTS].to(z.dtype)
            z_white = torch.where(white > 0.5, z, -z)
            return torch.nn.functional.pad(z_white[:, None], (0, 2))

    return PerspectiveTwin
