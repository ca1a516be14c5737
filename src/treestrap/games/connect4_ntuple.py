"""The Connect Four n-tuple model: tuples of cells and their tables
(:mod:`treestrap.connect4.ntuple`), saved in the project's weight-file format.

Its file is a weight file of :mod:`treestrap.evaluation.weight_file_format` whose meta
holds the tuples; the vector is the tables::

    {"format": "treestrap-weights", "version": 1, "model": "ntuple",
     "game": "connect4", "tuples": [[17, 18, ...], ...], "shape": [4587520],
     "metadata": {...}}

:func:`treestrap.games.connect4_model.load_connect4_model` reads it beside linear and
network files, so every Connect Four player (``FILE.npz[:depth=N]``) takes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from treestrap.connect4.board import Position
from treestrap.connect4.evaluator import Connect4Evaluator, evaluate, make_evaluator
from treestrap.connect4.ntuple import (
    MAX_LENGTH,
    buffer_tables,
    ntuple_buffer,
    random_walk_tuples,
    table_size,
)
from treestrap.evaluation.weight_file_format import (
    FORMAT,
    VERSION,
    WeightFileError,
    check_vector,
    stored_metadata,
    write_weight_file,
)
from treestrap.games.connect4_facts import CONNECT4_FACTS

MODEL = "ntuple"


@dataclass
class Connect4NTupleModel:
    """``tuples`` (int[T, L] cells, ``col * 6 + row``), their ``tables`` (float64[T *
    4**L], tuple-major) and free-form metadata."""

    tuples: np.ndarray
    tables: np.ndarray
    metadata: dict[str, Any] = field(default_factory=dict)
    is_network: ClassVar[bool] = False
    feature_set_name: ClassVar[str] = MODEL

    def __post_init__(self) -> None:
        self.tuples = np.ascontiguousarray(self.tuples, dtype=np.int64)
        if self.tuples.ndim != 2 or not 1 <= self.tuples.shape[1] <= MAX_LENGTH:
            raise ValueError(f"tuples must be a [T, L] array with L 1-{MAX_LENGTH}")
        self.tables = np.ascontiguousarray(self.tables, dtype=np.float64).reshape(-1)
        count, length = self.tuples.shape
        if self.tables.size != count * table_size(length):
            raise ValueError(
                f"{self.tables.size} table entries for {count} tuples of {length} cells "
                f"({count * table_size(length)})"
            )

    @property
    def weights(self) -> np.ndarray:
        """The vector its file stores (the tables), as every model's ``weights`` is."""
        return self.tables

    @property
    def spec(self) -> str:
        count, length = self.tuples.shape
        return f"ntuple:{count}x{length}"

    def describe(self) -> str:
        count, length = self.tuples.shape
        return f"{count} {length}-tuples"

    def evaluator(self) -> Connect4Evaluator:
        """A compiled-code view over a copy of the tables."""
        return make_evaluator(ntuple_buffer(self.tuples, self.tables))

    def evaluate(self, pos: Position) -> float:
        """Side-to-move score of a position (unclipped)."""
        return float(evaluate(pos, self.evaluator()))

    @staticmethod
    def write_evaluator(ev: Connect4Evaluator, tables: np.ndarray) -> None:
        """New tables into an evaluator of this kind, in place."""
        buffer_tables(ev.weights)[:] = tables

    def save(self, path: str | Path) -> None:
        """Write the model to ``path`` atomically."""
        meta = {
            "format": FORMAT,
            "version": VERSION,
            "model": MODEL,
            "game": CONNECT4_FACTS.name,
            "tuples": self.tuples.tolist(),
            "shape": [int(self.tables.size)],
            "metadata": self.metadata,
        }
        write_weight_file(Path(path), self.tables, meta)


def ntuple_from_file(path: Path, meta: dict[str, Any], tables: np.ndarray) -> Connect4NTupleModel:
    """An n-tuple file's model from its container (read and checked for the game by the
    caller); :class:`WeightFileError` says what is wrong."""
    tuples = meta.get("tuples")
    if not isinstance(tuples, list) or not tuples:
        raise WeightFileError(f"{path}: an n-tuple file without its tuples")
    try:
        cells = np.array(tuples, dtype=np.int64)
        if cells.min() < 0 or cells.max() > 41:
            raise ValueError("a tuple's cells must be 0-41")
        model = Connect4NTupleModel(cells, tables, {})
    except (ValueError, TypeError) as exc:
        raise WeightFileError(f"{path}: {exc}") from None
    check_vector(path, meta, tables)
    model.metadata = stored_metadata(path, meta, tables)
    return model


def parse_ntuple_spec(spec: str) -> tuple[int, int]:
    """``"ntuple:TxL"`` as ``(T, L)``; ``ValueError`` says what is wrong."""
    body = spec.removeprefix("ntuple:")
    try:
        count, length = (int(v) for v in body.lower().split("x"))
    except ValueError:
        raise ValueError(
            f"an n-tuple model is ntuple:TxL (for example ntuple:70x8), got {spec!r}"
        ) from None
    if count < 1 or not 1 <= length <= MAX_LENGTH:
        raise ValueError(f"ntuple:TxL needs T >= 1 and L 1-{MAX_LENGTH}, got {spec!r}")
    return count, length


def random_connect4_ntuple(
    count: int, length: int, seed: int, scale: float = 1e-3
) -> Connect4NTupleModel:
    """Tuples drawn from ``seed`` (random walks) and tables uniform in ``+-scale``."""
    tuples = random_walk_tuples(count, length, seed)
    rng = np.random.default_rng(seed)
    tables = rng.uniform(-scale, scale, count * table_size(length))
    return Connect4NTupleModel(tuples, tables, {"preset": "random", "seed": seed, "scale": scale})
