"""The provenance of a round's candidate, whatever the game: the tool, its CPU time,
the self-play games and positions it learned from, and the parents (the player whose
games they were, and the network it started from) that chain it back to random
weights. And the candidate's files: the fit's summary (``fit/summary.json``) is written
before the candidate's weight file, so a round that finds both has its candidate and
reads the summary back instead of fitting again.

The candidate's ``cpu_seconds`` is its round's: the self-play that made its data, its
fit and its gate, with that split in ``cpu_split``. The fit writes the file before the
gate is played, so its record counts the fit alone until :func:`record_round_cpu`
writes the round's total once the gate is decided, before the candidate plays a game
as the best (the chunks it plays name its file's hash).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from treestrap.distill.fit_checkpoints import checkpointed_cpu_seconds
from treestrap.evaluation.provenance import (
    KEY,
    chain_self_play_only,
    model_parent,
    stored_weights,
    tool_record,
    weights_sha256,
)

TOOL = "treestrap bootstrap"
SUMMARY_FILE = "summary.json"


def fitted_summary(candidate: Path, state_dir: Path) -> dict[str, Any] | None:
    """The summary of a candidate already fitted (None if it is still to fit: then
    ``state_dir``, where the fit keeps its checkpoints, exists)."""
    summary_path = state_dir / SUMMARY_FILE
    if candidate.exists() and summary_path.exists():
        return dict(json.loads(summary_path.read_text()))
    state_dir.mkdir(parents=True, exist_ok=True)
    return None


def save_candidate(
    model: Any, summary: dict[str, Any], candidate: Path, state_dir: Path
) -> dict[str, Any]:
    """Write the fit's summary, then the candidate (the commit point); the summary."""
    (state_dir / SUMMARY_FILE).write_text(json.dumps(summary, indent=1) + "\n")
    model.save(candidate)
    return summary


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


@dataclass
class FitOutcome:
    """What a game's fit of a round hands back: the candidate model (its metadata is
    written here), the positions it learned from, the weight file's ``fit`` entry, the
    figures the round's summary keeps (held-out loss, ...), the epochs' reports and the
    network it started from (None for a fresh start)."""

    model: Any
    positions: int
    fit: dict[str, Any]
    figures: dict[str, Any]
    epochs: list[dict[str, Any]] = field(default_factory=list)
    start: Any = None


def fit_round_candidate(
    candidate: Path,
    state_dir: Path,
    best_path: Path,
    best: Any,
    games: int,
    budget_name: str,
    fit: Callable[[], FitOutcome],
) -> dict[str, Any]:
    """Fit (or finish fitting, or read back) a round's candidate by ``fit``, on self-play
    games of ``best``; what the round's record keeps of the fit."""
    fitted = fitted_summary(candidate, state_dir)
    if fitted is not None:
        return fitted
    # A fit stopped and resumed: its finished epochs' CPU time is in their checkpoints.
    earlier = checkpointed_cpu_seconds(state_dir)
    cpu = time.process_time()
    outcome = fit()
    cpu_seconds = earlier + time.process_time() - cpu
    model = outcome.model
    record = candidate_record(
        stored_weights(model),
        best_path,
        best,
        games,
        outcome.positions,
        budget_name,
        cpu_seconds,
        outcome.start,
    )
    model.metadata = {KEY: record, "fit": outcome.fit}  # the fit's CPU time, for now
    summary = {
        "positions": outcome.positions,
        **outcome.figures,
        "cpu_seconds": round(cpu_seconds, 1),
        "model": model.spec,
        "epochs": outcome.epochs,
    }
    return save_candidate(model, summary, candidate, state_dir)


def round_cpu_split(selfplay: float, fit: float, gate: float) -> dict[str, float]:
    """A round's CPU seconds by step, as its candidate's record keeps them."""
    return {"selfplay": round(selfplay, 1), "fit": round(fit, 1), "gate": round(gate, 1)}


def record_round_cpu(candidate: Path, split: dict[str, float]) -> None:
    """Make the candidate's ``cpu_seconds`` its round's total, with ``split`` beside it
    (its weights and their hash unchanged; written atomically, and not again once
    written, so a resumed round leaves the file as it is)."""
    from treestrap.evaluation.weight_file_format import read_weight_file, write_weight_file

    meta, weights = read_weight_file(candidate)
    metadata = meta.get("metadata", {})
    record = metadata.get(KEY)
    if not isinstance(record, dict) or record.get("cpu_split") == split:
        return
    total = round(sum(split.values()), 1)
    record = {**record, "cpu_seconds": total, "cpu_split": split}
    write_weight_file(candidate, weights, {**meta, "metadata": {**metadata, KEY: record}})
