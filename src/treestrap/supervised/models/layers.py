"""What every model shares: Serban's initialisation (section 3.2.3), input centring
(section 6.5) and the parameters an L1 penalty applies to (section 3.1.4).

Models are plain ``torch.nn.Module`` s that map a batch of flat input vectors
(:mod:`treestrap.supervised.inputs`) to three class scores ("logits") in the frame of
their inputs. :class:`SupervisedModel` wraps one with the input mean it subtracts, so a
checkpoint carries everything needed to evaluate it.
"""

from __future__ import annotations

import math

from treestrap.supervised.torch_required import require_torch

torch = require_torch()
nn = torch.nn

#: Outcome classes: win / draw / loss, in the frame of the inputs.
CLASSES = 3


def glorot_(weight: torch.Tensor, fan_in: int, fan_out: int, gen: torch.Generator) -> None:
    """Uniform(-r, r) with r = sqrt(6 / (fan_in + fan_out)) (Serban 3.2.3, after Bengio
    2012): large enough to break the symmetry between hidden units, small enough to keep
    tanh units off their flat tails."""
    r = math.sqrt(6.0 / (fan_in + fan_out))
    with torch.no_grad():
        weight.copy_((torch.rand(weight.shape, generator=gen) * 2.0 - 1.0) * r)


def zero_(layer: nn.Module) -> None:
    """Zero a layer's weight and bias: Serban starts biases and the top (LogReg) layer at
    zero; for a logistic regression the problem is convex, so the start only fixes the path."""
    with torch.no_grad():
        for p in layer.parameters():
            p.zero_()


def penalised(module: nn.Module) -> list[torch.Tensor]:
    """The parameters an L1 penalty applies to: every weight, never an intercept (eq. 3.11)."""
    return [p for name, p in module.named_parameters() if not name.endswith("bias")]


class SupervisedModel(nn.Module):
    """A model of kind ``kind`` over centred inputs: ``net(x - input_mean)``.

    ``input_mean`` is zero unless the run subtracts the training mean (``--mean-subtract``,
    Serban 6.5); keeping it as a buffer puts it in every checkpoint and lets
    :mod:`treestrap.supervised.convert` fold it into a linear model's constant.
    """

    def __init__(self, kind: str, net: nn.Module, n_inputs: int) -> None:
        super().__init__()
        self.kind = kind
        self.net = net
        self.register_buffer("input_mean", torch.zeros(n_inputs))

    def centre(self, x: torch.Tensor) -> torch.Tensor:
        return x - self.input_mean

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(self.centre(x))
