"""Solved Connect Four positions kept on disk: the exact solver behind a persistent
cache, so the costly positions near the empty board are solved once for every game and
player after.

The cache maps a position (the solver's key: one for a position and its mirror image,
which have the same score) to the bounds of its score known so far, ``[low, high]``
(equal once exact), in the reference data's units (:mod:`treestrap.connect4.solver`).
Every null window the solver settles narrows them, and a window that took a while is
written at once, so a long solve that is killed keeps what it found.

The perfect player asks :meth:`SolvedPositions.best_moves`: the exact score ``v`` of the
position first (one solve), then for each column a single null window, whether the
column reaches ``v`` (a column never scores above the position, so reaching is being
equal). That is far cheaper than the exact score of every column. With
``exact=False`` only win, draw or loss count (cheaper still, a weaker defender: any
losing column is as good as another).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from treestrap.connect4.bits import CELLS, WIDTH
from treestrap.connect4.board import (
    NOT_TERMINAL,
    ST_PLY,
    Position,
    can_play,
    make_move,
    terminal_value,
    unmake_move,
)

#: The file's format marker.
FORMAT = "treestrap-connect4-solved/1"
#: A null window that took this long (seconds) is written to the file at once.
SAVE_AFTER_S = 1.0
#: A solve that took this long is reported to ``log``.
LOG_AFTER_S = 1.0

WIN, DRAW, LOSE = 1, 0, -1


def default_cache_path() -> Path:
    """``$XDG_CACHE_HOME/treestrap/connect4-solved.json`` (``~/.cache`` without it)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "treestrap" / "connect4-solved.json"


def _moves(pos: Position) -> str:
    return "".join(str(int(c) + 1) for c in pos.moves[: int(pos.st[ST_PLY])])


class SolvedPositions:
    """The exact solver with a persistent cache of score bounds.

    ``path=None`` keeps the cache in memory only. ``log`` (e.g. ``print``) is told one
    line per solve that took :data:`LOG_AFTER_S` or more."""

    def __init__(
        self,
        path: str | Path | None = None,
        table_bits: int = 20,
        log: Callable[[str], None] | None = None,
    ) -> None:
        from treestrap.connect4.solver import Solver

        self.solver = Solver(table_bits)
        self.path = Path(path) if path is not None else None
        self.log = log
        self.bounds: dict[int, tuple[int, int]] = {}
        self.solve_seconds = 0.0
        self._dirty = False
        if self.path is not None and self.path.exists():
            self._load(self.path)

    def _load(self, path: Path) -> None:
        try:
            data = json.loads(path.read_text())
            if data.get("format") != FORMAT:
                raise ValueError(f"format {data.get('format')!r}, expected {FORMAT!r}")
            self.bounds = {int(k): (int(lo), int(hi)) for k, (lo, hi) in data["bounds"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"{path}: not a solved-positions cache ({exc})") from None

    def save(self) -> None:
        """Write the cache (atomically: a temporary file renamed over it)."""
        if self.path is None or not self._dirty:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {
            "format": FORMAT,
            "units": "reference data: 22 - the winner's discs, for the side to move",
            "bounds": {str(k): list(b) for k, b in sorted(self.bounds.items())},
        }
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, separators=(",", ":")))
        tmp.replace(self.path)
        self._dirty = False

    def _key(self, pos: Position) -> int:
        from treestrap.connect4.solver_table import position_key

        ply = int(pos.st[ST_PLY])
        cur = pos.discs[ply & 1]
        return int(position_key(cur, pos.discs[0] | pos.discs[1]))

    def known(self, pos: Position) -> tuple[int, int]:
        """The bounds held for ``pos`` (the widest range if none)."""
        return self.bounds.get(self._key(pos), (-CELLS, CELLS))

    def _narrow(self, key: int, low: int, high: int, started: float) -> None:
        old_low, old_high = self.bounds.get(key, (-CELLS, CELLS))
        new = (max(low, old_low), min(high, old_high))
        if new != (old_low, old_high):
            self.bounds[key] = new
            self._dirty = True
            if time.perf_counter() - started >= SAVE_AFTER_S:
                self.save()

    def _report(self, pos: Position, what: str, started: float) -> None:
        took = time.perf_counter() - started
        self.solve_seconds += took
        if self.log is not None and took >= LOG_AFTER_S:
            low, high = self.known(pos)
            held = f"= {low}" if low == high else f"in {low}..{high}"
            self.log(
                f"solved {_moves(pos) or '(empty board)'}: {what}, score {held} "
                f"({took:.1f} s, {len(self.bounds)} positions cached)"
            )

    def at_least(self, pos: Position, value: int) -> bool:
        """Whether the score of ``pos`` (for its side to move) is ``>= value``."""
        key = self._key(pos)
        low, high = self.bounds.get(key, (-CELLS, CELLS))
        if low >= value:
            return True
        if high < value:
            return False
        low, high = self._from_children(pos)
        if low >= value or high < value:
            return low >= value
        started = time.perf_counter()
        result = self.solver.bound(pos, value - 1)
        if result > value - 1:
            self._narrow(key, result, CELLS, started)
        else:
            self._narrow(key, -CELLS, result, started)
        self._report(pos, f"score >= {value}?", started)
        return result > value - 1

    def _from_children(self, pos: Position) -> tuple[int, int]:
        """Bounds of the score from the children's cached bounds: the best column's
        score lies between the highest of their lower bounds and of their upper ones."""
        if terminal_value(pos) != NOT_TERMINAL:
            return (-CELLS, CELLS)
        low = high = -CELLS
        for col in range(WIDTH):
            if can_play(pos, col):
                make_move(pos, col)
                child_low, child_high = self.known(pos)
                unmake_move(pos)
                low, high = max(low, -child_high), max(high, -child_low)
        return (low, high)

    def score(self, pos: Position) -> int:
        """The exact score of ``pos`` for its side to move."""
        key = self._key(pos)
        low, high = self.bounds.get(key, (-CELLS, CELLS))
        if low == high:
            return low
        from_children = self._from_children(pos)
        low, high = max(low, from_children[0]), min(high, from_children[1])
        self._narrow(key, low, high, time.perf_counter())
        if low == high:
            return low
        started = time.perf_counter()

        def narrowed(lo: int, hi: int) -> None:  # one null window settled
            self._narrow(key, lo, hi, started)
            took = time.perf_counter() - started
            if self.log is not None and lo < hi and took >= LOG_AFTER_S:
                self.log(f"solving {_moves(pos) or '(empty board)'}: in {lo}..{hi} ({took:.1f} s)")

        exact = self.solver.solve(pos, low, high, narrowed)
        self._narrow(key, exact, exact, started)
        self._report(pos, "exact score", started)
        return exact

    def result(self, pos: Position) -> int:
        """:data:`WIN`, :data:`DRAW` or :data:`LOSE` for the side to move."""
        if self.at_least(pos, 1):
            return WIN
        return DRAW if self.at_least(pos, 0) else LOSE

    def best_moves(self, pos: Position, exact: bool = True) -> list[int]:
        """The columns (0..6) of the highest exact score (the quickest win, the
        longest loss); with ``exact=False`` those of the best result (win, draw, loss:
        every column when all lose)."""
        if terminal_value(pos) != NOT_TERMINAL:
            raise ValueError("the game is over: no column has a score")
        legal = [c for c in range(WIDTH) if can_play(pos, c)]
        # the best result's lowest score: a loss is any score, so every column
        target = self.score(pos) if exact else {WIN: 1, DRAW: 0, LOSE: -CELLS}[self.result(pos)]
        best = []
        for col in legal:
            make_move(pos, col)
            try:
                # the column reaches target when the reply's score is <= -target
                if not self.at_least(pos, -target + 1):
                    best.append(col)
                    if exact:  # and then equals it: no column scores above the position
                        self._narrow(self._key(pos), -target, -target, time.perf_counter())
            finally:
                unmake_move(pos)
        return best

    def column_scores(self, pos: Position) -> np.ndarray:
        """The exact score of every column (-1000 where full), as the reference file
        lists them: a solve per column, so dearer than :meth:`best_moves`."""
        from treestrap.connect4.solver import FULL_COLUMN

        scores = np.full(WIDTH, FULL_COLUMN, dtype=np.int64)
        for col in range(WIDTH):
            if can_play(pos, col):
                make_move(pos, col)
                try:
                    scores[col] = -self.score(pos)
                finally:
                    unmake_move(pos)
        return scores
