"""Positions' linear features as sparse rows, for fitting a linear evaluation in PyTorch.

A linear evaluation scores ``theta . phi(s)`` for the side to move over a feature set's
sparse pairs. Fitting ``theta`` offline (``treestrap distill fit --fit-linear``) needs
each position's pairs at hand: :func:`linear_features` extracts them once with the
compiled feature set, and :meth:`SparseRows.white_scores` turns a batch of them into
white's scores with a ``torch.nn.EmbeddingBag`` that holds ``theta``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from treestrap.evaluation.feature_sets.feature_set import FeatureSet

if TYPE_CHECKING:
    import torch


@dataclass
class SparseRows:
    """Row ``i``'s pairs are ``idx``/``val`` at ``offsets[i]:offsets[i + 1]``;
    ``white_sign`` turns a row's score into white's (-1 where black is to move and the
    feature set scores for the side to move, +1 otherwise)."""

    idx: np.ndarray  # int64
    val: np.ndarray  # float32
    offsets: np.ndarray  # int64, one more than the rows
    white_sign: np.ndarray  # float32

    def __len__(self) -> int:
        return len(self.white_sign)

    def take(self, rows: np.ndarray) -> SparseRows:
        """Rows ``rows``, in that order."""
        starts = self.offsets[rows]
        lengths = self.offsets[rows + 1] - starts
        offsets = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        # position of each output pair in the source arrays
        source = np.repeat(starts - offsets[:-1], lengths) + np.arange(offsets[-1])
        return SparseRows(self.idx[source], self.val[source], offsets, self.white_sign[rows])

    def white_scores(self, bag: torch.nn.EmbeddingBag) -> torch.Tensor:
        """``theta . phi`` of every row for white, ``theta`` being ``bag``'s weights."""
        import torch

        side = bag(
            torch.from_numpy(self.idx),
            torch.from_numpy(self.offsets[:-1]),
            per_sample_weights=torch.from_numpy(self.val),
        ).squeeze(1)
        return side * torch.from_numpy(self.white_sign)


def linear_features(epds: Sequence[str], feature_set: FeatureSet) -> SparseRows:
    """The pairs of ``feature_set`` of each position (EPD: board, side, castling, en
    passant); an index may repeat (the bag sums it)."""
    from treestrap.core.notation import parse_fen
    from treestrap.evaluation.feature_sets.feature_set import PERSPECTIVE_SIDE_TO_MOVE

    side_to_move = feature_set.perspective == PERSPECTIVE_SIDE_TO_MOVE

    idx = np.zeros(feature_set.max_active, dtype=np.int32)
    val = np.zeros(feature_set.max_active, dtype=np.float64)
    all_idx: list[np.ndarray] = []
    all_val: list[np.ndarray] = []
    offsets = np.zeros(len(epds) + 1, dtype=np.int64)
    sign = np.ones(len(epds), dtype=np.float32)
    for i, epd in enumerate(epds):
        n = feature_set.extract(parse_fen(epd + " 0 1"), idx, val)
        all_idx.append(idx[:n].astype(np.int64))
        all_val.append(val[:n].astype(np.float32))
        offsets[i + 1] = offsets[i] + n
        if side_to_move and epd.split()[1] == "b":
            sign[i] = -1.0
    if not epds:
        return SparseRows(np.zeros(0, np.int64), np.zeros(0, np.float32), offsets, sign)
    return SparseRows(np.concatenate(all_idx), np.concatenate(all_val), offsets, sign)
