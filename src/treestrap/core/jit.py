"""The one place that holds numba's decorator flags for every compiled kernel.

Change a flag here and every kernel in the project follows. ``cache=True`` writes
compiled code next to the sources (``__pycache__``) so a second process starts in
about a second; ``boundscheck`` stays off for speed (turn it on with the environment
variable ``NUMBA_BOUNDSCHECK=1`` when hunting an index error). For a readable Python
traceback run a failing test with ``NUMBA_DISABLE_JIT=1``.
"""

from __future__ import annotations

from typing import Any

import numba

#: Flags shared by all kernels. fastmath is off: search scores must be exact and
#: reproducible across machines.
JIT_FLAGS: dict[str, Any] = {"cache": True, "nogil": True, "fastmath": False}


def njit(*args: Any, **kwargs: Any) -> Any:
    """``numba.njit`` with the project's flags; usable bare or with extra flags."""
    flags = {**JIT_FLAGS, **kwargs}
    if args and callable(args[0]):
        return numba.njit(**flags)(args[0])
    return numba.njit(*args, **flags)


JIT_DISABLED: bool = bool(numba.config.DISABLE_JIT)
