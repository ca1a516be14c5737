"""How a run writes its files, so that a kill or a full disk leaves it resumable.

Three kinds of write, each safe to interrupt at any byte:

- appends (``games.pgn``, ``metrics.jsonl``): synced, and cut back to where they
  started if the write fails, so a full disk leaves no torn tail (a kill can still
  leave one; resuming cuts it off, :func:`treestrap.training.records.truncate_records`);
- whole files (``config.json``): a temporary file renamed over the old one;
- weight files go through :func:`treestrap.evaluation.weights.save_weights`, which does
  the same and names its temporary ``.NAME.XXXX.tmp``.

Every ``OSError`` leaving these writes names the run's file (not a temporary and not
an anonymous "No space left on device"), so the command line can say which file it
could not write.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

#: Temporaries of this module and of ``save_weights``: ``.NAME.tmp`` and
#: ``.NAME.XXXXXXXX.tmp``. A kill leaves them behind; nothing ever reads them.
TEMPORARY_GLOB = ".*.tmp"


@contextlib.contextmanager
def naming(path: Path) -> Iterator[None]:
    """Re-raise an ``OSError`` of the block with ``path`` as its file name."""
    try:
        yield
    except OSError as exc:
        if exc.filename == str(path) or exc.errno is None:
            raise
        raise OSError(exc.errno, exc.strerror, str(path)) from exc


def append_synced(path: Path, text: str) -> None:
    """Append ``text`` and sync it; on failure the file is cut back to its old end."""
    data = text.encode("utf-8")
    with naming(path):
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            start = os.fstat(fd).st_size
            try:
                view = memoryview(data)
                while view:  # a full disk may take part of the text before it fails
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            except OSError:
                # Cutting back frees what the partial write took, so it succeeds on a
                # full disk too; if it does not, resuming cuts the torn tail instead.
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, start)
                raise
        finally:
            os.close(fd)


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` in one rename: readers see the old or the new."""
    tmp = path.with_name(f".{path.name}.tmp")
    with naming(path):
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise


def remove_temporaries(*directories: Path) -> None:
    """Delete the temporaries a killed run left in ``directories`` (when resuming, no
    other process writes there)."""
    for directory in directories:
        for tmp in directory.glob(TEMPORARY_GLOB):
            with contextlib.suppress(OSError):
                tmp.unlink()
