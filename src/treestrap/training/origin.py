"""A training run's provenance: where its weights started and which games taught them.

The run records its origin once, when it is made (``origin.json``: the command line
and the starting weights with their hash and own provenance); every weight file the
run writes then carries a provenance record built from that origin and the run's
state (:mod:`treestrap.evaluation.provenance`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from treestrap.evaluation.provenance import (
    SELF_PLAY,
    chain_self_play_only,
    command_line,
    hand_written_parent,
    model_parent,
    random_parent,
    stored_weights,
    tool_record,
    weights_sha256,
)
from treestrap.games.registry import game_facts
from treestrap.training.config import TrainConfig
from treestrap.training.files import write_atomic

ORIGIN_FILE = "origin.json"
TOOL = "treestrap train"


def start_parent(config: TrainConfig, initial: Any) -> dict[str, Any]:
    """The record of the run's starting weights ``initial`` (made from ``config``)."""
    weights = stored_weights(initial)
    if config.init == "random":
        drawn_again = game_facts(config.game).random_start_redrawn and config.model == "linear"
        feature_set = config.feature_set if drawn_again else None
        return random_parent("start", config.seed, config.init_scale, weights, feature_set)
    if config.init == "hand-set":
        return hand_written_parent("start", "hand-set", weights)
    return model_parent("start", config.init, weights, initial.metadata)


def new_origin(config: TrainConfig, initial: Any, command: str | None = None) -> dict[str, Any]:
    """A run's origin: the command that made it and its starting weights."""
    return {"command": command or command_line(), "start": start_parent(config, initial)}


def write_origin(run: Path, origin: dict[str, Any]) -> None:
    write_atomic(run / ORIGIN_FILE, json.dumps(origin, indent=1))


def read_origin(run: Path) -> dict[str, Any] | None:
    """The origin a run recorded, or None (a run made before runs recorded one)."""
    path = run / ORIGIN_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def note_resume(run: Path, origin: dict[str, Any], games: int) -> dict[str, Any]:
    """Record in the run's origin that it is resumed now, after ``games`` games, by the
    running command (its ``--games`` may differ from the command that made the run)."""
    resumes = [*origin.get("resumed", []), {"command": command_line(), "after_games": games}]
    origin = {**origin, "resumed": resumes}
    write_origin(run, origin)
    return origin


#: The command of a run made before runs recorded their origin.
UNKNOWN_COMMAND = "unknown (the run was made before runs recorded their command)"


def games_by_player(config: TrainConfig, games: int) -> dict[str, int]:
    """The run's ``games`` so far by who the learner played: itself, or its opponent
    (after ``--opponent-after`` games of self-play)."""
    against = 0 if config.opponent == "self" else max(0, games - config.opponent_after)
    counts = {SELF_PLAY: games - against}
    if against:
        counts[config.opponent] = against
    return counts


def run_provenance(
    origin: dict[str, Any], config: TrainConfig, games: int, cpu_seconds: float, model: Any
) -> dict[str, Any]:
    """The provenance record of the run's weights ``model`` after ``games`` games."""
    record = tool_record(TOOL, cpu_seconds, command=origin["command"])
    if origin.get("resumed"):
        record["resumed"] = origin["resumed"]
    by_player = games_by_player(config, games)
    parents = [origin["start"]]
    record.update(
        sha256=weights_sha256(stored_weights(model)),
        games=by_player,
        parents=parents,
        self_play_only=chain_self_play_only(parents, games=by_player),
    )
    return record
