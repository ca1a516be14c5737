"""treestrap: learn a chess evaluation function from game-tree search.

The package is layered (imports point downward only)::

    cli                 command line
    board               the user-facing Board facade
    core                (numba) bitboards, attacks, position, move generation, perft
"""

__version__ = "0.1.0"
