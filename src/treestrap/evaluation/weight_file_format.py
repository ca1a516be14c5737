"""The container every weight file shares: versioned, self-describing, written atomically.

A weight file is a NumPy ``.npz`` archive with two members: ``weights`` (float64) and
``meta``, a UTF-8 JSON document whose ``format``, ``version`` and ``model`` fields say
what it is::

    {"format": "treestrap-weights", "version": 1, "model": "linear", ...}

:func:`read_weight_file` refuses, with a :class:`WeightFileError` saying why, anything
that is not such an archive or is of a newer format version; what the rest of ``meta``
must hold is the model kind's business (:mod:`treestrap.evaluation.weights` for linear
models, :mod:`treestrap.evaluation.network_weights` for networks), and
:mod:`treestrap.evaluation.weight_files` hands each file to its kind. Saving is
atomic: a crash mid-way never leaves a truncated file under the final name; the file
gets the permissions the umask gives any new file.
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = "treestrap-weights"
VERSION = 1


class WeightFileError(ValueError):
    """A weight file that cannot be used, and why."""


#: Weight vectors longer than this are deflated (n-tuple tables, mostly zero).
COMPRESS_ABOVE = 1_000_000


def write_weight_file(path: Path, weights: np.ndarray, meta: dict[str, Any]) -> None:
    """Write a weight file (``weights`` and ``meta`` as JSON bytes) atomically: a
    temporary file beside ``path``, synced, then renamed over it. Every kind of model
    saves through this; a vector of more than ``COMPRESS_ABOVE`` entries is deflated
    (NumPy reads both forms alike)."""
    compress = weights.size > COMPRESS_ABOVE
    meta_bytes = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            # mkstemp makes the file 0600; a weight file is shared like any other file.
            os.chmod(tmp, shared_file_mode())
            (np.savez_compressed if compress else np.savez)(fh, weights=weights, meta=meta_bytes)
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


def read_weight_file(path: Path) -> tuple[dict[str, Any], np.ndarray]:
    """The ``meta`` and ``weights`` of a weight file of a version this build reads;
    :class:`WeightFileError` says what is wrong. The model kind is not checked here."""
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
    return meta, weights


def check_vector(
    path: Path, meta: dict[str, Any], weights: np.ndarray, size: int | None = None, what: str = ""
) -> None:
    """:class:`WeightFileError` unless ``weights`` is one float64 vector of the shape
    ``meta`` stores (and of ``size``, when given; ``what`` says what that size fits)."""
    expected = weights.size if size is None else size
    if (
        weights.dtype != np.float64
        or weights.shape != (expected,)
        or meta.get("shape") != [expected]
    ):
        raise WeightFileError(f"{path}: weights of shape {weights.shape} ({weights.dtype}){what}")


def stored_metadata(path: Path, meta: dict[str, Any], weights: np.ndarray) -> dict[str, Any]:
    """The free-form metadata of a weight file whose model has checked its own fields;
    :class:`WeightFileError` if a weight is not finite or the metadata not an object."""
    if not np.all(np.isfinite(weights)):
        raise WeightFileError(f"{path}: weights contain NaN or infinity")
    metadata = meta.get("metadata", {})
    if not isinstance(metadata, dict):
        raise WeightFileError(f"{path}: metadata must be a JSON object, got {metadata!r:.60}")
    return metadata
