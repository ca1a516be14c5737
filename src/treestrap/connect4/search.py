"""Connect Four's searches for learning: the search family's training alpha-beta,
table walk and full-tree minimax (:mod:`treestrap.search.family`) compiled with
Connect Four's kernels (:mod:`treestrap.connect4.search_kernels`).

The alpha-beta is fail-soft negamax with a two-bound table whose stored bounds the
walk reads back (Algorithm 2); the minimax records every node of its tree with its
exact value (Algorithm 1). Moves are columns 0-6; a result's ``best_move`` is -1 when
the game is over.
"""

from __future__ import annotations

from treestrap.connect4 import search_kernels
from treestrap.connect4.board import Position
from treestrap.connect4.evaluator import Connect4Evaluator, new_connect4_tree
from treestrap.core.search_tree import SearchTree
from treestrap.search.alphabeta import AlphaBetaSearch, SearchResult
from treestrap.search.full_tree import FullTreeSearch
from treestrap.search.plain_kernels import PlainMinimaxLimits, PlainSearchOptions
from treestrap.search.walk import walk_table

#: The options and limits of every game without captures, by their Connect Four names.
SearchOptions = PlainSearchOptions
MinimaxLimits = PlainMinimaxLimits


class Connect4Search(AlphaBetaSearch):
    """The training alpha-beta with its own scratch space and transposition table.

    >>> import numpy as np
    >>> from treestrap.connect4.board import parse_moves
    >>> from treestrap.connect4.evaluator import make_evaluator
    >>> from treestrap.connect4.features import SIZE
    >>> ev = make_evaluator(np.zeros(SIZE))
    >>> Connect4Search(tt_bits=12).search(parse_moves("112233"), ev, depth=1).pv
    [3]
    """

    def __init__(self, tt_bits: int = 18, options: SearchOptions | None = None):
        super().__init__(search_kernels, options or SearchOptions(), tt_bits)


class Connect4Minimax(FullTreeSearch):
    """Full-tree minimax with its own scratch space and node record: ``capacity`` bounds
    the nodes recorded, ``max_nodes`` the nodes of one tree in :meth:`search_budget`."""

    def __init__(self, capacity: int, max_nodes: int):
        if max_nodes < 1:
            raise ValueError(f"node budget must be positive, got {max_nodes}")
        tree, spare = new_connect4_tree(capacity), new_connect4_tree(capacity)
        super().__init__(search_kernels, MinimaxLimits(max_nodes), tree, spare)

    def search(self, pos: Position, ev: Connect4Evaluator, depth: int) -> SearchResult:
        """The whole depth-``depth`` tree (no node budget) into ``self.tree``."""
        return super().search(pos, ev, depth, MinimaxLimits())

    def search_budget(
        self, pos: Position, ev: Connect4Evaluator, max_depth: int = search_kernels.MAX_DEPTH
    ) -> SearchResult:
        """The deepest tree within the budget, to the end of the game at most."""
        return super().search_budget(pos, ev, max_depth)


def walk_tt(
    pos: Position, ev: Connect4Evaluator, search: Connect4Search, tree: SearchTree, min_depth: int
) -> None:
    """Record the entries of depth >= ``min_depth`` reachable from ``pos`` in the table
    of ``search``'s last search into ``tree`` (reset first)."""
    walk_table(search_kernels, pos, ev, search.tt, tree, search.ctx, min_depth)
