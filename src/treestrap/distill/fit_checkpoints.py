"""A fit's checkpoints: one file per finished epoch in a state directory.

``fit-epoch-K.pt`` is a ``torch.save`` d dictionary (read back with ``weights_only=True``,
so no code is ever unpickled) of what the fit needs to go on after epoch ``K``. It is
written to a temporary file and renamed, so a file of that name is always complete: a
kill while writing leaves the previous epoch's checkpoint the last one.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Any

from treestrap.evaluation.weight_file_format import shared_file_mode

CHECKPOINT = re.compile(r"fit-epoch-(\d+)\.pt")


def checkpoint_path(state_dir: Path, epoch: int) -> Path:
    return state_dir / f"fit-epoch-{epoch}.pt"


def save_checkpoint(state_dir: Path, epoch: int, state: dict[str, Any]) -> None:
    """Write epoch ``epoch``'s checkpoint atomically (temporary file, then rename)."""
    import torch

    state_dir.mkdir(parents=True, exist_ok=True)
    path = checkpoint_path(state_dir, epoch)
    fd, tmp = tempfile.mkstemp(dir=state_dir, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            torch.save(state, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, shared_file_mode())  # mkstemp's 0600 would hide it from others
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def last_checkpoint(state_dir: Path) -> tuple[Path, dict[str, Any]] | None:
    """The checkpoint of the latest epoch in ``state_dir`` and its path (None: none)."""
    import torch

    names = (CHECKPOINT.fullmatch(p.name) for p in state_dir.glob("fit-epoch-*.pt"))
    epochs = [int(m.group(1)) for m in names if m]
    if not epochs:
        return None
    path = checkpoint_path(state_dir, max(epochs))
    return path, torch.load(path, weights_only=True, map_location="cpu")


def checkpointed_cpu_seconds(state_dir: Path) -> float:
    """The CPU time of the epochs checkpointed in ``state_dir`` (0 without a checkpoint):
    what a stopped fit spent, which the process that goes on from it never measures."""
    found = last_checkpoint(state_dir) if state_dir.is_dir() else None
    if found is None:
        return 0.0
    return float(sum(r.get("cpu_seconds", 0.0) for r in found[1].get("reports", [])))
