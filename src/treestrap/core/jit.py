"""The one place that holds numba's decorator flags for every compiled kernel.

Change a flag here and every kernel in the project follows. ``boundscheck`` stays off
for speed (set ``NUMBA_BOUNDSCHECK=1`` when hunting an index error). For a readable
Python traceback run a failing test with ``NUMBA_DISABLE_JIT=1``.

Caching. ``cache=True`` lets a second process start in about a second instead of
compiling for many; :mod:`treestrap.core.compile_cache` says where the cache lives (a
per-user directory named by a hash of the compiled sources, never the package's own) and
why. Where no such directory can be written to, the kernels compile uncached.

Recursion. A cached kernel that calls a *different* recursive kernel segfaults when it
is loaded back from the cache (numba issue #6061). So every recursive kernel here is
self-recursive only (quiescence lives inside the alpha-beta function, not beside it),
is called from Python, never from another compiled function, and passes its own
arguments back with exactly their declared types (an implicit cast at the recursive
call crashes the same way, numba issue #6713: cast with ``np.int64(...)`` first).
The test suite loads each of them from the cache in a fresh process to keep it so.

No reference counting. numba's runtime (NRT) counts references to every array a
compiled function holds: passing a ``Position`` (a named tuple of arrays) to a helper,
or aliasing it where a helper is inlined, increments and decrements the count of each
of its arrays, atomically, about 70 ns a call. The searches allocate nothing, so the
runtime is off for every kernel (``_nrt=False``): the bench ran 3.1 times as fast, the
same nodes in the same order. A kernel that allocates an array (set-up code, a few
per-call scratch arrays) says so with ``njit(allocates=True)``; one that does not say so
fails to compile rather than allocate. Such a kernel must not return a new array to a
kernel without the runtime (nothing would free it): the test suite checks that the
searches leave no allocation behind.
"""

from __future__ import annotations

import warnings
from typing import Any

import numba

from treestrap.core.compile_cache import (
    candidate_bases,
    choose_cache_dir,
    prune_old_versions,
    source_hash,
)

#: Flags shared by all kernels. fastmath is off: search scores must be exact and
#: reproducible across machines; the reference-counting runtime is off (see above).
JIT_FLAGS: dict[str, Any] = {"cache": True, "nogil": True, "fastmath": False, "_nrt": False}

JIT_DISABLED: bool = bool(numba.config.DISABLE_JIT)


def _configure_cache() -> None:
    """Point numba's cache at this version's directory, or turn caching off."""
    target = choose_cache_dir(candidate_bases(), source_hash())
    if target is None:
        JIT_FLAGS["cache"] = False  # numba would raise rather than compile uncached
        return
    numba.config.CACHE_DIR = str(target)
    prune_old_versions(target)


if not JIT_DISABLED:
    _configure_cache()
else:
    # Compiled code wraps 64-bit integer arithmetic silently and the bit tricks rely on
    # it (magic multiplication, ``bb & (bb - 1)``); plain numpy would warn at each wrap.
    # A warnings filter, not np.seterr: that is per thread, and UCI searches in one.
    warnings.filterwarnings("ignore", "overflow encountered in scalar", RuntimeWarning)


def njit(*args: Any, allocates: bool = False, **kwargs: Any) -> Any:
    """``numba.njit`` with the project's flags; usable bare or with extra flags.
    ``allocates``: the kernel creates arrays, so it keeps numba's runtime."""
    flags = {**JIT_FLAGS, **kwargs}
    if allocates:
        flags["_nrt"] = True
    if args and callable(args[0]):
        return numba.njit(**flags)(args[0])
    return numba.njit(*args, **flags)
