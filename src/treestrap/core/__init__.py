"""The compiled chess core: bitboards, attacks, position, moves, perft.

Nothing here does I/O or imports from a higher layer. Hot functions are numba
``@njit`` kernels over plain NumPy arrays; see :mod:`treestrap.core.jit`.
"""
