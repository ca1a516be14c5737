"""Where numba's on-disk compile cache lives: a per-user directory, never the package's.

``cache=True`` lets a second process start in about a second instead of compiling for
many. Numba invalidates a cached function only when *its own* file changes, not when a
kernel it inlines from another file does, which after an edit can run stale machine code
(wrong results or a crash). So the cache lives in a directory named by a hash of every
source file of the compiled layers (core, evaluation, search, connect4): any edit there
starts a fresh cache, and the newest few versions are kept.

The base directory is the first of these that can be written to:

1. ``$TREESTRAP_CACHE_DIR``;
2. ``$NUMBA_CACHE_DIR/treestrap`` (numba's own setting, honoured but kept apart);
3. ``$XDG_CACHE_HOME/treestrap/numba``, else ``~/.cache/treestrap/numba``;
4. ``treestrap-UID/numba`` in the system's temporary directory (a home that cannot be
   written to), used only when it is this user's own and nobody else can write to it:
   a cache file is code that runs, so one planted by another user must never load.

Numba's default, ``__pycache__`` beside the sources, is never used: an installed package
is often read-only, and an edited source tree is where stale inlined code bites. When no
candidate can be written to, :func:`choose_cache_dir` answers None and the kernels
compile in every process, uncached, rather than fail.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

#: The packages whose modules hold compiled kernels.
COMPILED_LAYERS = ("core", "evaluation", "search", "connect4")

#: Cache versions kept side by side (one per edit of the sources).
CACHES_KEPT = 4


def source_hash() -> str:
    """SHA-1 over the compiled layers' Python sources (paths and contents)."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha1()
    files = (p for layer in COMPILED_LAYERS for p in (root / layer).rglob("*.py"))
    for path in sorted(files):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _user_id() -> str:
    return str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")


def temporary_base() -> Path:
    """The last resort: this user's directory in the system's temporary directory."""
    return Path(tempfile.gettempdir()) / f"treestrap-{_user_id()}" / "numba"


def candidate_bases(environ: Mapping[str, str] = os.environ) -> list[Path]:
    """The base directories to try, best first (see the module's docstring)."""
    bases = []
    if environ.get("TREESTRAP_CACHE_DIR"):
        bases.append(Path(environ["TREESTRAP_CACHE_DIR"]))
    if environ.get("NUMBA_CACHE_DIR"):
        bases.append(Path(environ["NUMBA_CACHE_DIR"]) / "treestrap")
    xdg = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    bases.append(Path(xdg) / "treestrap" / "numba")
    bases.append(temporary_base())
    return bases


def is_private(directory: Path) -> bool:
    """True when ``directory`` and its parent are this user's and only this user's to
    write (always True where there are no POSIX owners)."""
    if not hasattr(os, "getuid"):
        return True
    for path in (directory, directory.parent):
        info = path.stat()
        if info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return False
    return True


def is_writable(directory: Path) -> bool:
    """Create ``directory`` if need be and write a file in it, as numba will."""
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        tempfile.TemporaryFile(dir=directory).close()
    except OSError:
        return False
    return True


def choose_cache_dir(bases: Iterable[Path], version: str) -> Path | None:
    """``base/version`` for the first base that can be written to, or None."""
    shared = temporary_base()
    for base in bases:
        target = base / version
        if not is_writable(target):
            continue
        if base == shared and not is_private(base):
            continue
        return target
    return None


def prune_old_versions(target: Path, keep: int = CACHES_KEPT) -> None:
    """Delete all but the newest ``keep`` version directories beside ``target``."""
    try:
        versions = sorted(
            (p for p in target.parent.iterdir() if p.is_dir() and p != target),
            key=lambda p: p.stat().st_mtime,
        )
    except OSError:
        return
    for old in versions[: max(0, len(versions) - (keep - 1))]:
        shutil.rmtree(old, ignore_errors=True)
