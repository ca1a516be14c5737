"""The mean of weight files that share their shape: an evaluation averaged over runs.

Only models whose value is linear in the stored vector average into the mean of their
values: linear weights over one feature set, and n-tuple tables over the same tuples
(a network's mean is not the mean of its networks, so networks are refused). The files'
headers (model, game, feature set, tuples, shape) must be equal; the result keeps that
header and gets a provenance record whose parents are the files averaged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from treestrap.evaluation.provenance import (
    KEY,
    chain_self_play_only,
    model_parent,
    tool_record,
    weights_sha256,
)
from treestrap.evaluation.weight_file_format import read_weight_file, write_weight_file

#: The models whose value is linear in their stored vector.
AVERAGED_MODELS = ("linear", "ntuple")
TOOL = "treestrap weights average"


def _header(meta: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in meta.items() if key != "metadata"}


def average_weight_files(paths: list[Path], out: Path) -> dict[str, Any]:
    """Write the mean of ``paths`` to ``out``; its record. ``ValueError`` says why files
    cannot be averaged."""
    if len(paths) < 2:
        raise ValueError("averaging needs at least two weight files")
    files = [read_weight_file(Path(path)) for path in paths]
    header = _header(files[0][0])
    model = header.get("model", "linear")
    if model not in AVERAGED_MODELS:
        raise ValueError(
            f"{paths[0]}: a {model} model does not average (only {', '.join(AVERAGED_MODELS)})"
        )
    for path, (meta, _) in zip(paths[1:], files[1:], strict=True):
        if _header(meta) != header:
            raise ValueError(f"{path}: its model, shape or inputs differ from {paths[0]}'s")
    mean = np.mean([weights for _, weights in files], axis=0)
    parents = [
        model_parent("averaged", str(path), weights, meta.get("metadata", {}))
        for path, (meta, weights) in zip(paths, files, strict=True)
    ]
    record = tool_record(TOOL, 0.0)
    record.update(sha256=weights_sha256(mean), parents=parents)
    record["self_play_only"] = chain_self_play_only(parents)
    cpu = sum(float((p["provenance"] or {}).get("cpu_seconds", 0.0)) for p in parents)
    metadata = {
        KEY: record,
        "averaged": [str(path) for path in paths],
        "cpu_seconds": round(cpu, 1),
        "cpu_hours": round(cpu / 3600, 3),
    }
    write_weight_file(Path(out), mean, {**header, "metadata": metadata})
    return record
