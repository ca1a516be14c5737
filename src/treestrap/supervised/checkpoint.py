"""Checkpoints of a supervised run: versioned, self-describing, refused with a reason.

A checkpoint is a ``torch.save`` d dictionary read back with ``weights_only=True`` (no
code is ever unpickled)::

    {"header": JSON text, "state": model state dict,
     "best_state": state dict or absent, "optimizer": optimizer state or absent}

The header says what the weights are::

    {"format": "treestrap-supervised-checkpoint", "version": 1,
     "model": "mlp", "n_inputs": 769, "sizes": {"hidden": [10]},
     "features": "bitboard", "frame": "white", "layouts": {"bitboard": "<hash>"},
     "dataset": {"manifest_hash": "...", "name": "..."},
     "config": {...the run's TrainConfig...}, "seed": 0,
     "epoch": 7, "best_epoch": 5, "best_validation_accuracy": 0.61, "stale": 2,
     "history": [{...one metrics record per epoch...}]}

Each trial keeps two: ``checkpoint.pt`` after the last finished epoch (model, best model
and optimizer: what a resume needs) and ``best.pt``, the best-validation model alone
(what reports and ``convert`` read). Loading refuses a file that is not a checkpoint, a
version this build does not read, an unknown model kind, or features laid out otherwise
than in this build; :func:`check_dataset` refuses one trained on another dataset.
Saving is atomic, so a run killed while writing keeps its previous checkpoint.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from treestrap.evaluation.weight_file_format import shared_file_mode
from treestrap.supervised.errors import SupervisedError
from treestrap.supervised.inputs import get_encoding
from treestrap.supervised.models import ModelSpec, SupervisedModel, build_model
from treestrap.supervised.torch_required import require_torch

FORMAT = "treestrap-supervised-checkpoint"
VERSION = 1
LAST = "checkpoint.pt"
BEST = "best.pt"


class CheckpointError(SupervisedError):
    """A checkpoint that cannot be used here, and why."""


@dataclass
class Checkpoint:
    header: dict[str, Any]
    state: dict[str, Any]
    best_state: dict[str, Any] | None = None
    optimizer: dict[str, Any] | None = None

    @property
    def spec(self) -> ModelSpec:
        h = self.header
        return ModelSpec.from_sizes(h["model"], h["n_inputs"], h["sizes"])

    def model(self, best: bool = False) -> SupervisedModel:
        """The model with this checkpoint's weights (the best epoch's if ``best``)."""
        model = build_model(self.spec, seed=0)
        state = self.best_state if best and self.best_state is not None else self.state
        model.load_state_dict(state)
        model.eval()
        return model


def header_for(
    spec: ModelSpec, features: str, dataset: dict[str, Any], **rest: Any
) -> dict[str, Any]:
    """A header for a model of ``spec`` over ``features`` trained on ``dataset``."""
    encoding = get_encoding(features)
    return {
        "format": FORMAT,
        "version": VERSION,
        "model": spec.kind,
        "n_inputs": spec.n_inputs,
        "sizes": spec.sizes(),
        "features": features,
        "frame": encoding.frame,
        "layouts": encoding.layout_hashes(),
        "dataset": dataset,
        **rest,
    }


def save_checkpoint(path: str | Path, checkpoint: Checkpoint) -> None:
    """Write ``checkpoint`` to ``path`` atomically (temporary file, then rename)."""
    torch = require_torch()
    path = Path(path)
    payload: dict[str, Any] = {
        "header": json.dumps(checkpoint.header, sort_keys=True),
        "state": checkpoint.state,
    }
    if checkpoint.best_state is not None:
        payload["best_state"] = checkpoint.best_state
    if checkpoint.optimizer is not None:
        payload["optimizer"] = checkpoint.optimizer
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            torch.save(payload, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, shared_file_mode())  # mkstemp's 0600 would hide it from others
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read(path: Path) -> dict[str, Any]:
    torch = require_torch()
    if not path.is_file():
        raise CheckpointError(f"{path}: no such checkpoint")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CheckpointError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        payload = torch.load(io.BytesIO(data), weights_only=True, map_location="cpu")
    except Exception as exc:  # on junk, torch's unpickler raises anything (IndexError...)
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise CheckpointError(f"{path}: not a readable checkpoint ({first})") from None
    if not isinstance(payload, dict) or "header" not in payload or "state" not in payload:
        raise CheckpointError(f"{path}: not a treestrap supervised checkpoint (members missing)")
    return payload


def load_checkpoint(path: str | Path) -> Checkpoint:
    """Read and check a checkpoint; :class:`CheckpointError` says what is wrong."""
    path = Path(path)
    payload = _read(path)
    try:
        header = json.loads(payload["header"])
    except (TypeError, ValueError):
        raise CheckpointError(
            f"{path}: not a treestrap supervised checkpoint (bad header)"
        ) from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a treestrap supervised checkpoint (format tag missing)")
    version = header.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise CheckpointError(f"{path}: bad format version {version!r} (expected an integer)")
    if version != VERSION:
        newer = "newer than this build reads; upgrade treestrap" if version > VERSION else "old"
        raise CheckpointError(
            f"{path}: checkpoint format version {version}, this build reads version "
            f"{VERSION} ({newer})"
        )
    try:
        encoding = get_encoding(str(header.get("features")))
        spec = ModelSpec.from_sizes(
            str(header.get("model")), int(header["n_inputs"]), header.get("sizes", {})
        )
    except (SupervisedError, ValueError, KeyError, TypeError) as exc:
        raise CheckpointError(f"{path}: {exc}") from None
    if spec.n_inputs != encoding.size:
        raise CheckpointError(
            f"{path}: {spec.n_inputs} inputs do not fit features {encoding.name!r} "
            f"({encoding.size} inputs)"
        )
    recorded = header.get("layouts", {})
    for fs, ours in encoding.layout_hashes().items():
        if recorded.get(fs) != ours:
            raise CheckpointError(
                f"{path}: trained on another layout of feature set {fs!r} (hash "
                f"{recorded.get(fs)}, this build has {ours})"
            )
    checkpoint = Checkpoint(
        header, payload["state"], payload.get("best_state"), payload.get("optimizer")
    )
    try:
        checkpoint.model()
    except (RuntimeError, ValueError) as exc:
        first = str(exc).splitlines()[0]
        raise CheckpointError(f"{path}: weights do not fit a {spec.describe()} ({first})") from None
    return checkpoint


def check_dataset(checkpoint: Checkpoint, manifest_hash: str, path: str | Path) -> None:
    """Refuse to continue or evaluate a checkpoint on a dataset it was not trained on."""
    theirs = checkpoint.header.get("dataset", {}).get("manifest_hash")
    if theirs != manifest_hash:
        raise CheckpointError(
            f"{path}: trained on another dataset (manifest hash {theirs}, this one has "
            f"{manifest_hash}): built from other games or with other options"
        )
