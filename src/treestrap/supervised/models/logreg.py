"""Multinomial logistic regression, the 3-class linear softmax of Serban section 3.1
(eq. 3.2): ``P(y = k | x) = softmax(b_k + w_k . x)``.

Serban fixes the last class's score at zero (K - 1 free score functions); here all three
are free, which gives the same probabilities with one redundant direction that the
training never needs to resolve. Only differences of scores matter, e.g. ``z_win -
z_loss``, the quantity :mod:`treestrap.supervised.convert` turns into centipawns.
"""

from __future__ import annotations

from treestrap.supervised.models.layers import CLASSES, nn, torch, zero_


class LogisticRegression(nn.Module):
    """One linear layer to three class scores, started at zero (a convex problem)."""

    def __init__(self, n_inputs: int) -> None:
        super().__init__()
        self.linear = nn.Linear(n_inputs, CLASSES)
        zero_(self.linear)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(x)


def build(n_inputs: int, gen: torch.Generator) -> LogisticRegression:
    del gen  # nothing random: the start is zero
    return LogisticRegression(n_inputs)
