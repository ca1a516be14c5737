"""A run's weights and state on disk: ``weights.npz`` after every game and the
checkpoints in ``checkpoints/``, each carrying the run's state in its metadata."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from treestrap.evaluation.weights import LinearModel, save_weights
from treestrap.training.config import TrainConfig

FORMAT_VERSION = 1


@dataclass
class RunState:
    """What a run has done so far; every weight file of the run carries it."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    elo: int | None = None
    recent: list[float] = field(default_factory=list)


def is_log_checkpoint(games: int) -> bool:
    """1, 2, 5, 10, 20, 50, 100, ...: evenly spread on a log axis."""
    while games >= 10 and games % 10 == 0:
        games //= 10
    return games in (1, 2, 5)


def with_meta(model: LinearModel, config: TrainConfig, state: RunState) -> LinearModel:
    model.metadata = {
        "algorithm": config.algorithm,
        "games": state.games,
        "seed": config.seed,
        "init": config.init,
        "run_state": dataclasses.asdict(state),
        "format_version": FORMAT_VERSION,
    }
    return model


def save_checkpoint(model: LinearModel, config: TrainConfig, state: RunState, run: Path) -> None:
    save_weights(
        with_meta(model, config, state), run / "checkpoints" / f"game-{state.games:06d}.npz"
    )
