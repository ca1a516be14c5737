"""Algorithm 7's mini-batch steps compiled, for the torch twin of a compiled network.

:func:`treestrap.learn.replay.minibatch_step` steps a torch model: for the small
networks TreeStrap trains (a few dozen units on 769 inputs, 128 rows a batch) almost all
of its 1.7 ms go to torch's per-operation overhead, three quarters of a training game.
:func:`compiled_steps` takes the same steps in compiled loops: the same mini-batches
from the same random stream, the same objective and the same SGD (torch's rule:
weight decay, then momentum, Nesterov's or plain), on the parameters in the compiled
network's flat order. The first layer reads only each row's non-zero inputs (a chess
position has at most 34 of 769). The torch model and its optimizer stay the owners of
the learning state: the steps start from their values and write theirs back, so run
files, resumes and everything that reads the model are unchanged. The results equal
torch's to rounding (``tests/test_compiled_step.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from treestrap.core.jit import njit
from treestrap.evaluation.network import activate
from treestrap.evaluation.torch_network import copy_network_order, network_order, twin_shape
from treestrap.learn.objectives_network import bounded_gradient, bounded_loss


@njit(inline="always")
def _slope(pre: float, post: float, crelu: bool) -> float:
    """The activation's derivative as torch takes it: Hardtanh's is 1 strictly inside
    (0, 1) and 0 elsewhere; tanh's is ``1 - tanh^2`` from the output."""
    if crelu:
        return 1.0 if 0.0 < pre < 1.0 else 0.0
    return 1.0 - post * post


@njit
def _forward(
    params: np.ndarray,
    sizes: np.ndarray,
    crelu: bool,
    x: np.ndarray,
    pre: np.ndarray,
    post: np.ndarray,
    z: np.ndarray,
    active: np.ndarray,
    counts: np.ndarray,
) -> None:
    """``z`` = the output of every row of ``x``; each layer's pre-activations and
    outputs go to ``pre``/``post`` (row ``b``, the layers' units one after another),
    and each row's non-zero inputs to ``active[b, :counts[b]]``."""
    m, n_in = x.shape
    layers = sizes.size
    for b in range(m):
        n = 0
        for i in range(n_in):
            if x[b, i] != 0.0:
                active[b, n] = i
                n += 1
        counts[b] = n
        h0 = sizes[0]
        acc = pre[b, :h0]
        bias = params[n_in * h0 : n_in * h0 + h0]
        for j in range(h0):
            acc[j] = bias[j]
        for t in range(n):
            i = active[b, t]
            v = np.float64(x[b, i])
            col = params[i * h0 : (i + 1) * h0]
            for j in range(h0):
                acc[j] += v * col[j]
        if layers == 1:
            z[b] = acc[0]
            continue
        for j in range(h0):
            post[b, j] = activate(acc[j], crelu)
        off = n_in * h0 + h0  # layer 1's weights
        unit, fan_in = 0, h0  # the first unit of the layer below, its width
        for k in range(1, layers):
            size = sizes[k]
            below = post[b, unit : unit + fan_in]
            for i in range(size):
                w = params[off + i * fan_in : off + (i + 1) * fan_in]
                s = params[off + size * fan_in + i]
                for j in range(fan_in):
                    s += w[j] * below[j]
                if k == layers - 1:
                    z[b] = s
                else:
                    pre[b, unit + fan_in + i] = s
                    post[b, unit + fan_in + i] = activate(s, crelu)
            off += size * fan_in + size
            unit += fan_in
            fan_in = size


@njit
def _gradient(
    params: np.ndarray,
    sizes: np.ndarray,
    crelu: bool,
    x: np.ndarray,
    pre: np.ndarray,
    post: np.ndarray,
    dz: np.ndarray,
    grad: np.ndarray,
    delta: np.ndarray,
    w_off: np.ndarray,
    u_off: np.ndarray,
    active: np.ndarray,
    counts: np.ndarray,
) -> None:
    """``grad`` (zeroed, the parameters' shape) = the sum over rows of ``dz[b]`` times
    the output's gradient, back through :func:`_forward`'s layers; ``delta`` is scratch
    of ``pre``'s shape; ``w_off``/``u_off``: :func:`_offsets`."""
    m, n_in = x.shape
    layers = sizes.size
    h0 = sizes[0]
    for b in range(m):
        d = delta[b]
        if layers == 1:
            d[0] = dz[b]
        else:
            # the output layer: its input is the last hidden layer
            k = layers - 1
            fan_in = sizes[k - 1]
            below = u_off[k]
            w = params[w_off[k] : w_off[k] + fan_in]
            g = grad[w_off[k] : w_off[k] + fan_in]
            grad[w_off[k] + fan_in] += dz[b]
            for j in range(fan_in):
                g[j] += dz[b] * post[b, below + j]
                d[below + j] = w[j] * dz[b]
            for j in range(fan_in):
                d[below + j] *= _slope(pre[b, below + j], post[b, below + j], crelu)
            for k in range(layers - 2, 0, -1):
                size, fan_in = sizes[k], sizes[k - 1]
                below = u_off[k]  # layer k - 1's units; layer k's follow them
                here = below + fan_in
                for j in range(fan_in):
                    d[below + j] = 0.0
                for i in range(size):
                    di = d[here + i]
                    grad[w_off[k] + size * fan_in + i] += di
                    w = params[w_off[k] + i * fan_in : w_off[k] + (i + 1) * fan_in]
                    g = grad[w_off[k] + i * fan_in : w_off[k] + (i + 1) * fan_in]
                    for j in range(fan_in):
                        g[j] += di * post[b, below + j]
                        d[below + j] += w[j] * di
                for j in range(fan_in):
                    d[below + j] *= _slope(pre[b, below + j], post[b, below + j], crelu)
        # layer 0: only the row's non-zero inputs have a gradient
        d0 = d[:h0]
        gb = grad[n_in * h0 : n_in * h0 + h0]
        for j in range(h0):
            gb[j] += d0[j]
        for t in range(counts[b]):
            i = active[b, t]
            v = np.float64(x[b, i])
            g = grad[i * h0 : (i + 1) * h0]
            for j in range(h0):
                g[j] += v * d0[j]


def _offsets(sizes: list[int], n_in: int) -> tuple[np.ndarray, np.ndarray]:
    """Where each layer's weights start in the flat parameters, and the first unit of
    the layer below it (its input) in ``pre``/``post``'s rows."""
    w_off, u_off = [], []
    off, fan_in, unit = 0, n_in, 0
    for k, size in enumerate(sizes):
        w_off.append(off)
        u_off.append(unit)
        off += size * fan_in + size
        if k > 0:
            unit += fan_in
        fan_in = size
    return np.array(w_off, dtype=np.int64), np.array(u_off, dtype=np.int64)


@njit
def _sgd(
    params: np.ndarray,
    grad: np.ndarray,
    buffer: np.ndarray,
    first: bool,
    lr: float,
    momentum: float,
    nesterov: bool,
    weight_decay: float,
) -> None:
    """torch's SGD step: ``d = grad + weight_decay * p``; with momentum the buffer
    becomes ``d`` at the first step and ``momentum * buffer + d`` after, and ``d`` is
    ``d + momentum * buffer`` (Nesterov) or the buffer; then ``p -= lr * d``."""
    for t in range(params.size):
        d = grad[t]
        if weight_decay != 0.0:
            d += weight_decay * params[t]
        if momentum != 0.0:
            buffer[t] = d if first else momentum * buffer[t] + d
            d = d + momentum * buffer[t] if nesterov else buffer[t]
        params[t] -= lr * d


def compiled_steps(
    model: Any, optimizer: Any, replay: Any, m: int, objective: str, steps: int, rng: Any
) -> list[float]:
    """``steps`` calls of :func:`~treestrap.learn.replay.minibatch_step` on a
    :func:`~treestrap.evaluation.torch_network.torch_network` model with its torch SGD
    optimizer, compiled; returns each step's mean mini-batch loss before the step."""
    import torch

    shape = twin_shape(model)
    if shape is None:
        raise ValueError("compiled steps need the torch twin of a compiled network")
    sizes, activation = shape
    group = optimizer.param_groups[0]
    tensors = list(group["params"])
    momentum = float(group["momentum"])
    state = [optimizer.state.get(p, {}).get("momentum_buffer") for p in tensors]
    first = any(b is None for b in state)
    params = network_order(tensors)
    buffer = np.zeros_like(params) if first else network_order(state)
    sizes_a = np.array(sizes, dtype=np.int64)
    width = sum(sizes[:-1]) if len(sizes) > 1 else 1
    pre = np.zeros((m, width))
    post = np.zeros((m, width))
    delta = np.zeros((m, width))
    grad = np.zeros_like(params)
    z = np.zeros(m)
    n_in = int(tensors[0].shape[1])
    w_off, u_off = _offsets(sizes, n_in)
    active = np.zeros((m, n_in), dtype=np.int64)
    counts = np.zeros(m, dtype=np.int64)
    crelu = activation == "crelu"
    losses = []
    for _ in range(steps):
        x, lower, upper, offset = replay.sample_with_offsets(m, rng)
        _forward(params, sizes_a, crelu, x, pre, post, z, active, counts)
        z += offset
        losses.append(float(bounded_loss(objective, z, lower, upper).mean()))
        dz = bounded_gradient(objective, z, lower, upper) / m
        grad[:] = 0.0
        _gradient(
            params, sizes_a, crelu, x, pre, post, dz, grad, delta, w_off, u_off, active, counts
        )
        _sgd(
            params,
            grad,
            buffer,
            first,
            float(group["lr"]),
            momentum,
            bool(group["nesterov"]),
            float(group["weight_decay"]),
        )
        first = False
    copy_network_order(params, tensors)
    if momentum != 0.0:
        for p in tensors:
            if optimizer.state[p].get("momentum_buffer") is None:
                optimizer.state[p]["momentum_buffer"] = torch.empty_like(
                    p, memory_format=torch.contiguous_format
                )
        copy_network_order(buffer, [optimizer.state[p]["momentum_buffer"] for p in tensors])
    return losses
