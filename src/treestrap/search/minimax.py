"""Chess's full-tree minimax that keeps every node (TreeStrap(minimax), Veness et al.
2009, Algorithm 1; Serban 2014, Algorithm 6): the family's minimax
(:mod:`treestrap.search.full_tree`) compiled with chess's kernels.

Every node of the depth-``D`` tree, and of the quiescence searches below its leaves,
is recorded with its features, static value and exact minimax value. The quiescence
and draw rules are those of :mod:`treestrap.search.training`, so with extensions and
the table off both searches return the same root value.

Budgets (Serban used 5,000 tree nodes and 500 quiescence nodes per leaf): a main-tree
budget stops the search (used by iterative deepening to pick the deepest tree that
fits); a per-leaf quiescence budget turns further quiescence nodes into static leaves
(``BUDGET_LEAF``). A search also stops when the record is full (exhaustive quiescence
below a depth-3 tree can run to millions of nodes); ``stopped`` then says its value is
not usable.
"""

from __future__ import annotations

from typing import NamedTuple

from treestrap.search import chess_kernels
from treestrap.search.full_tree import FullTreeSearch
from treestrap.search.tree import new_tree


class MinimaxLimits(NamedTuple):
    check_extension: bool = False
    #: main-tree nodes (depth >= 1) before the search stops; 0 = no limit
    max_nodes: int = 0
    #: quiescence nodes below one leaf before further ones become static leaves
    max_qnodes_per_leaf: int = 0
    #: flag the nodes that are not quiet (``NOISY``, search/quiet.py) for ``--quiet-only``
    mark_noisy: bool = False


class MinimaxSearch(FullTreeSearch):
    """Chess's full-tree minimax with its own scratch space and node record.

    ``capacity`` bounds the nodes recorded (main tree and quiescence together).
    """

    def __init__(self, capacity: int = 200_000, limits: MinimaxLimits | None = None):
        tree, spare = new_tree(capacity), new_tree(capacity)
        super().__init__(chess_kernels, limits or MinimaxLimits(), tree, spare)
