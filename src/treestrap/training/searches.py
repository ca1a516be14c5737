"""The searches a learner learns from, one per search kind of its rule
(:data:`~treestrap.learn.base.ALPHABETA`, :data:`~treestrap.learn.base.MINIMAX`). Each
gives the search's result and the tree its rule reads (None for a rule that reads none).
"""

from __future__ import annotations

from typing import Protocol

from treestrap.core.position import Position
from treestrap.evaluation.model import Evaluator
from treestrap.learn.base import MINIMAX, Rule
from treestrap.search.context import SearchContext, new_context
from treestrap.search.minimax import MinimaxLimits, MinimaxSearch
from treestrap.search.training import SearchResult, TrainingSearch
from treestrap.search.tree import SearchTree, new_tree
from treestrap.search.tt_walk import walk_tt
from treestrap.training.config import TrainConfig

#: The fewest nodes an alpha-beta by node budget gets, however short a clock's share.
MIN_NODE_BUDGET = 1000
#: Nodes a table walk records: far more than the entries of depth >= 1 of a training
#: search reachable from its root.
WALK_TREE_NODES = 1 << 16
#: Input pairs a network's node records: at most 33 (32 pieces, the side to move).
NETWORK_FEATURES_PER_NODE = 40
#: Nodes a minimax tree records at most: MinimaxSearch keeps two trees this large.
MAX_MINIMAX_CAPACITY = 2_000_000
#: A minimax's deepest iteration when no depth bounds it: its node budget ends it first.
MINIMAX_MAX_DEPTH = 32


class SearchSource(Protocol):
    """A search a rule learns from."""

    def search(
        self, pos: Position, ev: Evaluator, node_budget: int | None
    ) -> tuple[SearchResult, SearchTree | None]: ...


class AlphaBetaSource:
    """The training alpha-beta, to ``depth`` plies or else within the move's node
    budget, and with a ``walk_tree`` its table walk: the entries of depth >=
    ``min_depth`` reachable from the root, with their bounds (valued by quiescence
    searches with a ``quiescence_ctx``; ``exact_leaves``: every node's exact value and
    principal leaf)."""

    def __init__(
        self,
        tt_bits: int,
        depth: int | None,
        min_depth: int,
        walk_tree: SearchTree | None = None,
        quiescence_ctx: SearchContext | None = None,
        exact_leaves: bool = False,
    ) -> None:
        self.alphabeta = TrainingSearch(tt_bits=tt_bits)
        self.depth = depth
        self.min_depth = min_depth
        self.walk_tree = walk_tree
        #: scratch of the quiescence searches that give nodes their Q(s) values
        self.quiescence_ctx = quiescence_ctx
        self.exact_leaves = exact_leaves

    def search(
        self, pos: Position, ev: Evaluator, node_budget: int | None
    ) -> tuple[SearchResult, SearchTree | None]:
        ab = self.alphabeta
        if self.depth is not None:
            result = ab.search(pos, ev, self.depth)
        else:
            result = ab.search_nodes(pos, ev, max(node_budget or 0, MIN_NODE_BUDGET))
        if self.walk_tree is None:
            return result, None
        walk_tt(
            pos,
            ev,
            ab.tt,
            self.walk_tree,
            ab.ctx,
            self.min_depth,
            self.quiescence_ctx,
            self.exact_leaves,
        )
        return result, self.walk_tree


class MinimaxSource:
    """Serban's full-tree minimax: iterative deepening within its ``limits``' node
    budget, to at most ``max_depth`` plies. A clock's node budget is not used: the
    tree's own budget bounds the search."""

    def __init__(self, limits: MinimaxLimits, max_depth: int) -> None:
        capacity = limits.max_nodes * (limits.max_qnodes_per_leaf + 1) + 1
        self.minimax = MinimaxSearch(capacity=min(capacity, MAX_MINIMAX_CAPACITY), limits=limits)
        self.max_depth = max_depth

    def search(
        self, pos: Position, ev: Evaluator, node_budget: int | None
    ) -> tuple[SearchResult, SearchTree | None]:
        result = self.minimax.search_budget(pos, ev, self.max_depth)
        return result, self.minimax.tree


def learning_search(config: TrainConfig, rule: Rule, network: bool) -> SearchSource:
    """The search ``rule`` learns from, set from ``config``; ``network``: the learner's
    model is a network (the options of linear models do not reach its search)."""
    if rule.search_kind == MINIMAX:
        limits = MinimaxLimits(
            max_nodes=config.minimax_nodes,
            max_qnodes_per_leaf=config.minimax_qnodes,
            mark_noisy=False if network else config.quiet_only,
        )
        # A network's minimax stops at --depth when one is given; a linear run's
        # deepens as far as its node budget lets it, whatever --depth says.
        max_depth = (config.depth or MINIMAX_MAX_DEPTH) if network else MINIMAX_MAX_DEPTH
        return MinimaxSource(limits, max_depth)
    walk_tree = None
    if rule.needs_tree:
        walk_tree = (
            new_tree(WALK_TREE_NODES, features_per_node=NETWORK_FEATURES_PER_NODE)
            if network
            else new_tree(WALK_TREE_NODES)
        )
    quiescence = config.node_value == "quiescence"
    return AlphaBetaSource(
        config.tt_bits,
        config.depth,
        config.min_depth,
        walk_tree,
        new_context() if quiescence else None,
        # a network's replay set needs every node's leaf (search/tt_walk.py)
        exact_leaves=network,
    )
