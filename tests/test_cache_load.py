"""Every recursive kernel must run when loaded back from numba's on-disk cache.

A compiled caller of a different recursive kernel segfaults on the cached run only
(numba issue #6061; see treestrap.core.jit), which no in-process test can see. The
``kernels_load_from_cache`` fixture runs perft, divide, the training search, the table
walk and the minimax search (of chess and of Connect Four) in two fresh processes
sharing a new cache directory; in the second, the search family's kernels must come
from the cache (search/family.py: a copy per game that numba would otherwise compile
again in every process).
"""

from __future__ import annotations


def test_recursive_kernels_run_from_the_cache(kernels_load_from_cache: None) -> None:
    assert kernels_load_from_cache is None
