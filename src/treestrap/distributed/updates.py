"""What an actor ships per search: the weight change its learning rule asked for.

Every rule changes the weights through ``Algorithm.apply``, which hands the optimizer
``delta_theta`` (frozen features already zeroed). The actor's optimizer is wrapped in a
:class:`RecordingOptimizer` that applies each change as usual (so the actor's own next
search sees it, as in a one-process run) and keeps it as an :class:`Update`: the step
schedule's factor and the non-zero entries. Replaying the same records through the same
optimizer from the same weights gives the same weights, bit for bit; that is how the
learner stays in step with a single actor.

A network run (Serban's Algorithm 7) ships no weight change: its actors search with the
newest network they were sent and ship each search's replay samples
(:class:`ReplaySample`: the tree's first K nodes, inputs and values, or bounds on
them from a table walk, as :func:`treestrap.learn.replay.tree_samples` takes them),
which the learner adds to its replay set, taking the mini-batch steps itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from treestrap.learn.optimizer import Optimizer


@dataclass(frozen=True)
class Update:
    """One search's ``delta_theta``, sparse, and the step factor it was applied with."""

    scale: float
    idx: np.ndarray  # int32 feature indices with a non-zero change
    val: np.ndarray  # float64 changes at those indices

    @property
    def nbytes(self) -> int:
        return int(self.idx.nbytes + self.val.nbytes) + 8


@dataclass(frozen=True)
class ReplaySample:
    """One search's replay samples: ``bitboard`` rows (uint8) and side-to-move values
    (with ``upper``: lower and upper bounds on them); ``linear``: a hybrid's linear part
    of each, in the frame of the values."""

    inputs: np.ndarray
    values: np.ndarray
    upper: np.ndarray | None = None
    linear: np.ndarray | None = None

    @property
    def nbytes(self) -> int:
        extra = [a.nbytes for a in (self.upper, self.linear) if a is not None]
        return int(self.inputs.nbytes + self.values.nbytes + sum(extra))


#: What an actor ships per search: a linear rule's update, or a network run's samples.
Record = Update | ReplaySample


class RecordingOptimizer(Optimizer):
    """Applies through ``inner`` and records every change as an :class:`Update`."""

    def __init__(self, inner: Optimizer) -> None:
        self.inner = inner
        self.name = inner.name
        self.step_size = inner.step_size
        self.records: list[Update] = []

    @property  # type: ignore[override]
    def scale(self) -> float:
        return self.inner.scale

    @scale.setter
    def scale(self, value: float) -> None:
        self.inner.scale = value

    def apply(self, weights: np.ndarray, delta_theta: np.ndarray) -> None:
        idx = np.flatnonzero(delta_theta)
        self.records.append(
            Update(float(self.inner.scale), idx.astype(np.int32), delta_theta[idx].copy())
        )
        self.inner.apply(weights, delta_theta)

    def state(self) -> dict[str, np.ndarray]:
        return self.inner.state()

    def load_state(self, state: dict[str, np.ndarray]) -> None:
        self.inner.load_state(state)

    def take(self) -> list[Update]:
        """The records since the last call, in the order they were applied."""
        records, self.records = self.records, []
        return records


def apply_updates(optimizer: Optimizer, weights: np.ndarray, updates: list[Record]) -> None:
    """Apply ``updates`` to ``weights`` in order, through ``optimizer`` (as the actor did)."""
    dense = np.zeros_like(weights)
    for update in updates:
        assert isinstance(update, Update)
        dense[update.idx] = update.val
        optimizer.scale = update.scale
        optimizer.apply(weights, dense)
        dense[update.idx] = 0.0
