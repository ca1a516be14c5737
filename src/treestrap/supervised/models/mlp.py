"""Multilayer perceptron with one or two tanh hidden layers, Serban section 3.2 (eqs.
3.14-3.16): a logistic regression on learned features ``tanh(W x + b)``.

tanh rather than the logistic function because it is anti-symmetric around zero, which
Serban (3.2.1) and LeCun et al. found to train better. Hidden layers start from
:func:`~treestrap.supervised.models.layers.glorot_`, biases and the top layer from zero
(3.2.3).
"""

from __future__ import annotations

from collections.abc import Sequence

from treestrap.supervised.models.layers import CLASSES, glorot_, nn, torch, zero_


class MLP(nn.Module):
    def __init__(self, n_inputs: int, hidden: Sequence[int], gen: torch.Generator) -> None:
        super().__init__()
        if not hidden or any(h < 1 for h in hidden):
            raise ValueError(f"an MLP needs one or more hidden layers of >= 1 unit, got {hidden}")
        layers: list[nn.Module] = []
        fan_in = n_inputs
        for width in hidden:
            layer = nn.Linear(fan_in, width)
            zero_(layer)
            glorot_(layer.weight, fan_in, width, gen)
            layers += [layer, nn.Tanh()]
            fan_in = width
        top = nn.Linear(fan_in, CLASSES)
        zero_(top)
        self.hidden = nn.Sequential(*layers)
        self.top = top

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.top(self.hidden(x))


def build(n_inputs: int, hidden: Sequence[int], gen: torch.Generator) -> MLP:
    return MLP(n_inputs, hidden, gen)
