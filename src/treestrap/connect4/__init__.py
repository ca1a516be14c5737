"""Connect Four (7 columns, 6 rows), compiled like the chess core: bitboards, the
position with make/unmake and an incremental hash, an exact solver, the features of
its evaluations, and its kernels for the search family that every game's searches
share (:mod:`treestrap.search.family`).

Nothing here imports chess: only :mod:`treestrap.core.jit` (the compile flags) and the
game-neutral search record and family. See ``docs/connect4.md``.
"""
