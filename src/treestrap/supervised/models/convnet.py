"""Convolutional network of Serban section 3.3 in the family of his Table 6.14 (section
6.9.3): 13 input planes (12 piece planes and a side-to-move plane, see
:func:`treestrap.supervised.inputs.to_planes`), one or two tanh convolutions without
padding or pooling (3x3, or 5x5 then 3x3), a fully connected tanh layer and a softmax.

No padding: a 5x5 then 3x3 stack leaves a 2 x 2 board of feature maps, the size whose
parameter counts Serban gives (his 20-40-200 net: 7,240 weights in the second layer).
No max-pooling: moving a piece by one square can change everything (3.3.3).
"""

from __future__ import annotations

from collections.abc import Sequence

from treestrap.evaluation.feature_sets.bitboard import BITBOARD_SIZE
from treestrap.supervised.inputs import PIECE_PLANES, to_planes
from treestrap.supervised.models.layers import CLASSES, glorot_, nn, torch, zero_

#: The board's width; each k x k convolution without padding takes k - 1 from it.
BOARD = 8


class ConvNet(nn.Module):
    def __init__(
        self,
        kernels: Sequence[int],
        maps: Sequence[int],
        fc: int,
        gen: torch.Generator,
    ) -> None:
        super().__init__()
        if not kernels or len(kernels) != len(maps):
            raise ValueError(f"one feature-map count per convolution: {kernels} vs {maps}")
        size = BOARD - sum(k - 1 for k in kernels)
        if size < 1 or any(k < 1 or k % 2 == 0 for k in kernels):
            raise ValueError(f"convolutions {kernels} must be odd and fit an 8 x 8 board")
        if fc < 1 or any(m < 1 for m in maps):
            raise ValueError("feature maps and fully connected units must be >= 1")
        convs = []
        channels = PIECE_PLANES + 1
        for k, m in zip(kernels, maps, strict=True):
            conv = nn.Conv2d(channels, m, k)
            zero_(conv)
            glorot_(conv.weight, channels * k * k, m * k * k, gen)
            convs.append(conv)
            channels = m
        self.convs = nn.ModuleList(convs)
        flat = channels * size * size
        self.fc = nn.Linear(flat, fc)
        zero_(self.fc)
        glorot_(self.fc.weight, flat, fc, gen)
        self.top = nn.Linear(fc, CLASSES)
        zero_(self.top)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = to_planes(x)
        for conv in self.convs:
            h = torch.tanh(conv(h))
        return self.top(torch.tanh(self.fc(h.flatten(1))))


def build(
    n_inputs: int, kernels: Sequence[int], maps: Sequence[int], fc: int, gen: torch.Generator
) -> ConvNet:
    if n_inputs != BITBOARD_SIZE:
        raise ValueError(
            f"the ConvNet reads bitboard planes ({BITBOARD_SIZE} inputs), not {n_inputs}"
        )
    return ConvNet(kernels, maps, fc, gen)
