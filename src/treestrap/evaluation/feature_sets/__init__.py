"""The registry of feature sets, free of numba so the command line can list them.

(Being filled in: each feature set becomes a module of this package.)
"""

from __future__ import annotations

#: Every registered feature set by name, in registration order.
FEATURE_SET_NAMES = ("meep", "bitboard")
