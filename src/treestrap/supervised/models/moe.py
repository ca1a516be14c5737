"""Mixture of experts, Serban section 3.5: a softmax gate over logistic-regression experts,

    P(y | x) = sum_i P(i | x) p_i(y | x)                                  (eq. 3.29)

trained either by plain SGD on the log-likelihood (eq. 3.31) or by the EM-based SGD of
his Algorithm 5 (:func:`em_update`): on each mini-batch an E-step sets
``q_n(i) = P(i | y_n, x_n)`` (eq. 3.41), then M-steps climb the free energy
``F(q, theta) = sum_n sum_i q_n(i) log(P(i | x_n) p_i(y_n | x_n)) + H[q]`` with q held.

Why both: at the point where q was computed, the gradient of F equals the gradient of
the log-likelihood (the KL term of eq. 3.40 is at its minimum there), so EM with one
M-step takes the same step as SGD. The methods part when the M-step takes several
steps on the same q (``m_steps``): each then solves more of the convex M-problem, which
is what Jordan and Jacobs (1994) found to train mixtures better.

Start: experts at zero, gate from :func:`~treestrap.supervised.models.layers.glorot_`.
A random gate is enough to tell identical experts apart (each expert's gradient is
weighted by its own gate probability), and zero experts make a one-expert mixture start,
and so move, exactly like :class:`~treestrap.supervised.models.logreg.LogisticRegression`.
"""

from __future__ import annotations

from collections.abc import Callable

from treestrap.supervised.models.layers import (
    CLASSES,
    SupervisedModel,
    glorot_,
    nn,
    torch,
    zero_,
)


class MixtureOfExperts(nn.Module):
    def __init__(self, n_inputs: int, experts: int, gen: torch.Generator) -> None:
        super().__init__()
        if experts < 1:
            raise ValueError(f"a mixture needs >= 1 expert, got {experts}")
        self.experts = experts
        self.expert = nn.Linear(n_inputs, experts * CLASSES)
        zero_(self.expert)
        self.gate = nn.Linear(n_inputs, experts)
        zero_(self.gate)
        glorot_(self.gate.weight, n_inputs, experts, gen)

    def components(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``log P(i | x)`` of shape (n, K) and ``log p_i(y | x)`` of shape (n, K, 3)."""
        log_gate = torch.log_softmax(self.gate(x), dim=1)
        scores = self.expert(x).view(x.shape[0], self.experts, CLASSES)
        return log_gate, torch.log_softmax(scores, dim=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``log P(y | x)``: normalised log-probabilities, valid as class scores."""
        log_gate, log_expert = self.components(x)
        return torch.logsumexp(log_gate.unsqueeze(2) + log_expert, dim=1)


def _joint(net: MixtureOfExperts, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """``log P(i | x_n) + log p_i(y_n | x_n)`` of shape (n, K)."""
    log_gate, log_expert = net.components(x)
    index = y.view(-1, 1, 1).expand(-1, net.experts, 1)
    return log_gate + log_expert.gather(2, index).squeeze(2)


def em_update(
    model: SupervisedModel,
    x: torch.Tensor,
    y: torch.Tensor,
    optimizer: torch.optim.Optimizer,
    m_steps: int = 1,
    penalty: Callable[[], torch.Tensor] | None = None,
) -> tuple[float, torch.Tensor]:
    """One E-step and ``m_steps`` gradient steps on the free energy of a mini-batch
    (Algorithm 5, lines 5-6). Returns the batch's mean negative log-likelihood and its
    class scores, both before the update (what SGD reports too)."""
    net = model.net
    if not isinstance(net, MixtureOfExperts):
        raise TypeError("EM training is for a mixture of experts")
    xc = model.centre(x)
    with torch.no_grad():
        joint = _joint(net, xc, y)
        q = torch.softmax(joint, dim=1)  # E-step: posterior responsibility of each expert
        nll = float(-torch.logsumexp(joint, dim=1).mean())
        log_gate, log_expert = net.components(xc)
        scores = torch.logsumexp(log_gate.unsqueeze(2) + log_expert, dim=1)
    for _ in range(m_steps):
        # F without H[q], which does not depend on the parameters; mean over the batch
        loss = -(q * _joint(net, xc, y)).sum(dim=1).mean()
        if penalty is not None:
            loss = loss + penalty()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return nll, scores


def build(n_inputs: int, experts: int, gen: torch.Generator) -> MixtureOfExperts:
    return MixtureOfExperts(n_inputs, experts, gen)
