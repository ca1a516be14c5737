"""The replay set of Serban's non-linear TreeStrap (2014, Algorithm 7).

Positions of search trees are kept with their search values in a ring of ``capacity``
slots (old entries are overwritten); each one enters twice, as searched and with its
colours flipped, and training draws random mini-batches from it.

Frames. A search value is for the side to move at its node. The set stores targets as
Serban's ``V = P(white wins)`` (:func:`treestrap.evaluation.outcome.white_win_probability`)
next to the ``bitboard`` input of the position. Flipping the colours (mirror the board
vertically, swap the pieces' colours and the side to move: python-chess
``Board.mirror``) maps input ``piece * 64 + square`` to ``((piece + 6) % 12) * 64 +
(square ^ 56)`` and inverts the white-to-move input
(:func:`~treestrap.evaluation.colour_flip.flip_bitboard`); the side to move of the
flipped position stands exactly as the original one did, so its side-to-move value is
the same and its ``V`` is ``1 - V``.

Bounds. Each position is stored with bounds ``lower <= V <= upper`` in the same frame:
equal for a minimax value, apart for a transposition-table entry of an alpha-beta
search (TreeStrap(alpha-beta) for networks; a missing bound is 0 or 1). A side-to-move
lower bound is a lower bound on ``V`` when white is to move and an upper bound when
black is, and flipping maps ``[lower, upper]`` to ``[1 - upper, 1 - lower]``. The
mini-batch loss is one-sided (:func:`~treestrap.learn.objectives_network.bounded_loss`),
which for equal bounds is the objective itself.

From a tree. :func:`add_tree` takes the first ``K`` nodes of a
:class:`~treestrap.search.tree.SearchTree` by increasing depth from the root (ply), as
Serban does, with each node's bounds (``lower == upper`` in a minimax tree; a table
walk's nodes have the bounds of their entries) and the input pairs the network
evaluator recorded for it.

Hybrids. A hybrid network's score adds a linear part that network learning keeps fixed;
each position is stored with that part as a logit ``offset`` (white's frame, negated
by a flip), and the objective sees ``z = offset + z_net``, so the network learns what
the linear part leaves over. Plain networks have offset 0.

Games. The inputs, the side-to-move input and the symmetry are a
:class:`~treestrap.games.network_inputs.ReplayInputs` (chess's by default; Connect
Four's mirror keeps the players, so a mirrored sample keeps ``V`` and its bounds).

Resuming. :meth:`ReplayTrainer.state` gives the replay ring (inputs bit-packed), the
torch parameters and the optimizer's momentum as arrays, and
:meth:`ReplayTrainer.load_state` puts them back, so that a resumed run continues
bit for bit as if it had not stopped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from treestrap.core.jit import njit
from treestrap.evaluation.feature_sets.bitboard import BITBOARD_SIZE
from treestrap.evaluation.model import LINEAR_PART_INPUT, Evaluator
from treestrap.evaluation.network_weights import update_network_evaluator
from treestrap.evaluation.outcome import CENTIPAWNS_PER_LOGIT, white_win_probability
from treestrap.evaluation.torch_network import twin_shape
from treestrap.games.network_inputs import CHESS_INPUTS, ReplayInputs
from treestrap.learn.compiled_step import compiled_steps
from treestrap.learn.optimizer import Optimizer, decay_factor
from treestrap.learn.replay_hyper import ReplayHyper
from treestrap.search.tree import TERMINAL, SearchTree, tree_size


@dataclass
class ReplaySet:
    """A ring of ``capacity`` positions (inputs bit-packed, 8 to a byte) and bounds on
    their targets ``V`` (``lower == upper``: the target itself)."""

    capacity: int
    #: the game's inputs and their symmetry (chess's: the colour flip)
    layout: ReplayInputs = CHESS_INPUTS
    #: the input rows packed along each row (``np.packbits(rows, axis=1)``): a set of
    #: 3,000,000 chess positions holds 291 MB instead of 2.3 GB, a mini-batch unpacks
    #: its rows, and saving the run's state copies them as they are
    packed: np.ndarray = field(init=False)
    lower: np.ndarray = field(init=False)
    upper: np.ndarray = field(init=False)
    offset: np.ndarray = field(init=False)  # a hybrid's linear part, as a white logit
    size: int = 0
    next: int = 0

    def __post_init__(self) -> None:
        if self.capacity < 2:
            raise ValueError(f"a replay set needs room for 2 positions, got {self.capacity}")
        self.packed = np.zeros((self.capacity, (self.layout.size + 7) // 8), dtype=np.uint8)
        self.lower = np.zeros(self.capacity, dtype=np.float64)
        self.upper = np.zeros(self.capacity, dtype=np.float64)
        self.offset = np.zeros(self.capacity, dtype=np.float64)

    @property
    def inputs(self) -> np.ndarray:
        """Every slot's input row unpacked (0/1 bytes; for checks on small sets)."""
        return self.rows(np.arange(self.capacity))

    def rows(self, slots: np.ndarray) -> np.ndarray:
        """The input rows of ``slots``, unpacked (0/1 bytes)."""
        return np.unpackbits(self.packed[slots], axis=1, count=self.layout.size)

    @property
    def targets(self) -> np.ndarray:
        """The targets ``V`` of positions added with exact values (their lower bounds)."""
        return self.lower

    def add(
        self,
        inputs: np.ndarray,
        values: np.ndarray,
        upper: np.ndarray | None = None,
        linear: np.ndarray | None = None,
    ) -> None:
        """Add positions (input rows) with their side-to-move search values (or, with
        ``upper``, lower and upper bounds on them, infinite where unknown), each also
        colour-flipped (chess) or mirrored (Connect Four); ``linear``: a hybrid's linear
        part, side-to-move centipawns."""
        inputs = np.asarray(inputs, dtype=np.uint8)
        white = inputs[:, self.layout.side_input] == 1
        lo = white_win_probability(np.asarray(values, dtype=np.float64), white)
        hi = lo
        if upper is not None:
            hi = white_win_probability(np.asarray(upper, dtype=np.float64), white)
            lo, hi = np.minimum(lo, hi), np.maximum(lo, hi)  # black to move: swapped
        offset = np.zeros(len(inputs))
        if linear is not None:
            offset = np.where(white, 1.0, -1.0) * np.asarray(linear) / CENTIPAWNS_PER_LOGIT
        self._put(inputs, lo, hi, offset)
        if self.layout.swaps_players:
            self._put(self.layout.augment(inputs), 1.0 - hi, 1.0 - lo, -offset)
        else:
            self._put(self.layout.augment(inputs), lo, hi, offset)

    def _put(
        self, inputs: np.ndarray, lower: np.ndarray, upper: np.ndarray, offset: np.ndarray
    ) -> None:
        """Write rows into the ring in order; of more than ``capacity`` rows only the
        last ``capacity`` stay, as if written one by one."""
        n = len(inputs)
        first = max(0, n - self.capacity)
        slots = (self.next + np.arange(first, n)) % self.capacity
        self.packed[slots] = np.packbits(inputs[first:], axis=1)
        self.lower[slots] = lower[first:]
        self.upper[slots] = upper[first:]
        self.offset[slots] = offset[first:]
        self.next = (self.next + n) % self.capacity
        self.size = min(self.size + n, self.capacity)

    def sample(self, m: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A mini-batch of ``m`` positions drawn uniformly (with replacement):
        float32 inputs and float64 lower and upper bounds on their targets."""
        return self.sample_with_offsets(m, rng)[:3]

    def sample_with_offsets(
        self, m: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`sample` with the positions' logit offsets (a hybrid's linear part)."""
        if self.size == 0:
            raise ValueError("the replay set is empty")
        rows = rng.integers(0, self.size, m)
        x = self.rows(rows).astype(np.float32)
        return x, self.lower[rows], self.upper[rows], self.offset[rows]

    def state(self) -> dict[str, np.ndarray]:
        """The filled part of the ring as arrays (inputs packed 8 to a byte)."""
        n = self.size
        return {
            "replay_inputs": self.packed[:n].copy(),
            "replay_lower": self.lower[:n].copy(),
            "replay_upper": self.upper[:n].copy(),
            "replay_offset": self.offset[:n].copy(),
            "replay_ring": np.array([self.size, self.next], dtype=np.int64),
        }

    def load_state(self, state: dict[str, np.ndarray]) -> None:
        """Restore :meth:`state`'s arrays (of a set of the same capacity)."""
        size, nxt = (int(x) for x in state["replay_ring"])
        if not (0 <= size <= self.capacity and 0 <= nxt < self.capacity):
            raise ValueError(
                f"a replay state of {size} positions (next {nxt}) does not fit a replay "
                f"set of {self.capacity}"
            )
        self.packed[:size] = state["replay_inputs"]
        self.packed[size:] = 0
        self.lower[:size] = state["replay_lower"]
        self.upper[:size] = state["replay_upper"]
        self.lower[size:] = self.upper[size:] = 0.0
        # States saved before hybrids existed hold no offsets: theirs were all 0.
        self.offset[:size] = state.get("replay_offset", np.zeros(size))
        self.offset[size:] = 0.0
        self.size, self.next = size, nxt


@njit
def _node_samples(
    feat_start: np.ndarray,
    feat_idx: np.ndarray,
    feat_val: np.ndarray,
    nodes: np.ndarray,
    size: int,
    rows: np.ndarray,
    signs: np.ndarray,
    linear: np.ndarray,
) -> None:
    """:func:`tree_inputs`, :func:`leaf_sign` and :func:`linear_parts` of ``nodes`` in
    one compiled pass over their recorded pairs (into ``rows`` (zeroed), ``signs`` and
    ``linear``)."""
    for r in range(nodes.size):
        total = 0.0
        part = 0.0
        for t in range(feat_start[nodes[r]], feat_start[nodes[r] + 1]):
            i = feat_idx[t]
            v = feat_val[t]
            if i == LINEAR_PART_INPUT:
                part += v
                continue
            if i < size:
                rows[r, i] = np.uint8(abs(v))
            if i < BITBOARD_SIZE:
                total += v
        signs[r] = -1.0 if total < 0 else 1.0
        linear[r] = part


def _samples_of(
    tree: SearchTree, nodes: np.ndarray, size: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(input rows, leaf signs, linear parts) of tree ``nodes``: :func:`_node_samples`."""
    nodes = np.ascontiguousarray(nodes, dtype=np.int64)
    rows = np.zeros((len(nodes), size), dtype=np.uint8)
    signs = np.ones(len(nodes))
    linear = np.zeros(len(nodes))
    _node_samples(tree.feat_start, tree.feat_idx, tree.feat_val, nodes, size, rows, signs, linear)
    return rows, signs, linear


def tree_inputs(tree: SearchTree, nodes: np.ndarray, size: int = BITBOARD_SIZE) -> np.ndarray:
    """Dense input rows (``size`` inputs: chess's ``bitboard`` by default) of tree
    ``nodes``, from the input pairs a network evaluator recorded (see
    :func:`treestrap.evaluation.model.evaluate_gradient`); a node recorded through its
    quiescence leaf has its pairs signed -1 when the leaf is an odd number of plies
    below it: the row is the leaf's all the same."""
    return _samples_of(tree, nodes, size)[0]


def leaf_sign(tree: SearchTree, nodes: np.ndarray) -> np.ndarray:
    """-1 for the ``nodes`` recorded through a quiescence leaf an odd number of plies
    below them (their input pairs are signed -1: the leaf's side to move is the other
    one), +1 for the rest."""
    return _samples_of(tree, nodes, BITBOARD_SIZE)[1]


def linear_parts(tree: SearchTree, nodes: np.ndarray) -> np.ndarray:
    """A hybrid network's linear part at each of ``nodes`` (the value of its
    :data:`~treestrap.evaluation.model.LINEAR_PART_INPUT` pair, in the node's frame:
    signed as the node's other pairs); 0 for a plain network's nodes."""
    return _samples_of(tree, nodes, BITBOARD_SIZE)[2]


def tree_samples(
    tree: SearchTree, k: int, leaves: bool = False, size: int = BITBOARD_SIZE
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`hybrid_tree_samples` without the linear parts (a plain network's)."""
    return hybrid_tree_samples(tree, k, leaves, size)[:3]


def hybrid_tree_samples(
    tree: SearchTree, k: int, leaves: bool = False, size: int = BITBOARD_SIZE
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The first ``k`` nodes of ``tree`` by increasing ply, as replay samples: their
    ``bitboard`` rows (uint8) and the side-to-move bounds on their values (``lower ==
    upper`` in a minimax tree; nodes with neither bound finite left out). The tree
    must come from a search with a network evaluator (its feature pairs are the
    network's inputs).

    ``leaves``: the tree is a table walk with quiescence node values
    (:func:`~treestrap.search.tt_walk.walk_tt` with ``exact_leaves``). Each sample is
    then the node's principal quiescence leaf with the node's bounds, negated (and
    swapped) for a leaf whose side to move is the other one, so that moving the leaf's
    value moves Q(s); nodes flagged ``TERMINAL`` (a mate or draw inside the
    quiescence search: no leaf's value is theirs) are left out.

    ``size``: the network's inputs (chess's 769 by default, Connect Four's 85).

    The fourth array is a hybrid's linear part of each sample (:func:`linear_parts`) in
    the frame of its bounds (zeros for a plain network)."""
    n = tree_size(tree)
    order = np.argsort(tree.ply[:n], kind="stable")[:k]
    if leaves:
        order = order[(tree.flags[order] & TERMINAL) == 0]
    lower, upper = tree.lower[order], tree.upper[order]
    keep = np.isfinite(lower) | np.isfinite(upper)
    order, lower, upper = order[keep], lower[keep], upper[keep]
    rows, sign, linear = _samples_of(tree, order, size)
    if leaves:
        lower, upper = np.where(sign > 0, lower, -upper), np.where(sign > 0, upper, -lower)
    else:
        sign = np.ones(len(order))
    return rows, lower.astype(np.float64), upper.astype(np.float64), sign * linear


def add_tree(replay: ReplaySet, tree: SearchTree, k: int, leaves: bool = False) -> int:
    """Add the first ``k`` nodes of ``tree`` by increasing ply (and their flips) with
    their bounds; returns the number of tree nodes added (see :func:`tree_samples`)."""
    inputs, lower, upper, linear = hybrid_tree_samples(tree, k, leaves, replay.layout.size)
    replay.add(inputs, lower, upper, linear)
    return len(lower)


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
    the mean one-sided objective of a mini-batch of ``m`` (the objective itself for
    exact targets) is minimised through ``z = z_win - z_loss``. Returns the
    mini-batch's mean loss before the step."""
    import torch

    from treestrap.learn.objectives_network import bounded_gradient, bounded_loss

    x, lower, upper, offset = replay.sample_with_offsets(m, rng)
    scores = model(torch.from_numpy(x))  # type: ignore[operator]
    z = scores[:, 0] - scores[:, 2]
    z_np = z.detach().double().numpy() + offset
    grad = bounded_gradient(objective, z_np, lower, upper) / m
    optimizer.zero_grad()  # type: ignore[attr-defined]
    z.backward(torch.from_numpy(grad).to(z.dtype))
    optimizer.step()  # type: ignore[attr-defined]
    return float(bounded_loss(objective, z_np, lower, upper).mean())


class ReplayTrainer:
    """The learning half of Algorithm 7 around a torch model and the compiled network
    evaluator the searches use: after each search, :meth:`learn_from_tree` adds the
    tree's first K nodes to the replay set, takes mini-batch steps, and writes the new
    parameters into the evaluator in place.

    ``parameters_of(model)`` gives the model's flat network parameters (for the
    supervised models: :func:`treestrap.supervised.convert.network_parameters`); it is
    passed in because that conversion lives in a layer above this one. ``layout`` is
    the game's inputs (chess's by default) and ``write(evaluator, parameters)`` puts
    parameters into the compiled evaluator (chess's
    :func:`~treestrap.evaluation.network_weights.update_network_evaluator` by default).
    """

    def __init__(
        self,
        model: object,
        evaluator: Evaluator | Any,  # the game's compiled evaluator
        parameters_of: Callable[[object], np.ndarray],
        hyper: ReplayHyper | None = None,
        layout: ReplayInputs = CHESS_INPUTS,
        write: Callable[[Any, np.ndarray], None] = update_network_evaluator,
        compiled: bool = True,
    ) -> None:
        import torch

        # One thread: a training run is one process per core, and small mini-batches
        # on torch's thread pool ran 15x slower (measured: 30 ms a step of 128 rows of
        # an MLP(64) with a second process busy, 2 ms on one thread).
        torch.set_num_threads(1)
        self.hyper = hyper or ReplayHyper()
        h = self.hyper
        self.model = model
        self.evaluator = evaluator
        self.parameters_of = parameters_of
        self.write = write
        self.replay = ReplaySet(h.replay_size, layout)
        self.rng = np.random.default_rng(h.seed)
        #: the parameters the searches' evaluator holds (the frozen teacher's when
        #: ``teacher_every`` > 0), saved with the run so that a resume searches with them
        self.search_parameters = np.zeros(0)
        self.optimizer = torch.optim.SGD(
            model.parameters(),  # type: ignore[attr-defined]
            lr=h.step_size,
            momentum=h.momentum,
            nesterov=h.momentum > 0,
            weight_decay=h.weight_decay,
        )
        #: the steps run compiled (:mod:`treestrap.learn.compiled_step`; 1.87x the
        #: games per CPU hour of strong-net) for the torch twin of a compiled network;
        #: torch steps other models
        self.compiled = compiled and twin_shape(model) is not None
        self.sync()

    def set_schedule(self, game: int) -> None:
        """The learning rate of game ``game`` (1-based): ``lr`` times the step schedule
        of the linear rules (:func:`~treestrap.learn.optimizer.decay_factor`)."""
        lr = self.hyper.step_size * decay_factor(game, self.hyper.step_decay)
        for group in self.optimizer.param_groups:
            group["lr"] = lr

    def start_game(self, game: int) -> None:
        """Game ``game`` (1-based) begins: its learning rate, and with ``teacher_every``
        G > 0 a fresh copy of the network for the searches at games 1, G + 1, 2G + 1..."""
        self.set_schedule(game)
        every = self.hyper.teacher_every
        if every > 0 and (game - 1) % every == 0:
            self.sync()

    def sync(self) -> None:
        """Copy the torch model's parameters into the compiled evaluator."""
        self._write_search(self.parameters_of(self.model))

    def _write_search(self, parameters: np.ndarray) -> None:
        self.search_parameters = np.array(parameters, dtype=np.float64)
        self.write(self.evaluator, self.search_parameters)

    def learn_from_tree(self, tree: SearchTree) -> float:
        """Add ``tree``'s first K nodes with their bounds, take the configured steps,
        sync; returns the mean mini-batch loss of the steps."""
        size = self.replay.layout.size
        samples = hybrid_tree_samples(tree, self.hyper.tree_nodes, self.hyper.leaves, size)
        return self.learn_from_samples(*samples)

    def learn_from_samples(
        self,
        inputs: np.ndarray,
        values: np.ndarray,
        upper: np.ndarray | None = None,
        linear: np.ndarray | None = None,
    ) -> float:
        """:meth:`learn_from_tree` for one search's samples (:func:`tree_samples`:
        values, or lower bounds with ``upper``; a hybrid's ``linear`` parts) made
        elsewhere, as a distributed run's actors ship them: add, step, sync."""
        h = self.hyper
        self.replay.add(inputs, values, upper, linear)
        if self.compiled:
            losses = compiled_steps(
                self.model,
                self.optimizer,
                self.replay,
                h.batch_size,
                h.loss,
                h.replay_steps,
                self.rng,
            )
        else:
            losses = [
                minibatch_step(
                    self.model, self.optimizer, self.replay, h.batch_size, h.loss, self.rng
                )
                for _ in range(h.replay_steps)
            ]
        if h.teacher_every == 0:
            self.sync()
        return float(np.mean(losses))

    def state(self) -> dict[str, np.ndarray]:
        """The learning state as arrays for a run's files: the replay ring
        (:meth:`ReplaySet.state`), the torch parameters as stepped and the optimizer's
        momentum buffers, each flattened in parameter order (momentum empty before the
        first step, or without momentum). The parameters are here as well as in the
        weight file because that file's first layer is rounded to the evaluator's grid
        (:func:`~treestrap.evaluation.network.quantize_first_layer`) and the steps go
        on from the unrounded ones."""
        params = self._params()
        buffers = [self.optimizer.state.get(p, {}).get("momentum_buffer") for p in params]
        have = bool(buffers) and all(b is not None for b in buffers)
        return {
            **self.replay.state(),
            "parameters": _flatten(params),
            "momentum": _flatten(buffers) if have else np.zeros(0),
            "search_parameters": self.search_parameters.copy(),
        }

    def load_state(self, state: dict[str, np.ndarray]) -> None:
        """Restore :meth:`state`'s arrays (the same network and replay capacity) and
        write the parameters into the evaluator."""
        import torch

        params = self._params()
        values = _unflatten(state["parameters"], params, "parameters")
        momentum = np.asarray(state["momentum"])
        buffers = _unflatten(momentum, params, "momentum values") if momentum.size else []
        self.replay.load_state(state)
        with torch.no_grad():
            for p, v in zip(params, values, strict=True):
                p.copy_(torch.from_numpy(v))
        self.optimizer.state.clear()
        for p, v in zip(params, buffers, strict=False):
            # The parameter's dtype and layout, as the buffer torch makes at a first step.
            buffer = torch.empty_like(p, memory_format=torch.contiguous_format)
            buffer.copy_(torch.from_numpy(v))
            self.optimizer.state[p]["momentum_buffer"] = buffer
        # The searches go on with the network they had (a frozen teacher's); states
        # saved before it was kept searched with the parameters themselves.
        search = np.asarray(state.get("search_parameters", np.zeros(0)))
        if search.size == sum(p.numel() for p in params):
            self._write_search(search)
        else:
            self.sync()

    def _params(self) -> list[Any]:
        return [p for group in self.optimizer.param_groups for p in group["params"]]


def _flatten(tensors: list[Any]) -> np.ndarray:
    """Torch tensors as one float64 vector."""
    return np.concatenate([t.detach().double().numpy().reshape(-1) for t in tensors])


def _unflatten(flat: np.ndarray, like: list[Any], what: str) -> list[np.ndarray]:
    """:func:`_flatten`'s inverse: arrays of the shapes of tensors ``like``."""
    flat = np.asarray(flat, dtype=np.float64)
    total = sum(t.numel() for t in like)
    if flat.shape != (total,):
        raise ValueError(f"{flat.size} saved {what} for a network of {total} parameters")
    out, at = [], 0
    for t in like:
        out.append(flat[at : at + t.numel()].reshape(tuple(t.shape)).copy())
        at += t.numel()
    return out


class ReplayTrainerState(Optimizer):
    """A :class:`ReplayTrainer`'s learning state through the interface a training run
    saves and restores an optimizer's state by (``optimizer.npz``, kept beside the
    weights): it applies nothing itself (the torch optimizer steps the network)."""

    name = "replay"

    def __init__(self, trainer: ReplayTrainer) -> None:
        super().__init__(0, trainer.hyper.step_size)
        self.trainer = trainer

    def state(self) -> dict[str, np.ndarray]:
        return self.trainer.state()

    def load_state(self, state: dict[str, np.ndarray]) -> None:
        self.trainer.load_state(state)
