"""TensorBoard scalars of training runs (``--tensorboard DIR``): one event per game, at
step = the game's number, from the same row as its ``metrics.jsonl`` line; and the
ratings of checkpoints that ``treestrap curve`` fits.

The tensorboard package is optional: it is imported here, only when a run asks for a
log, and its absence is a ``ValueError`` that says how to install it. Events are written
with tensorboard's own event file writer, each game's scalars in one record, so a kill
leaves a game logged whole or not at all.

A game is logged after its weights, the run's commit point. Opening the log first writes
the lines of ``metrics.jsonl`` newer than the last game the directory holds: a resumed
run, or one given ``--tensorboard`` only when resumed, neither loses nor repeats a step.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from treestrap.learn.optimizer import decay_factor
from treestrap.learn.rule_config import rule_step_size
from treestrap.option import LINEAR, model_kind
from treestrap.training.config import TrainConfig

INSTALL_HINT = (
    "--tensorboard needs the tensorboard package: pip install 'treestrap[tensorboard]' "
    "(or pip install tensorboard)"
)

#: Fields of a ``metrics.jsonl`` line logged as they are, by tag (the group before the
#: slash is a section of TensorBoard's page). A field a line lacks, or holds as null,
#: is left out of that game's event.
METRIC_TAGS: dict[str, str] = {
    "error/mean_abs_delta": "mean_abs_delta",
    "error/replay_loss": "replay_loss",
    "weights/norm": "weight_norm",
    "speed/nps": "nps",
    "speed/seconds": "seconds",
    "speed/cpu_seconds": "cpu_seconds",
    "speed/cpu_total": "cpu_total",
    "game/plies": "plies",
    "game/searches": "searches",
    "game/nodes": "nodes",
    "opponent/elo": "opponent_elo",
    "replay/positions": "replay_positions",
    "distributed/staleness": "staleness",
}
GAMES_PER_HOUR = "speed/games_per_hour"
STEP_SIZE = "learn/step_size"
#: The material weights of a meep run, in centipawns (``treestrap weights show``'s).
PIECE_VALUES = "piece_values/"
#: Checkpoint ratings (``treestrap curve``), in a TensorBoard run of their own
#: (``RUN/ratings``): each fit replaces the last, from step 0, which would discard a
#: run's games in the same directory.
RATING = "rating/"
RATINGS_RUN = "ratings"


def require_tensorboard() -> None:
    """``ValueError`` with how to install tensorboard, unless its writer imports."""
    try:
        import tensorboard.summary.writer.event_file_writer  # noqa: F401
    except ImportError:
        raise ValueError(INSTALL_HINT) from None


def game_step_size(config: TrainConfig, game: int) -> float:
    """The step size game ``game`` learned with: the rule's (``--step-size`` or its
    default) times the decay of ``--step-decay`` (a network's learning rate alike)."""
    network = model_kind(config.model) != LINEAR
    return rule_step_size(config, network=network) * decay_factor(game, config.step_decay)


def game_scalars(row: Mapping[str, Any], step_size: float) -> dict[str, float]:
    """The scalars of one ``metrics.jsonl`` line, by tag, with the step size it
    learned with and its speed in games per hour (from its wall seconds)."""
    scalars = {
        tag: float(row[field]) for tag, field in METRIC_TAGS.items() if row.get(field) is not None
    }
    if row.get("seconds"):
        scalars[GAMES_PER_HOUR] = 3600.0 / float(row["seconds"])
    scalars[STEP_SIZE] = step_size
    for piece, value in (row.get("material") or {}).items():
        scalars[PIECE_VALUES + piece] = float(value)
    return scalars


def _event_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*tfevents*") if p.is_file())


def _events(folder: Path) -> Iterator[Any]:
    """The events of every event file in ``folder`` (a torn last record ends a file)."""
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

    for path in _event_files(folder):
        yield from EventFileLoader(str(path)).Load()


def last_game_logged(folder: Path) -> int:
    """The last game whose scalars ``folder`` holds (0: none)."""
    if not folder.is_dir():
        return 0
    return max((e.step for e in _events(folder) if e.summary.value), default=0)


class EventLog:
    """A TensorBoard run directory that this process appends one new event file to."""

    def __init__(self, folder: Path) -> None:
        require_tensorboard()
        from tensorboard.summary.writer.event_file_writer import EventFileWriter

        self._writer = EventFileWriter(str(folder))

    def write(self, step: int, scalars: Mapping[str, float]) -> None:
        """One event of ``scalars`` at ``step``, on disk when this returns."""
        from tensorboard.compat.proto.event_pb2 import Event
        from tensorboard.compat.proto.summary_pb2 import Summary

        values = [Summary.Value(tag=tag, simple_value=value) for tag, value in scalars.items()]
        event = Event(step=step, wall_time=time.time(), summary=Summary(value=values))
        self._writer.add_event(event)
        self._writer.flush()

    def restart(self) -> None:
        """Tell TensorBoard that the steps start again: what this directory held is
        replaced by what follows (a session start at step 0)."""
        from tensorboard.compat.proto.event_pb2 import Event, SessionLog

        start = SessionLog(status=SessionLog.START)
        self._writer.add_event(Event(step=0, wall_time=time.time(), session_log=start))

    def close(self) -> None:
        self._writer.close()


class TrainingLog:
    """A training run's TensorBoard log: each committed game's metrics line. Opened, it
    catches up with ``metrics`` (the run's records, cut back to its saved weights)."""

    def __init__(self, folder: Path, config: TrainConfig, metrics: Path) -> None:
        done = last_game_logged(folder)
        self._config = config
        self._events = EventLog(folder)
        for row in _metric_rows(metrics):
            if row["game"] > done:
                self.log(row)

    def log(self, row: Mapping[str, Any]) -> None:
        game = int(row["game"])
        self._events.write(game, game_scalars(row, game_step_size(self._config, game)))

    def close(self) -> None:
        self._events.close()


def _metric_rows(metrics: Path) -> Iterator[dict[str, Any]]:
    if not metrics.exists():
        return
    with open(metrics, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def check_new_log(folder: Path) -> None:
    """``ValueError`` if a new run's ``folder`` already holds the games of a run (their
    steps would be skipped as logged)."""
    require_tensorboard()
    if last_game_logged(folder):
        raise ValueError(
            f"--tensorboard {folder} already holds the games of another run: choose "
            "another directory (or --resume that run)"
        )


def log_ratings(folder: Path, points: list[tuple[int, float, float, float]]) -> None:
    """A run's checkpoint ratings, (games, elo, lower 95%, upper 95%) each, at step =
    games, in ``folder``; they replace those an earlier fit wrote there."""
    events = EventLog(folder)
    try:
        events.restart()
        for games, elo, lower, upper in sorted(points):
            scalars = {RATING + "elo": elo}
            if math.isfinite(lower) and math.isfinite(upper):
                scalars |= {RATING + "lower95": lower, RATING + "upper95": upper}
            events.write(games, scalars)
    finally:
        events.close()
