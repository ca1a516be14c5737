"""Chess as a :class:`~treestrap.games.contract.Game`: today's compiled chess core and
training searches, wrapped and unchanged.

The searches a chess rule learns from live here: the training alpha-beta (to a depth or
within a node budget) with its table walk, and Serban's full-tree minimax.
"""

from __future__ import annotations

import numpy as np

from treestrap.core.makemove import make_move, unmake_move
from treestrap.core.move import move_to_uci
from treestrap.core.movegen import generate_moves
from treestrap.core.notation import STARTING_FEN, parse_fen, parse_uci_move
from treestrap.core.position import ST_SIDE, Position, copy_position, current_key
from treestrap.core.status import STATUS_NAMES, game_status, new_move_buffer
from treestrap.evaluation.feature_sets import get_feature_set
from treestrap.evaluation.feature_sets.feature_set import dense_features
from treestrap.evaluation.model import Evaluator, evaluate, evaluate_gradient
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.presets import hand_set_model, random_model
from treestrap.evaluation.torch_network import random_network_parameters
from treestrap.evaluation.weight_files import load_weights
from treestrap.games.chess_facts import CHESS_FACTS
from treestrap.games.chess_record import ChessRecord
from treestrap.games.contract import MINIMAX, Game, LearningSearch, SearchPlan
from treestrap.games.network_inputs import CHESS_INPUTS
from treestrap.search.context import SearchContext, new_context
from treestrap.search.minimax import MinimaxLimits, MinimaxSearch
from treestrap.search.training import SearchResult, TrainingSearch
from treestrap.search.tree import SearchTree, new_tree
from treestrap.search.tt_walk import walk_tt

#: The fewest nodes an alpha-beta by node budget gets, however short a clock's share.
MIN_NODE_BUDGET = 1000
#: Nodes a table walk records: far more than the entries of depth >= 1 of a training
#: search reachable from its root.
WALK_TREE_NODES = 1 << 16
#: Input pairs a network's node records: at most 33 (32 pieces, the side to move).
NETWORK_FEATURES_PER_NODE = 40
#: Nodes a minimax tree records at most: MinimaxSearch keeps two trees this large.
MAX_MINIMAX_CAPACITY = 2_000_000


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


def chess_learning_search(plan: SearchPlan) -> LearningSearch:
    """The chess search of ``plan``."""
    if plan.kind == MINIMAX:
        limits = MinimaxLimits(
            max_nodes=plan.minimax_nodes,
            max_qnodes_per_leaf=plan.minimax_qnodes,
            mark_noisy=plan.mark_noisy,
        )
        return MinimaxSource(limits, plan.max_depth)
    walk_tree = None
    if plan.walk:
        walk_tree = (
            new_tree(WALK_TREE_NODES, features_per_node=NETWORK_FEATURES_PER_NODE)
            if plan.network
            else new_tree(WALK_TREE_NODES)
        )
    return AlphaBetaSource(
        plan.tt_bits,
        plan.depth,
        plan.min_depth,
        walk_tree,
        new_context() if plan.quiescence else None,
        exact_leaves=plan.exact_leaves,
    )


def _terminal(pos: Position, buffer: np.ndarray) -> tuple[float | None, str]:
    status = game_status(pos, buffer)
    if status == 0:
        return None, ""
    return (-1.0 if status == 1 else 0.0), STATUS_NAMES[status]  # 1: checkmate


def _side(pos: Position) -> int:
    return int(pos.st[ST_SIDE])


def _move_text(pos: Position, move: int) -> str:
    return move_to_uci(move)


def _random_network(sizes: list[int], activation: str, seed: int, scale: float) -> NetworkModel:
    params = random_network_parameters(sizes, seed, scale)
    return NetworkModel(sizes, params, activation=activation)


def _start() -> Position:
    return parse_fen(STARTING_FEN)


CHESS_GAME = Game(
    name=CHESS_FACTS.name,
    start_position=_start,
    copy_position=copy_position,
    new_move_buffer=new_move_buffer,
    legal_moves=generate_moves,
    make_move=make_move,
    unmake_move=unmake_move,
    terminal=_terminal,
    side_to_move=_side,
    key=current_key,
    evaluate=evaluate,
    evaluate_gradient=evaluate_gradient,
    move_text=_move_text,
    parse_move=parse_uci_move,
    no_move=0,  # the null move of core/move.py's encoding
    learning_search=chess_learning_search,
    feature_names=lambda feature_set: list(get_feature_set(feature_set).names),
    random_model=lambda feature_set, seed, scale: random_model(feature_set, seed=seed, scale=scale),
    hand_set_model=hand_set_model,
    random_network=_random_network,
    load_model=load_weights,
    network_inputs=CHESS_INPUTS,
    network_input_row=lambda pos: dense_features(pos, get_feature_set("bitboard")),
    start_record=lambda opening: ChessRecord(opening.fen, opening.board(), opening.name),
)
