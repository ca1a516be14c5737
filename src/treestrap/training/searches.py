"""The search a learner learns from, one per search kind of its rule
(:data:`~treestrap.learn.rules.ALPHABETA`, :data:`~treestrap.learn.rules.MINIMAX`): the
run's config becomes a :class:`~treestrap.games.contract.SearchPlan`, and the game
(:mod:`treestrap.games`) makes the search. Each gives the search's result and the tree
its rule reads (None for a rule that reads none).
"""

from __future__ import annotations

from treestrap.games.contract import ALPHABETA, MINIMAX, LearningSearch, SearchPlan
from treestrap.games.learning_sources import WALK_TREE_NODES
from treestrap.games.registry import get_game
from treestrap.learn.base import Rule
from treestrap.learn.rules import MINIMAX as MINIMAX_RULE
from treestrap.training.config import TrainConfig

__all__ = ["MINIMAX_MAX_DEPTH", "WALK_TREE_NODES", "SearchSource", "learning_search"]

#: What a learner's search is (the game contract's name for it).
SearchSource = LearningSearch
#: A minimax's deepest iteration when no depth bounds it: its node budget ends it first.
MINIMAX_MAX_DEPTH = 32


def search_plan(config: TrainConfig, rule: Rule, network: bool) -> SearchPlan:
    """The search ``rule`` learns from, set from ``config``; ``network``: the learner's
    model is a network (the options of linear models do not reach its search)."""
    if rule.search_kind == MINIMAX_RULE:
        # A network's minimax stops at --depth when one is given; a linear run's
        # deepens as far as its node budget lets it, whatever --depth says.
        max_depth = (config.depth or MINIMAX_MAX_DEPTH) if network else MINIMAX_MAX_DEPTH
        return SearchPlan(
            MINIMAX,
            minimax_nodes=config.minimax_nodes,
            minimax_qnodes=config.minimax_qnodes,
            max_depth=max_depth,
            mark_noisy=False if network else config.quiet_only,
        )
    return SearchPlan(
        ALPHABETA,
        tt_bits=config.tt_bits,
        depth=config.depth,
        min_depth=config.min_depth,
        walk=rule.needs_tree,
        quiescence=config.node_value == "quiescence",
        # a network's replay set needs every node's leaf (search/tt_walk.py)
        exact_leaves=network,
        network=network,
    )


def learning_search(config: TrainConfig, rule: Rule, network: bool) -> LearningSearch:
    """The search ``rule`` learns from, made by the run's game."""
    return get_game(config.game).learning_search(search_plan(config, rule, network))
