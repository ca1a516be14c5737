"""The provenance record of a distilled network (``distill fit``).

Its sources are the labelling directories (each with its games, player filter and
the labels' CPU time); its parents are the teachers that labelled them, the training
runs whose weights played the games, and the linear part it was fitted over.
"""

from __future__ import annotations

from typing import Any

from treestrap.distill.labels import label_cpu_seconds, label_settings
from treestrap.evaluation.provenance import (
    chain_self_play_only,
    named_parent,
    stored_weights,
    tool_record,
    weights_sha256,
)

TOOL = "treestrap distill fit"


def _labels_source(directory: str, positions: int) -> dict[str, Any]:
    settings = label_settings(directory)
    games = [g for g in settings.get("games", []) if isinstance(g, dict)]
    recorded = bool(games) and len(games) == len(settings.get("games", []))
    return {
        "kind": "labels",
        "path": str(directory),
        "positions": positions,
        "teacher": settings.get("teacher"),
        "depth": settings.get("depth"),
        "filter": settings.get("players", "all (not recorded)"),
        "games": games,
        # Games recorded by name only (labelled before files were hashed) prove nothing.
        "self_play_only": recorded and all(g.get("self_play_only") for g in games),
    }


def _unique(parents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen, kept = set(), []
    for parent in parents:
        key = (parent.get("role"), parent.get("sha256"))
        if key not in seen:
            seen.add(key)
            kept.append(parent)
    return kept


def fit_provenance(
    label_dirs: list[str],
    positions: list[int],
    fit_cpu_seconds: float,
    model: Any,
    linear_name: str | None = None,
    linear: Any = None,
) -> dict[str, Any]:
    """The record of the network ``model`` fitted to ``positions[i]`` positions of each
    of ``label_dirs`` (over ``linear``, named ``linear_name``, if a hybrid)."""
    sources = [_labels_source(d, n) for d, n in zip(label_dirs, positions, strict=True)]
    parents: list[dict[str, Any]] = []
    for directory in label_dirs:
        settings = label_settings(directory)
        teacher = settings.get("teacher_parent")
        if isinstance(teacher, dict):
            parents.append(teacher)
        else:  # labelled before teachers were recorded: the chain stops here
            parents.append(
                {
                    "role": "teacher",
                    "kind": "weights",
                    "name": settings.get("teacher", "?"),
                    "sha256": "",
                    "provenance": None,
                    "self_play_only": False,
                }
            )
        parents += [
            g["players"]
            for g in settings.get("games", [])
            if isinstance(g, dict) and isinstance(g.get("players"), dict)
        ]
    if linear is not None and linear_name is not None:
        parents.append(named_parent("linear part", linear_name, linear))
    parents = _unique(parents)
    labels_cpu = sum(label_cpu_seconds(d) for d in label_dirs)
    record = tool_record(TOOL, fit_cpu_seconds + labels_cpu)
    record.update(
        cpu_seconds_fit=round(fit_cpu_seconds, 1),
        cpu_seconds_labels=round(labels_cpu, 1),
        sha256=weights_sha256(stored_weights(model)),
        sources=sources,
        parents=parents,
        self_play_only=chain_self_play_only(parents, sources=sources),
    )
    return record
