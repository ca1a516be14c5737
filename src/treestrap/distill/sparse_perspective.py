"""A perspective network in the form a fit trains: float32, on sparse inputs.

It computes what the torch twin (:mod:`treestrap.evaluation.torch_perspective`)
computes, the side to move's log-odds ``z``, but reads a position's active piece-square
inputs (:func:`~treestrap.distill.position_file.feature_lists`) instead of 769-wide
rows: its feature transformer is a sum of ``W``'s rows (``embedding_bag``), a few dozen
rows per position where the twin multiplies 768 columns, and ``W`` is held as
``[768, N]``, the layout of the flat parameters, so the sums read contiguous rows.

Its gradient is a sparse product too: ``W``'s gradient is ``S^T G`` for ``S`` the
batch's 0/1 rows and ``G`` the accumulators' gradient, with ``S^T`` built as a CSR
matrix from a radix sort of the inputs. ``embedding_bag``'s own backward sorts them
with torch's general sort, two to four times as slow (the more so on busy cores), and
the product is as deterministic: each of ``W``'s rows is one thread's sum in a fixed
order.
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from treestrap.distill.position_file import feature_lists, white_to_move
from treestrap.evaluation.colour_flip import COLOUR_FLIP_INDEX
from treestrap.evaluation.perspective import INPUTS, MAX_PIECES, split_parameters

if TYPE_CHECKING:
    import torch


@dataclass
class SparseBatch:
    """A batch of ``rows`` positions as the sparse network reads them: ``2 * rows``
    bags of inputs, each position's side to move's inputs (the first ``rows`` bags)
    and its opponent's (the next ``rows``)."""

    inputs: torch.Tensor  # every bag's inputs, back to back
    offsets: torch.Tensor  # [2 * rows]: where each bag starts
    bucket: torch.Tensor  # [rows]: the output bucket of the position's piece count

    def __len__(self) -> int:
        return len(self.bucket)

    def bags_of_inputs(self) -> torch.Tensor:
        """``S^T``, ``[768, 2 * rows]`` in CSR: which bags read each input."""
        import torch

        inputs = self.inputs.numpy()
        sizes = np.diff(np.append(self.offsets.numpy(), len(inputs)))
        bag = np.repeat(np.arange(len(sizes)), sizes)
        order = np.argsort(inputs.astype(np.int16), kind="stable")  # a radix sort
        starts = np.concatenate([[0], np.cumsum(np.bincount(inputs, minlength=INPUTS))])
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "Sparse CSR tensor support is in beta")
            return torch.sparse_csr_tensor(
                torch.from_numpy(starts),
                torch.from_numpy(bag[order]),
                torch.ones(len(inputs)),
                (INPUTS, len(sizes)),
                check_invariants=False,
            )


def sparse_batch(records: np.ndarray, buckets: int) -> SparseBatch:
    """The inputs of position records for a network of ``buckets`` output buckets."""
    import torch

    rows, inputs = feature_lists(records)
    count = np.bincount(rows, minlength=len(records))
    starts = np.concatenate([[0], np.cumsum(count)[:-1]])
    # The side to move's accumulator reads white's inputs when white is to move, their
    # colour flip (black's view) when black is: chosen here, on the indices, where the
    # twin chooses between both accumulators.
    white = white_to_move(records)[rows]
    flipped = COLOUR_FLIP_INDEX[inputs]
    ours, theirs = np.where(white, inputs, flipped), np.where(white, flipped, inputs)
    bucket = np.minimum((count - 1) * buckets // MAX_PIECES, buckets - 1)
    return SparseBatch(
        torch.from_numpy(np.concatenate([ours, theirs])),
        torch.from_numpy(np.concatenate([starts, starts + len(inputs)]).astype(np.int64)),
        torch.from_numpy(bucket.astype(np.int64)),
    )


def sparse_perspective(width: int, buckets: int, activation: str, params: np.ndarray) -> Any:
    """The trainable network of these flat parameters (in
    :func:`~treestrap.evaluation.perspective.split_parameters` order), in float32."""
    return _sparse_class()(width, buckets, activation, np.asarray(params, dtype=np.float64))


@functools.cache
def _sparse_class() -> type:
    """The module class of :func:`sparse_perspective` (built on first use)."""
    import torch

    class FeatureSums(torch.autograd.Function):
        """Each bag's sum of ``W``'s rows; the gradient by the sparse product."""

        @staticmethod
        def forward(ctx: Any, weight: torch.Tensor, batch: SparseBatch) -> torch.Tensor:
            ctx.batch = batch
            return torch.nn.functional.embedding_bag(
                batch.inputs, weight, batch.offsets, mode="sum"
            )

        @staticmethod
        def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
            return ctx.batch.bags_of_inputs() @ grad, None

    class SparsePerspective(torch.nn.Module):
        """``(768 -> N) x 2 -> buckets`` on :class:`SparseBatch` es."""

        def __init__(self, width: int, buckets: int, activation: str, params: np.ndarray):
            super().__init__()
            self.width, self.buckets, self.activation = width, buckets, activation
            parts = split_parameters(params.reshape(-1), width, buckets)
            w, b, ow, ob = (torch.tensor(p, dtype=torch.float32) for p in parts)
            self.features = torch.nn.Parameter(w)  # [768, N]
            self.bias = torch.nn.Parameter(b)
            self.out_weight = torch.nn.Parameter(ow)  # [B, 2N], the side to move's half first
            self.out_bias = torch.nn.Parameter(ob)

        def flat_parameters(self) -> np.ndarray:
            """The parameters, flat in ``split_parameters`` order, as float64."""
            parts = (self.features, self.bias, self.out_weight, self.out_bias)
            return np.concatenate([p.detach().double().numpy().reshape(-1) for p in parts])

        def side_to_move_logit(self, batch: SparseBatch) -> torch.Tensor:
            """``z`` of the side to move, ``[rows]``."""
            rows = len(batch)
            a = FeatureSums.apply(self.features, batch) + self.bias
            h = torch.clamp(torch.cat([a[:rows], a[rows:]], dim=1), 0.0, 1.0)
            if self.activation == "screlu":
                h = h * h
            z = h @ self.out_weight.T + self.out_bias  # [rows, B]: every bucket's output
            return z.gather(1, batch.bucket[:, None])[:, 0]

    return SparsePerspective
