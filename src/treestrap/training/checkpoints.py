"""A run's weights and state on disk: ``weights.npz`` after every game and the
checkpoints in ``checkpoints/``, each carrying the run's state in its metadata."""

from __future__ import annotations

import dataclasses
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.provenance import KEY as PROVENANCE
from treestrap.evaluation.weights import LinearModel
from treestrap.games.connect4_model import Connect4Model
from treestrap.games.connect4_network import Connect4NetworkModel
from treestrap.learn.optimizer import Optimizer
from treestrap.learn.replay import ReplayTrainerState
from treestrap.training.config import TrainConfig
from treestrap.training.files import naming
from treestrap.training.origin import run_provenance

#: The version of a run's layout and state; every weight file of the run records it in
#: its metadata (files written before it was recorded are version 1).
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
    #: CPU seconds of all games so far, learning included
    cpu_seconds: float = 0.0


def is_log_checkpoint(games: int) -> bool:
    """1, 2, 5, 10, 20, 50, 100, ...: evenly spread on a log axis."""
    while games >= 10 and games % 10 == 0:
        games //= 10
    return games in (1, 2, 5)


#: A run's model: linear weights, or a network (``TrainConfig.model``); a Connect Four
#: run's, linear weights over its features.
RunModel = LinearModel | NetworkModel | Connect4Model | Connect4NetworkModel


def with_meta(
    model: RunModel, config: TrainConfig, state: RunState, origin: dict[str, Any] | None = None
) -> RunModel:
    model.metadata = {
        "algorithm": config.algorithm,
        "games": state.games,
        "seed": config.seed,
        "init": config.init,
        "run_state": dataclasses.asdict(state),
        "format_version": FORMAT_VERSION,
    }
    if model.is_network:  # linear files' stay as they were
        model.metadata["model"] = config.model
        model.metadata["objective"] = config.objective
    if origin is not None:
        model.metadata[PROVENANCE] = run_provenance(
            origin, config, state.games, state.cpu_seconds, model
        )
    return model


def check_format_version(model: RunModel, run: Path) -> None:
    """Refuse weights of a run of another format version, naming both versions: this
    build would misread its state or files."""
    version = model.metadata.get("format_version", FORMAT_VERSION)
    if version != FORMAT_VERSION:
        raise ValueError(
            f"{run}: a training run of format version {version}, this build reads "
            f"version {FORMAT_VERSION}"
        )


OPTIMIZER_FILE = "optimizer.npz"
#: The state before the latest: a kill between writing the optimizer's state and the
#: weights leaves the weights one game behind the newest state, and this one matching.
PREVIOUS_OPTIMIZER_FILE = "optimizer-previous.npz"


def save_optimizer_state(run: Path, games: int, optimizer: Optimizer) -> None:
    """Write an adaptive optimizer's state (a network run's: its replay set and
    momentum) after ``games`` games (before the weights)."""
    state = optimizer.state()
    if not state:
        return
    path = run / OPTIMIZER_FILE
    if path.exists():
        os.replace(path, run / PREVIOUS_OPTIMIZER_FILE)
    tmp = run / f".{OPTIMIZER_FILE}.tmp"
    with naming(path):
        try:
            with open(tmp, "wb") as fh:
                np.savez(fh, games=np.array(games), **state)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)  # a full disk: give its space back
            raise


def load_optimizer_state(run: Path, games: int, optimizer: Optimizer) -> None:
    """Restore the optimizer's state saved with the weights of game ``games``.

    A network run written before its replay set and momentum were saved has no state
    file at all: it resumes with both afresh, as it did then, and says so."""
    if not optimizer.state() or games == 0:
        return
    names = (OPTIMIZER_FILE, PREVIOUS_OPTIMIZER_FILE)
    if isinstance(optimizer, ReplayTrainerState) and not any((run / n).exists() for n in names):
        warnings.warn(
            f"{run}: no saved replay set or momentum (a network run of an earlier "
            "version); resuming with both afresh",
            stacklevel=2,
        )
        return
    for name in (OPTIMIZER_FILE, PREVIOUS_OPTIMIZER_FILE):
        path = run / name
        if path.exists():
            with np.load(path) as saved:
                if int(saved["games"]) == games:
                    optimizer.load_state({k: saved[k] for k in optimizer.state()})
                    return
    raise ValueError(
        f"{run} has no {optimizer.name} optimizer state for game {games}: it cannot resume"
    )


def save_run_weights(
    model: RunModel,
    config: TrainConfig,
    state: RunState,
    path: Path,
    origin: dict[str, Any] | None = None,
) -> None:
    """``save_weights`` (``save_network`` for a network) with the run's state, an error
    naming ``path`` (not its temporary)."""
    with naming(path):
        model = with_meta(model, config, state, origin)
        model.save(path)


def save_checkpoint(
    model: RunModel,
    config: TrainConfig,
    state: RunState,
    run: Path,
    origin: dict[str, Any] | None = None,
) -> None:
    checkpoint = run / "checkpoints" / f"game-{state.games:06d}.npz"
    save_run_weights(model, config, state, checkpoint, origin)
