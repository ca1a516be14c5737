"""The replay set of Serban's non-linear TreeStrap (2014, Algorithm 7).

Positions of search trees are kept with their search values in a ring of ``capacity``
slots (old entries are overwritten); each one enters twice, as searched and with its
colours flipped, and training draws random mini-batches from it.

Frames. A search value is for the side to move at its node. The set stores targets as
Serban's ``V = P(white wins)`` (:func:`treestrap.evaluation.outcome.white_win_probability`)
next to the ``bitboard`` input of the position. Flipping the colours (mirror the board
vertically, swap the pieces' colours and the side to move: python-chess
``Board.mirror``) maps input ``piece * 64 + square`` to ``((piece + 6) % 12) * 64 +
(square ^ 56)`` and inverts the white-to-move input (:func:`flip_inputs`); the side to
move of the flipped position stands exactly as the original one did, so its side-to-move
value is the same and its ``V`` is ``1 - V``.

From a tree. :func:`add_tree` takes the first ``K`` nodes of a
:class:`~treestrap.search.tree.SearchTree` by increasing depth from the root (ply), as
Serban does, using each node's minimax value (``lower``; for exact trees ``lower ==
upper``) and the input pairs the network evaluator recorded for it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from treestrap.evaluation.bitboard_features import BITBOARD_SIZE, SIDE_TO_MOVE
from treestrap.evaluation.model import Evaluator
from treestrap.evaluation.network_weights import update_network_evaluator
from treestrap.evaluation.outcome import white_win_probability
from treestrap.search.tree import SearchTree, node_gradient, tree_size

#: Where each bitboard input goes when the colours are flipped.
FLIP_INDEX = np.array(
    [((i // 64 + 6) % 12) * 64 + ((i % 64) ^ 56) for i in range(SIDE_TO_MOVE)] + [SIDE_TO_MOVE]
)


def flip_inputs(x: np.ndarray) -> np.ndarray:
    """The ``bitboard`` inputs (rows) of the colour-flipped positions."""
    out = np.empty_like(x)
    out[:, FLIP_INDEX] = x
    out[:, SIDE_TO_MOVE] = 1 - out[:, SIDE_TO_MOVE]
    return out


@dataclass
class ReplaySet:
    """A ring of ``capacity`` positions (inputs as 0/1 bytes) and targets ``V``."""

    capacity: int
    inputs: np.ndarray = field(init=False)
    targets: np.ndarray = field(init=False)
    size: int = 0
    next: int = 0

    def __post_init__(self) -> None:
        if self.capacity < 2:
            raise ValueError(f"a replay set needs room for 2 positions, got {self.capacity}")
        self.inputs = np.zeros((self.capacity, BITBOARD_SIZE), dtype=np.uint8)
        self.targets = np.zeros(self.capacity, dtype=np.float64)

    def add(self, inputs: np.ndarray, values: np.ndarray) -> None:
        """Add positions (``bitboard`` rows) with their side-to-move search values, each
        also colour-flipped."""
        inputs = np.asarray(inputs, dtype=np.uint8)
        white = inputs[:, SIDE_TO_MOVE] == 1
        v = white_win_probability(np.asarray(values, dtype=np.float64), white)
        self._put(inputs, v)
        self._put(flip_inputs(inputs), 1.0 - v)

    def _put(self, inputs: np.ndarray, v: np.ndarray) -> None:
        for row, target in zip(inputs, v, strict=True):
            self.inputs[self.next] = row
            self.targets[self.next] = target
            self.next = (self.next + 1) % self.capacity
            self.size = min(self.size + 1, self.capacity)

    def sample(self, m: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """A mini-batch of ``m`` positions drawn uniformly (with replacement):
        float32 inputs and float64 targets."""
        if self.size == 0:
            raise ValueError("the replay set is empty")
        rows = rng.integers(0, self.size, m)
        return self.inputs[rows].astype(np.float32), self.targets[rows]


def tree_inputs(tree: SearchTree, nodes: np.ndarray) -> np.ndarray:
    """Dense ``bitboard`` rows of tree ``nodes``, from the input pairs a network
    evaluator recorded (see :func:`treestrap.evaluation.model.evaluate_gradient`)."""
    out = np.zeros((len(nodes), BITBOARD_SIZE), dtype=np.uint8)
    for r, i in enumerate(nodes):
        idx, val = node_gradient(tree, int(i))
        out[r, idx] = val.astype(np.uint8)
    return out


def tree_samples(tree: SearchTree, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The first ``k`` nodes of ``tree`` by increasing ply, as replay samples: their
    ``bitboard`` rows (uint8) and side-to-move minimax values (nodes without a finite
    value left out). The tree must come from a search with a network evaluator (its
    feature pairs are the network's inputs)."""
    n = tree_size(tree)
    order = np.argsort(tree.ply[:n], kind="stable")[:k]
    values = tree.lower[order]
    keep = np.isfinite(values)
    order = order[keep]
    return tree_inputs(tree, order), values[keep].astype(np.float64)


def add_tree(replay: ReplaySet, tree: SearchTree, k: int) -> int:
    """Add the first ``k`` nodes of ``tree`` by increasing ply (and their flips);
    returns the number of tree nodes added (see :func:`tree_samples`)."""
    inputs, values = tree_samples(tree, k)
    replay.add(inputs, values)
    return len(values)


def minibatch_step(
    model: object,
    optimizer: object,
    replay: ReplaySet,
    m: int,
    objective: str,
    rng: np.random.Generator,
) -> float:
    """One step of Algorithm 7 on a torch model mapping ``[B, 769]`` inputs to class
    scores ``[B, 3]`` (win, draw, loss in white's frame, as the supervised models do):
    the mean objective of a mini-batch of ``m`` is minimised through ``z = z_win -
    z_loss``. Returns the mini-batch's mean loss before the step."""
    import torch

    from treestrap.learn.objectives_network import objective_gradient, objective_loss

    x, v = replay.sample(m, rng)
    scores = model(torch.from_numpy(x))  # type: ignore[operator]
    z = scores[:, 0] - scores[:, 2]
    z_np = z.detach().double().numpy()
    grad = objective_gradient(objective, z_np, v) / m
    optimizer.zero_grad()  # type: ignore[attr-defined]
    z.backward(torch.from_numpy(grad).to(z.dtype))
    optimizer.step()  # type: ignore[attr-defined]
    return float(objective_loss(objective, z_np, v).mean())


@dataclass
class ReplayHyper:
    """Algorithm 7's settings (Serban 2014, chapter 7)."""

    #: Positions kept (each search adds ``2 * nodes``: every node and its flip).
    capacity: int = 100_000
    #: Mini-batch size M.
    batch: int = 64
    #: Tree nodes K added per search, by increasing depth.
    nodes: int = 500
    #: Mini-batch steps after each search.
    steps: int = 1
    objective: str = "soft-ce"
    lr: float = 0.01
    #: Nesterov momentum (0 = plain SGD).
    momentum: float = 0.9
    seed: int = 0


class ReplayTrainer:
    """The learning half of Algorithm 7 around a torch model and the compiled network
    evaluator the searches use: after each search, :meth:`learn_from_tree` adds the
    tree's first K nodes to the replay set, takes mini-batch steps, and writes the new
    parameters into the evaluator in place.

    ``parameters_of(model)`` gives the model's flat network parameters (for the
    supervised models: :func:`treestrap.supervised.convert.network_parameters`); it is
    passed in because that conversion lives in a layer above this one.
    """

    def __init__(
        self,
        model: object,
        evaluator: Evaluator,
        parameters_of: Callable[[object], np.ndarray],
        hyper: ReplayHyper | None = None,
    ) -> None:
        import torch

        self.hyper = hyper or ReplayHyper()
        h = self.hyper
        self.model = model
        self.evaluator = evaluator
        self.parameters_of = parameters_of
        self.replay = ReplaySet(h.capacity)
        self.rng = np.random.default_rng(h.seed)
        self.optimizer = torch.optim.SGD(
            model.parameters(),  # type: ignore[attr-defined]
            lr=h.lr,
            momentum=h.momentum,
            nesterov=h.momentum > 0,
        )
        self.sync()

    def sync(self) -> None:
        """Copy the torch model's parameters into the compiled evaluator."""
        update_network_evaluator(self.evaluator, self.parameters_of(self.model))

    def learn_from_tree(self, tree: SearchTree) -> float:
        """Add ``tree``'s first K nodes, take the configured steps, sync; returns the
        mean mini-batch loss of the steps."""
        inputs, values = tree_samples(tree, self.hyper.nodes)
        return self.learn_from_samples(inputs, values)

    def learn_from_samples(self, inputs: np.ndarray, values: np.ndarray) -> float:
        """:meth:`learn_from_tree` for one search's samples (:func:`tree_samples`) made
        elsewhere, as a distributed run's actors ship them: add, step, sync."""
        h = self.hyper
        self.replay.add(inputs, values)
        losses = [
            minibatch_step(self.model, self.optimizer, self.replay, h.batch, h.objective, self.rng)
            for _ in range(h.steps)
        ]
        self.sync()
        return float(np.mean(losses))


def random_network_parameters(sizes: list[int], seed: int, scale: float = 1.0) -> np.ndarray:
    """Flat parameters (:mod:`treestrap.evaluation.network` order) of a fresh network of
    layer ``sizes`` on the ``bitboard`` inputs: every weight and bias uniform in
    ``+-scale/sqrt(fan_in)`` (``scale`` 1: PyTorch's ``nn.Linear`` default), drawn
    from ``seed``."""
    rng = np.random.default_rng(seed)
    parts: list[np.ndarray] = []
    fan_in = BITBOARD_SIZE
    for k, size in enumerate(sizes):
        bound = scale / np.sqrt(fan_in)
        # Layer 0 is stored input-major (``W0[inputs, size0]``), the others out-major.
        shape = (fan_in, size) if k == 0 else (size, fan_in)
        parts.append(rng.uniform(-bound, bound, shape).reshape(-1))
        parts.append(rng.uniform(-bound, bound, size))
        fan_in = size
    return np.concatenate(parts)


def torch_network(sizes: list[int], params: np.ndarray) -> Any:
    """A float64 torch module equal to the compiled network of layer ``sizes`` and flat
    ``params``: ``[B, 769]`` inputs to ``[B, 3]`` scores ``(z, 0, 0)``, so that
    :func:`minibatch_step` reads ``z = z_win - z_loss`` from it as from a supervised
    model. :func:`network_parameters_of` reads its parameters back in the same order."""
    import torch

    layers: list[Any] = []
    fan_in = BITBOARD_SIZE
    for k, size in enumerate(sizes):
        layers.append(torch.nn.Linear(fan_in, size, dtype=torch.float64))
        if k < len(sizes) - 1:
            layers.append(torch.nn.Tanh())
        fan_in = size
    net = torch.nn.Sequential(*layers)
    params = np.asarray(params, dtype=np.float64).reshape(-1)
    at = 0
    with torch.no_grad():
        for k, linear in enumerate(m for m in net if isinstance(m, torch.nn.Linear)):
            out, inp = linear.weight.shape
            w = params[at : at + out * inp]
            at += out * inp
            # Layer 0 is stored input-major: its rows are the inputs' columns.
            w = w.reshape(inp, out).T if k == 0 else w.reshape(out, inp)
            linear.weight.copy_(torch.from_numpy(np.ascontiguousarray(w)))
            linear.bias.copy_(torch.from_numpy(params[at : at + out].copy()))
            at += out
    if at != params.size:
        raise ValueError(f"{params.size} parameters for a network of layers {sizes} ({at})")
    return _scores_module()(net)


def network_parameters_of(model: Any) -> np.ndarray:
    """The flat parameters of a :func:`torch_network` module (layer 0 input-major)."""
    import torch

    parts: list[np.ndarray] = []
    linears = [m for m in model.net if isinstance(m, torch.nn.Linear)]
    for k, linear in enumerate(linears):
        w = linear.weight.detach().double().numpy()
        parts.append((w.T if k == 0 else w).reshape(-1))
        parts.append(linear.bias.detach().double().numpy().copy())
    return np.concatenate(parts)


@functools.cache
def _scores_module() -> type:
    """The module class of :func:`torch_network` (built on first use: torch is
    imported only by the functions that need it)."""
    import torch

    class ScoresOf(torch.nn.Module):
        """``net``'s single output ``z`` as class scores ``(z, 0, 0)``."""

        def __init__(self, net: torch.nn.Module) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            z = self.net(x.to(torch.float64))
            return torch.nn.functional.pad(z, (0, 2))

    return ScoresOf
