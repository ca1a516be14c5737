"""A Connect Four network evaluation, compiled: a tanh MLP over the 84 + 1 bitboard
inputs of :mod:`treestrap.connect4.inputs`, run inside the same searches as the linear
evaluation.

The network's output ``z`` is for the first player (its inputs are colour-absolute, as
Serban's chess inputs are white-relative); the value a search sees is
``POINTS_PER_LOGIT * z`` for the side to move (negated when the second player is to
move), in the units of :mod:`treestrap.search.value` and clipped by the searches as
any heuristic value. ``POINTS_PER_LOGIT`` is chess's centipawns per logit, so the replay
set's mapping from a search value to ``P(first player wins)`` is the same for both games.

One buffer. A network lives in the evaluator's ``weights`` array, so the evaluator tuple
(and the numba type of every search) is the linear one's; the array's length tells the
kinds apart (a linear evaluator's is ``features.SIZE``, a network's never is):

===========================  ============================================================
``[0, HEADER)``              ``MAGIC``, the layer count ``L``, the layer sizes (up to
                             ``MAX_LAYERS``; the last is 1), the scratch's offset
``[HEADER, scratch)``        the parameters in :mod:`treestrap.evaluation.torch_network`'s
                             order: ``W0[INPUT_NB, size0]`` input-major, ``b0``; then
                             each ``W[out, in]`` out-major and its bias
``[scratch, end)``           two activation rows of the widest layer
===========================  ============================================================

The first layer is a sum of ``W0`` rows over the inputs that are 1 (at most 42 discs
and the side to move), recomputed at each evaluation in ascending input order: no
accumulator, so every search sees the same sums for the same position and alpha-beta
equals minimax exactly.
"""

from __future__ import annotations

import math

import numpy as np

from treestrap.connect4.board import ST_PLY, Position
from treestrap.connect4.features import SIZE as LINEAR_SIZE
from treestrap.connect4.inputs import INPUT_NB, active_inputs
from treestrap.core.jit import njit
from treestrap.core.layer_sizes import check_layer_sizes
from treestrap.core.layer_sizes import parameter_count as layer_parameters

#: Value units per logit of the output: chess's centipawns per logit, ``400 / ln 10``.
POINTS_PER_LOGIT = 400.0 / math.log(10.0)
#: Marks a network buffer (a check for Python code; the compiled code reads the length).
MAGIC = 43.0e6 + 85.0
MAX_LAYERS = 4
H_MAGIC = 0
H_LAYERS = 1
H_SIZES = 2
H_SCRATCH = H_SIZES + MAX_LAYERS
HEADER = H_SCRATCH + 1


def parameter_count(sizes: list[int]) -> int:
    """Weights and biases of a network of layer ``sizes`` over the 85 inputs."""
    return layer_parameters(INPUT_NB, sizes)


def check_sizes(sizes: list[int]) -> None:
    """``ValueError`` unless ``sizes`` fit the compiled Connect Four network."""
    check_layer_sizes(sizes, MAX_LAYERS)


def network_buffer(sizes: list[int], params: np.ndarray) -> np.ndarray:
    """A fresh buffer (header, parameters, scratch) for layer ``sizes`` and flat
    ``params`` (:mod:`treestrap.evaluation.torch_network`'s order)."""
    check_sizes(sizes)
    params = np.asarray(params, dtype=np.float64).reshape(-1)
    count = parameter_count(sizes)
    if params.size != count:
        raise ValueError(f"{params.size} parameters for a network of layers {sizes} ({count})")
    scratch = HEADER + count
    end = scratch + 2 * max(sizes)
    if end == LINEAR_SIZE:  # the length alone tells a network from linear weights
        end += 1
    buf = np.zeros(end, dtype=np.float64)
    buf[H_MAGIC] = MAGIC
    buf[H_LAYERS] = len(sizes)
    buf[H_SIZES : H_SIZES + len(sizes)] = sizes
    buf[H_SCRATCH] = scratch
    buf[HEADER:scratch] = params
    return buf


def is_network_buffer(weights: np.ndarray) -> bool:
    """Whether an evaluator's ``weights`` hold a network."""
    return weights.shape[0] != LINEAR_SIZE and weights[H_MAGIC] == MAGIC


def buffer_sizes(buf: np.ndarray) -> list[int]:
    """The layer sizes a network buffer holds."""
    return [int(s) for s in buf[H_SIZES : H_SIZES + int(buf[H_LAYERS])]]


def buffer_parameters(buf: np.ndarray) -> np.ndarray:
    """The parameters of a network buffer: a view, so writing it changes the network."""
    return buf[HEADER : int(buf[H_SCRATCH])]


def write_parameters(buf: np.ndarray, params: np.ndarray) -> None:
    """Replace a network buffer's parameters in place (every search holding the buffer
    sees them at its next evaluation)."""
    target = buffer_parameters(buf)
    params = np.asarray(params, dtype=np.float64).reshape(-1)
    if params.shape != target.shape:
        raise ValueError(f"{params.size} parameters for a network of {target.size}")
    target[:] = params


@njit
def network_value(
    pos: Position, w: np.ndarray, idx: np.ndarray, val: np.ndarray
) -> tuple[float, int]:
    """``(H(s), n)`` of the network in buffer ``w``: the value for the side to move, and
    its ``n`` active inputs left in ``idx[:n]`` with ``val[:n]`` = 1 (what a search tree
    records of a network's node: the replay set reads the inputs back from it)."""
    n = active_inputs(pos, idx)
    for i in range(n):
        val[i] = 1.0
    layers = int(w[H_LAYERS])
    a = int(w[H_SCRATCH])
    size = int(w[H_SIZES])
    b = a + int(w[H_SIZES])
    for layer in range(1, layers):
        b = max(b, a + int(w[H_SIZES + layer]))
    # Layer 0: its bias plus the rows of the inputs that are 1, in ascending order.
    at = HEADER
    bias = at + INPUT_NB * size
    for j in range(size):
        w[a + j] = w[bias + j]
    for i in range(n):
        row = at + idx[i] * size
        for j in range(size):
            w[a + j] += w[row + j]
    at = bias + size
    fan_in = size
    for layer in range(1, layers):
        for j in range(fan_in):
            w[a + j] = math.tanh(w[a + j])
        size = int(w[H_SIZES + layer])
        bias = at + size * fan_in
        for o in range(size):
            total = w[bias + o]
            row = at + o * fan_in
            for j in range(fan_in):
                total += w[row + j] * w[a + j]
            w[b + o] = total
        at = bias + size
        fan_in = size
        a, b = b, a
    v = POINTS_PER_LOGIT * w[a]
    return (v if pos.st[ST_PLY] & 1 == 0 else -v), n
