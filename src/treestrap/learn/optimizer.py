"""How an update rule's weight change is applied: the paper's plain step, or a
per-feature adaptive step (AdaGrad, Adam) on the same sparse gradient.

Every rule computes ``delta_theta = eta * g``, where ``g = sum_s delta(s) dH(s)/dtheta``
is the direction of its squared-error descent and ``eta`` its step size. ``sgd`` adds
``delta_theta`` unchanged (Veness et al. 2009). The adaptive optimizers recover ``g``
and move each weight by about ``eta`` in its own units (centipawns for meep): a
feature seen rarely (a piece-square entry) then learns as fast as one seen in every
position (material), which a single fixed step cannot give both.
"""

from __future__ import annotations

import numpy as np

from treestrap.learn.linear_hyper import OPTIMIZERS

#: Adam's moment decays (Kingma and Ba's defaults).
ADAM_BETA1 = 0.9
ADAM_BETA2 = 0.999
#: Guards the division for weights whose gradient has always been zero.
EPSILON = 1e-8


class Optimizer:
    """Applies ``delta_theta = eta * g`` to ``weights`` in place."""

    name = "sgd"

    def __init__(self, size: int, step_size: float) -> None:
        self.step_size = step_size
        #: multiplies every change: the step schedule's factor (1 = the fixed step)
        self.scale = 1.0

    def apply(self, weights: np.ndarray, delta_theta: np.ndarray) -> None:
        weights += self.scale * delta_theta

    def state(self) -> dict[str, np.ndarray]:
        """Arrays to save with a checkpoint so that a resumed run continues exactly."""
        return {}

    def load_state(self, state: dict[str, np.ndarray]) -> None:
        for name, value in state.items():
            getattr(self, name)[...] = value


class AdaGrad(Optimizer):
    """``theta += eta * g / sqrt(sum of g^2 so far)``: steps shrink per feature as
    evidence for it accumulates (a per-feature 1/sqrt(t) decay)."""

    name = "adagrad"

    def __init__(self, size: int, step_size: float) -> None:
        super().__init__(size, step_size)
        self.sum_sq = np.zeros(size)

    def apply(self, weights: np.ndarray, delta_theta: np.ndarray) -> None:
        if self.step_size == 0:  # play without learning: no g to recover
            return
        g = delta_theta / self.step_size
        self.sum_sq += g * g
        touched = self.sum_sq > 0
        step = self.scale * self.step_size
        weights[touched] += step * g[touched] / (np.sqrt(self.sum_sq[touched]) + EPSILON)

    def state(self) -> dict[str, np.ndarray]:
        return {"sum_sq": self.sum_sq}


class Adam(Optimizer):
    """Adam with bias correction; a feature absent from an update keeps its moments
    decaying, as in dense Adam (the weight vector is small, so dense is cheap)."""

    name = "adam"

    def __init__(self, size: int, step_size: float) -> None:
        super().__init__(size, step_size)
        self.m = np.zeros(size)
        self.v = np.zeros(size)
        self.t = np.zeros(1)

    def apply(self, weights: np.ndarray, delta_theta: np.ndarray) -> None:
        if self.step_size == 0:  # play without learning: no g to recover
            return
        g = delta_theta / self.step_size
        self.t += 1
        self.m *= ADAM_BETA1
        self.m += (1 - ADAM_BETA1) * g
        self.v *= ADAM_BETA2
        self.v += (1 - ADAM_BETA2) * g * g
        t = float(self.t[0])
        m_hat = self.m / (1 - ADAM_BETA1**t)
        v_hat = self.v / (1 - ADAM_BETA2**t)
        weights += self.scale * self.step_size * m_hat / (np.sqrt(v_hat) + EPSILON)

    def state(self) -> dict[str, np.ndarray]:
        return {"m": self.m, "v": self.v, "t": self.t}


def decay_factor(game: int, half_life: float) -> float:
    """The step schedule ``tau / (tau + game - 1)`` for game ``game`` (1-based): the
    fixed step for the first game, half of it after ``tau`` games, the 1/t decay that
    lets stochastic updates settle instead of wandering. ``tau = 0``: no decay."""
    if half_life <= 0:
        return 1.0
    return half_life / (half_life + max(game - 1, 0))


def make_optimizer(name: str, size: int, step_size: float) -> Optimizer:
    classes = {cls.name: cls for cls in (Optimizer, AdaGrad, Adam)}
    if name not in classes:
        raise ValueError(f"unknown optimizer {name!r} (known: {', '.join(OPTIMIZERS)})")
    return classes[name](size, step_size)
