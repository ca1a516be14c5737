"""``treestrap weights show`` for a Connect Four weight file: what the model is, how it
was trained (the file's metadata), and for linear weights the largest weights by name
and a summary per feature group (:func:`treestrap.connect4.features.feature_names`)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from treestrap.connect4.features import feature_names
from treestrap.games.connect4_network import Connect4NetworkModel
from treestrap.games.connect4_ntuple import Connect4NTupleModel


def feature_group(name: str) -> str:
    """A feature's group: its name up to the first dot, numbers dropped
    (``line12.own.k2.p1`` is in ``line``, ``threats.first-to-move...`` in ``threats``)."""
    return re.sub(r"\d+$", "", name.split(".", 1)[0])


def _training(metadata: dict[str, Any]) -> list[str]:
    """The provenance lines of a file written by ``treestrap train``, then the rest."""
    meta = dict(metadata)
    meta.pop("provenance", None)  # printed as a chain by ``weights show``
    state = meta.pop("run_state", None)
    lines = []
    if "algorithm" in meta:
        lines.append(
            f"trained: {meta.pop('algorithm')}, {meta.pop('games', '?')} games from "
            f"{meta.pop('init', '?')} weights (seed {meta.pop('seed', '?')})"
        )
    if isinstance(state, dict):
        cpu = float(state.get("cpu_seconds") or 0.0)
        lines.append(
            f"self-play results: +{state.get('wins', 0)} ={state.get('draws', 0)} "
            f"-{state.get('losses', 0)} (first player's view); {cpu / 3600:.3f} CPU hours"
        )
    lines += [f"{key}: {value}" for key, value in sorted(meta.items())]
    return lines


def _stats(w: np.ndarray) -> str:
    return (
        f"mean {w.mean():+.4f}  std {w.std():.4f}  min {w.min():+.4f}  max {w.max():+.4f}"
        if w.size
        else "none"
    )


def _ntuple_summary(model: Connect4NTupleModel) -> str:
    """The tuples, how much of their tables play has reached, and the run's record."""
    count, length = model.tuples.shape
    used = int(np.count_nonzero(model.tables))
    meta = dict(model.metadata)
    state = meta.pop("run_state", None)
    meta.pop("provenance", None)
    lines = [
        f"model: Connect Four n-tuples, {count} tuples of {length} cells, each read on the "
        "board and its mirror image (first player's value)",
        f"table entries: {model.tables.size} ({used} reached, {used / model.tables.size:.1%})  "
        f"{_stats(model.tables[model.tables != 0])}",
    ]
    if "algorithm" in meta:
        lines.append(f"trained: {meta.pop('algorithm')}, {meta.pop('games', '?')} games")
    if isinstance(state, dict):
        lines.append(
            f"self-play results: +{state.get('first_wins', 0)} ={state.get('draws', 0)} "
            f"-{state.get('second_wins', 0)} (first player's view); "
            f"{float(state.get('cpu_seconds') or 0.0) / 3600:.3f} CPU hours"
        )
    lines += [f"{key}: {value}" for key, value in sorted(meta.items())]
    return "\n".join(lines)


def summarize_connect4(model: Any, top: int = 25, group: str | None = None) -> str:
    """A text report of a Connect Four model; ``group`` keeps only the weights whose
    name starts with it (linear weights)."""
    if isinstance(model, Connect4NTupleModel):
        return _ntuple_summary(model)
    if isinstance(model, Connect4NetworkModel):
        lines = [
            f"model: Connect Four {model.describe()} network on the 84 + 1 bitboard inputs "
            f"(layers {model.sizes}, tanh hidden units)",
            f"parameters: {model.weights.size}  {_stats(model.weights)}",
        ]
        described = {k: v for k, v in model.metadata.items() if k != "model"}  # said above
        return "\n".join(lines + _training(described))
    names = feature_names()
    w = model.weights
    chosen = [i for i, n in enumerate(names) if group is None or n.startswith(group)]
    if not chosen:
        raise ValueError(f"no Connect Four feature name starts with {group!r}")
    lines = [
        f"model: Connect Four linear weights over {w.size} features (side to move)",
        f"weights: {_stats(w)}",
        *_training(model.metadata),
        "",
        "group                   count   mean |w|    max |w|",
    ]
    groups: dict[str, list[int]] = {}
    for i in chosen:
        groups.setdefault(feature_group(names[i]), []).append(i)
    for name, members in groups.items():
        values = np.abs(w[members])
        lines.append(f"{name:<22} {len(members):>6} {values.mean():>10.2f} {values.max():>10.2f}")
    if top:
        order = sorted(chosen, key=lambda i: -abs(w[i]))[:top]
        lines += ["", f"the {len(order)} largest weights:"]
        lines += [f"  {names[i]:<40} {w[i]:+12.3f}" for i in order]
    return "\n".join(lines)
