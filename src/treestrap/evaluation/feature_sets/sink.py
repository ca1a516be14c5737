"""Where a feature extraction puts what it finds: pairs for learning, a score for play.

An extractor written against :func:`emit` compiles twice from one source. Called with an
integer count ``n`` (start at ``0``), each ``emit`` writes the pair ``(i, v)`` to
``idx[n]``/``val[n]`` and returns ``n + 1``: phi(s) as sparse pairs, which learning
needs. Called with a float running score (start at ``0.0``) and the weights as ``val``,
each ``emit`` returns ``score + val[i] * v`` and writes nothing: theta . phi(s) in the
order the pairs would be added up, so the score equals the dot product over the pairs
bit for bit, without storing them and reading them back (what searches need).

Numba picks the branch from the type of ``n`` when it compiles (:func:`numba.extending.
overload`); with the JIT disabled the Python body below decides at run time.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import types
from numba.extending import overload


def emit(idx: np.ndarray, val: np.ndarray, n: Any, i: int, v: float) -> Any:
    """Add feature ``i`` with value ``v``: a pair (integer ``n``) or a term (float)."""
    if isinstance(n, float):
        return n + val[i] * v
    idx[n] = i
    val[n] = v
    return n + 1


@overload(emit, inline="always")
def _emit_compiled(idx: Any, val: Any, n: Any, i: Any, v: Any) -> Any:
    # numba asks the typing and implementation signatures to match, hints included.
    if isinstance(n, types.Float):

        def add_term(idx: Any, val: Any, n: Any, i: Any, v: Any) -> Any:
            return n + val[i] * v

        return add_term

    def write_pair(idx: Any, val: Any, n: Any, i: Any, v: Any) -> Any:
        idx[n] = i
        val[n] = v
        return n + 1

    return write_pair
