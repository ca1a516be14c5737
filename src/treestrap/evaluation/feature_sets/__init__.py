"""The registry of feature sets, free of numba so the command line can list them.

A feature set maps a position to a sparse vector phi(s) of (index, value) pairs. Each
one is a module of this package that defines everything about it in one
:class:`~treestrap.evaluation.feature_sets.feature_set.FeatureSet` called
``FEATURE_SET``: name, size, feature names (and so its layout hash), perspective, and
the compiled extractor and gradient.

To add a feature set: write its module and add one line to ``_MODULES``. The compiled
dispatch (:mod:`treestrap.evaluation.feature_sets.dispatch`) is generated from this
registry, and search code never changes.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from treestrap.evaluation.feature_sets.feature_set import FeatureSet

#: Each registered feature set's name and the module of this package that defines it.
#: The order fixes the ids compiled code dispatches on (meep 0, bitboard 1): append only.
_MODULES = {"meep": "meep", "bitboard": "bitboard"}

#: Every registered feature set by name, in registration order.
FEATURE_SET_NAMES = tuple(_MODULES)


def get_feature_set(name: str) -> FeatureSet:
    """The registered set called ``name`` (its module is imported only now);
    ``ValueError`` lists the known ones."""
    if name not in _MODULES:
        known = ", ".join(sorted(_MODULES))
        raise ValueError(f"unknown feature set {name!r} (known: {known})")
    module = importlib.import_module(f"{__name__}.{_MODULES[name]}")
    return module.FEATURE_SET


def all_feature_sets() -> tuple[FeatureSet, ...]:
    """Every registered feature set, in registration order (so ``id`` is the index)."""
    return tuple(get_feature_set(name) for name in FEATURE_SET_NAMES)
