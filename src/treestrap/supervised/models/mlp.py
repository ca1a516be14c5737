"""Multilayer perceptron with one or two tanh hidden layers, Serban section 3.2 (eqs.
3.14-3.16): a logistic regression on learned features ``tanh(W x + b)``.

tanh rather than the logistic function because it is anti-symmetric around zero, which
Serban (3.2.1) and LeCun et al. found to train better. The layers are those of
:func:`treestrap.evaluation.torch_network.mlp` (the network non-linear TreeStrap steps
too); hidden layers start from :func:`~treestrap.supervised.models.layers.glorot_`,
biases and the top layer from zero (3.2.3).
"""

from __future__ import annotations

from collections.abc import Sequence

from treestrap.evaluation.torch_network import mlp
from treestrap.supervised.models.layers import CLASSES, glorot_, nn, torch, zero_


def build(n_inputs: int, hidden: Sequence[int], gen: torch.Generator) -> nn.Module:
    """An MLP over ``n_inputs`` with the given hidden widths and Serban's start, drawn
    from ``gen``."""
    if not hidden or any(h < 1 for h in hidden):
        raise ValueError(f"an MLP needs one or more hidden layers of >= 1 unit, got {hidden}")
    net = mlp(n_inputs, hidden, CLASSES)
    for layer in net.linears()[:-1]:
        zero_(layer)
        glorot_(layer.weight, layer.in_features, layer.out_features, gen)
    zero_(net.top)
    return net
