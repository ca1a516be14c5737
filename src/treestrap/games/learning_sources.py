"""The searches a rule learns from, as a game's ``learning_search(plan)`` hands them
out (:mod:`treestrap.games.contract`): the search family's training alpha-beta with its
table walk, and its full-tree minimax (:mod:`treestrap.search.family`). Each game builds
them from its own compiled searches; what they do with a position is the same.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from treestrap.core.search_tree import SearchTree
from treestrap.games.contract import MINIMAX, LearningSearch, SearchPlan
from treestrap.search.alphabeta import AlphaBetaSearch, SearchResult
from treestrap.search.full_tree import FullTreeSearch
from treestrap.search.plain_kernels import PlainMinimaxLimits, PlainSearchOptions
from treestrap.search.walk import walk_table

#: The fewest nodes an alpha-beta by node budget gets, however short a clock's share.
MIN_NODE_BUDGET = 1000
#: Nodes a table walk records: far more than the entries of depth >= 1 of a training
#: search reachable from its root.
WALK_TREE_NODES = 1 << 16

#: ``walk(pos, ev, search, tree, min_depth)``: the game's table walk of ``search``.
TableWalk = Callable[[Any, Any, AlphaBetaSearch, SearchTree, int], Any]


class AlphaBetaSource:
    """The training alpha-beta, to ``depth`` plies or else within the move's node
    budget, and with a ``walk_tree`` its table walk: the entries of depth >=
    ``min_depth`` reachable from the root, with their bounds."""

    def __init__(
        self,
        alphabeta: AlphaBetaSearch,
        depth: int | None,
        min_depth: int,
        walk_tree: SearchTree | None = None,
        walk: TableWalk | None = None,
    ) -> None:
        self.alphabeta = alphabeta
        self.depth = depth
        self.min_depth = min_depth
        self.walk_tree = walk_tree
        self.walk = walk

    def search(
        self, pos: Any, ev: Any, node_budget: int | None
    ) -> tuple[SearchResult, SearchTree | None]:
        ab = self.alphabeta
        if self.depth is not None:
            result = ab.search(pos, ev, self.depth)
        else:
            result = ab.search_nodes(pos, ev, max(node_budget or 0, MIN_NODE_BUDGET))
        if self.walk_tree is None or self.walk is None:
            return result, None
        self.walk(pos, ev, ab, self.walk_tree, self.min_depth)
        return result, self.walk_tree


class MinimaxSource:
    """Full-tree minimax: iterative deepening within its limits' node budget, to at
    most ``max_depth`` plies. A clock's node budget is not used: the tree's own budget
    bounds the search."""

    def __init__(self, minimax: FullTreeSearch, max_depth: int) -> None:
        self.minimax = minimax
        self.max_depth = max_depth

    def search(
        self, pos: Any, ev: Any, node_budget: int | None
    ) -> tuple[SearchResult, SearchTree | None]:
        result = self.minimax.search_budget(pos, ev, self.max_depth)
        return result, self.minimax.tree


def plain_learning_search(
    kernels: Any, new_record: Callable[[int], SearchTree], plan: SearchPlan
) -> LearningSearch:
    """The search of ``plan`` for a game without captures, compiled from its family
    ``kernels`` (:mod:`treestrap.search.plain_kernels`): no quiescence, so the chess-only
    fields of the plan do not apply. ``new_record(capacity)`` makes its node record."""
    if plan.kind == MINIMAX:
        # A search stops on the node after its budget: one more than the budget fits.
        capacity = plan.minimax_nodes + 1
        limits = PlainMinimaxLimits(plan.minimax_nodes)
        minimax = FullTreeSearch(kernels, limits, new_record(capacity), new_record(capacity))
        return MinimaxSource(minimax, plan.max_depth)
    alphabeta = AlphaBetaSearch(kernels, PlainSearchOptions(), plan.tt_bits)
    if not plan.walk:
        return AlphaBetaSource(alphabeta, plan.depth, plan.min_depth)

    def walk(pos: Any, ev: Any, search: AlphaBetaSearch, tree: SearchTree, depth: int) -> None:
        walk_table(kernels, pos, ev, search.tt, tree, search.ctx, depth)

    tree = new_record(WALK_TREE_NODES)
    return AlphaBetaSource(alphabeta, plan.depth, plan.min_depth, tree, walk)
