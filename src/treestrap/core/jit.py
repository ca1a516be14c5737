"""The one place that holds numba's decorator flags for every compiled kernel.

Change a flag here and every kernel in the project follows. ``boundscheck`` stays off
for speed (set ``NUMBA_BOUNDSCHECK=1`` when hunting an index error). For a readable
Python traceback run a failing test with ``NUMBA_DISABLE_JIT=1``.

Caching. ``cache=True`` lets a second process start in about a second instead of
compiling for many. Numba invalidates a cached function only when *its own* file
changes, not when a kernel it inlines from another file does, which after an edit can
run stale machine code (wrong results or a crash). So the cache lives in a directory
named by a hash of every source file of the compiled layers (core, evaluation,
search): any edit there starts a fresh cache. The base is ``$TREESTRAP_CACHE_DIR``,
else ``$XDG_CACHE_HOME/treestrap/numba`` (``~/.cache/treestrap/numba``); the newest
few versions are kept.

Recursion. A cached kernel that calls a *different* recursive kernel segfaults when it
is loaded back from the cache (numba issue #6061). So every recursive kernel here is
self-recursive only (quiescence lives inside the alpha-beta function, not beside it),
is called from Python, never from another compiled function, and passes its own
arguments back with exactly their declared types (an implicit cast at the recursive
call crashes the same way, numba issue #6713: cast with ``np.int64(...)`` first).
The test suite loads each of them from the cache in a fresh process to keep it so.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

import numba

#: Flags shared by all kernels. fastmath is off: search scores must be exact and
#: reproducible across machines.
JIT_FLAGS: dict[str, Any] = {"cache": True, "nogil": True, "fastmath": False}

JIT_DISABLED: bool = bool(numba.config.DISABLE_JIT)

#: Cache versions kept side by side (one per edit of the sources).
_CACHES_KEPT = 4


#: The packages whose modules hold compiled kernels.
COMPILED_LAYERS = ("core", "evaluation", "search")


def source_hash() -> str:
    """SHA-1 over the compiled layers' Python sources (paths and contents)."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha1()
    files = (p for layer in COMPILED_LAYERS for p in (root / layer).rglob("*.py"))
    for path in sorted(files):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _cache_base() -> Path:
    if os.environ.get("TREESTRAP_CACHE_DIR"):
        return Path(os.environ["TREESTRAP_CACHE_DIR"])
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "treestrap" / "numba"


def _configure_cache() -> None:
    """Point numba's cache at a directory specific to this version of the sources."""
    try:
        base = _cache_base()
        target = base / source_hash()
        target.mkdir(parents=True, exist_ok=True)
        if not os.access(target, os.W_OK):
            return
    except OSError:
        return  # read-only home: numba's own default (next to the sources) applies
    numba.config.CACHE_DIR = str(target)
    try:
        versions = sorted(
            (p for p in base.iterdir() if p.is_dir() and p != target),
            key=lambda p: p.stat().st_mtime,
        )
        for old in versions[: max(0, len(versions) - (_CACHES_KEPT - 1))]:
            shutil.rmtree(old, ignore_errors=True)
    except OSError:
        pass


if not JIT_DISABLED:
    _configure_cache()


def njit(*args: Any, **kwargs: Any) -> Any:
    """``numba.njit`` with the project's flags; usable bare or with extra flags."""
    flags = {**JIT_FLAGS, **kwargs}
    if args and callable(args[0]):
        return numba.njit(**flags)(args[0])
    return numba.njit(*args, **flags)
