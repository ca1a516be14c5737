"""Connect Four (7 columns, 6 rows), compiled like the chess core: bitboards, the
position with make/unmake and an incremental hash, an exact solver, and the features of
its evaluations.

Nothing here imports chess: only :mod:`treestrap.core.jit` (the compile flags) from
below. See ``docs/connect4.md``.
"""
