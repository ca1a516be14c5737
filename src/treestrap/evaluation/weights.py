"""Weight files: versioned, self-describing, checked on load.

A weight file is a NumPy ``.npz`` archive with two members: ``weights`` (float64) and
``meta``, a UTF-8 JSON document::

    {"format": "treestrap-weights", "version": 1, "model": "linear",
     "feature_set": "meep", "layout_hash": "...", "shape": [1830],
     "metadata": {...free-form: algorithm, games, seed, ...}}

Loading refuses, with a :class:`WeightFileError` saying why, anything that is not
such a file, a newer format version, an unknown feature set, a layout hash or shape
that does not match this build, or non-finite weights. Saving is atomic: a crash mid-way
never leaves a truncated file under the final name; the file gets the permissions the
umask gives any new file.
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from treestrap.core.position import Position
from treestrap.evaluation.features import FeatureSet, get_feature_set
from treestrap.evaluation.model import LINEAR, NETWORK, Evaluator, evaluate, make_evaluator

if TYPE_CHECKING:
    from treestrap.evaluation.network_weights import NetworkModel

FORMAT = "treestrap-weights"
VERSION = 1
#: Networks are described and checked in :mod:`treestrap.evaluation.network_weights`.
MODEL_KINDS = {"linear": LINEAR, "network": NETWORK}


class WeightFileError(ValueError):
    """A weight file that cannot be used, and why."""


@dataclass
class LinearModel:
    """Weights over a feature set, with free-form metadata (how they were made)."""

    feature_set: FeatureSet
    weights: np.ndarray
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.weights = np.ascontiguousarray(self.weights, dtype=np.float64)
        if self.weights.shape != (self.feature_set.size,):
            raise ValueError(
                f"weights of shape {self.weights.shape} do not fit feature set "
                f"{self.feature_set.name!r} of size {self.feature_set.size}"
            )

    def evaluator(self) -> Evaluator:
        """The compiled-code view; it shares this model's weight array."""
        return make_evaluator(self.feature_set.id, self.weights)

    def evaluate(self, pos: Position) -> float:
        """Side-to-move score of a position (unclipped)."""
        return float(evaluate(pos, self.evaluator()))

    def save(self, path: str | Path) -> None:
        save_weights(self, path)


def save_weights(model: LinearModel, path: str | Path) -> None:
    """Write ``model`` to ``path`` atomically (temporary file, then rename)."""
    path = Path(path)
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "model": "linear",
        "feature_set": model.feature_set.name,
        "layout_hash": model.feature_set.layout_hash,
        "shape": list(model.weights.shape),
        "metadata": model.metadata,
    }
    write_weight_file(path, model.weights, meta)


def write_weight_file(path: Path, weights: np.ndarray, meta: dict[str, Any]) -> None:
    """Write a weight file (``weights`` and ``meta`` as JSON bytes) atomically: a
    temporary file beside ``path``, synced, then renamed over it. Every kind of model
    saves through this."""
    meta_bytes = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            # mkstemp makes the file 0600; a weight file is shared like any other file.
            os.chmod(tmp, shared_file_mode())
            np.savez(fh, weights=weights, meta=meta_bytes)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def shared_file_mode() -> int:
    """The mode ``open`` would give a new file (``0o666`` less the umask): what an atomic
    write through ``mkstemp`` (always 0600) sets before its rename."""
    return 0o666 & ~_umask()


def _umask() -> int:
    """The process's umask. Linux shows it in ``/proc``; elsewhere it can only be read by
    setting it, which for a moment changes it for every thread (never to 0, so a file
    created meanwhile is at worst less open than asked, not more)."""
    try:
        with open("/proc/self/status", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def load_weights(path: str | Path) -> LinearModel | NetworkModel:
    """Read and check a weight file; :class:`WeightFileError` says what is wrong. A
    network file gives a :class:`~treestrap.evaluation.network_weights.NetworkModel`."""
    path = Path(path)
    unreadable = f"{path}: not a readable treestrap weight file"
    if not path.is_file():
        what = " (a directory)" if path.is_dir() else ""
        raise WeightFileError(f"{path}: no such weight file{what}")
    try:
        with open(path, "rb") as fh:
            magic = fh.read(6)
    except OSError as exc:
        raise WeightFileError(f"{unreadable} ({exc.strerror or exc})") from None
    # Say what the file is before NumPy does: for text it talks about pickles.
    if magic == b"\x93NUMPY":
        raise WeightFileError(f"{path}: not a treestrap weight file (a bare .npy array)")
    if not magic.startswith(b"PK"):
        raise WeightFileError(f"{unreadable} ({'empty' if not magic else 'not an .npz archive'})")
    try:
        loaded = np.load(path, allow_pickle=False)
        with loaded as archive:
            if "meta" not in archive.files or "weights" not in archive.files:
                raise WeightFileError(f"{path}: not a treestrap weight file (members missing)")
            meta_bytes = archive["meta"].tobytes()
            weights = archive["weights"]
    except WeightFileError:
        raise
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        reason = str(exc) or type(exc).__name__
        raise WeightFileError(f"{unreadable} (damaged or truncated: {reason})") from None
    try:
        meta = json.loads(meta_bytes.decode())
    except (ValueError, UnicodeDecodeError):
        raise WeightFileError(f"{unreadable} (its meta is not JSON)") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise WeightFileError(f"{path}: not a treestrap weight file (format tag missing)")
    version = meta.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise WeightFileError(f"{path}: bad format version {version!r} (expected an integer)")
    if version > VERSION:
        raise WeightFileError(
            f"{path}: format version {version} is newer than this build reads "
            f"({VERSION}); upgrade treestrap"
        )
    if meta.get("model") not in MODEL_KINDS:
        raise WeightFileError(f"{path}: unknown model kind {meta.get('model')!r}")
    if meta.get("model") == "network":
        from treestrap.evaluation.network_weights import network_from_meta

        return network_from_meta(path, meta, weights)
    try:
        fs = get_feature_set(str(meta.get("feature_set")))
    except ValueError as exc:
        raise WeightFileError(f"{path}: {exc}") from None
    if meta.get("layout_hash") != fs.layout_hash:
        raise WeightFileError(
            f"{path}: trained on another layout of feature set {fs.name!r} (hash "
            f"{meta.get('layout_hash')}, this build has {fs.layout_hash})"
        )
    if weights.dtype != np.float64 or weights.shape != (fs.size,) or meta.get("shape") != [fs.size]:
        raise WeightFileError(
            f"{path}: weights of shape {weights.shape} ({weights.dtype}) do not match "
            f"feature set {fs.name!r} of size {fs.size}"
        )
    if not np.all(np.isfinite(weights)):
        raise WeightFileError(f"{path}: weights contain NaN or infinity")
    metadata = meta.get("metadata", {})
    if not isinstance(metadata, dict):
        raise WeightFileError(f"{path}: metadata must be a JSON object, got {metadata!r:.60}")
    return LinearModel(fs, weights, metadata)
