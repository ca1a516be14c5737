"""The provenance of a round's candidate, whatever the game: the tool, its CPU time,
the self-play games and positions it learned from, and the parents (the player whose
games they were, and the network it started from) that chain it back to random
weights."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from treestrap.evaluation.provenance import (
    chain_self_play_only,
    model_parent,
    stored_weights,
    tool_record,
    weights_sha256,
)

TOOL = "treestrap bootstrap"


def candidate_record(
    weights: Any,
    best_path: Path,
    best: Any,
    games: int,
    positions: int,
    budget_name: str,
    cpu_seconds: float,
    start: Any = None,
) -> dict[str, Any]:
    """The provenance record of a candidate with ``weights``, fitted to ``games`` self-play
    games of the player ``best`` (read from ``best_path``), starting from ``start``."""
    parents = [model_parent("self-play data", best_path.name, stored_weights(best), best.metadata)]
    if start is not None:
        parents.append(model_parent("start", best_path.name, stored_weights(start), start.metadata))
    by_player = {"self-play": games}
    record = tool_record(TOOL, cpu_seconds)
    record.update(
        sha256=weights_sha256(weights),
        games=by_player,
        positions=positions,
        parents=parents,
        budget=budget_name,
        self_play_only=chain_self_play_only(parents, games=by_player),
    )
    return record
