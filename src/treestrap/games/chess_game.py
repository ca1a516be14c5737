"""Chess as a :class:`~treestrap.games.contract.Game`: the compiled chess core and the
search family compiled for chess (:mod:`treestrap.search.chess_kernels`), wrapped.

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
from treestrap.games.learning_sources import WALK_TREE_NODES, AlphaBetaSource, MinimaxSource
from treestrap.games.network_inputs import CHESS_INPUTS
from treestrap.search.context import new_context
from treestrap.search.minimax import MinimaxLimits, MinimaxSearch
from treestrap.search.training import TrainingSearch
from treestrap.search.tree import FEATURES_PER_NODE, SearchTree, new_tree
from treestrap.search.tt_walk import walk_tt

#: Input pairs a network's node records: at most 33 (32 pieces, the side to move).
NETWORK_FEATURES_PER_NODE = 40
#: Nodes a minimax tree records at most: MinimaxSearch keeps two trees this large.
MAX_MINIMAX_CAPACITY = 2_000_000


def chess_learning_search(plan: SearchPlan) -> LearningSearch:
    """The chess search of ``plan``: with ``quiescence``, walked nodes are valued by
    quiescence searches in scratch of their own (``exact_leaves``: every node's exact
    value and principal leaf)."""
    if plan.kind == MINIMAX:
        limits = MinimaxLimits(
            max_nodes=plan.minimax_nodes,
            max_qnodes_per_leaf=plan.minimax_qnodes,
            mark_noisy=plan.mark_noisy,
        )
        capacity = limits.max_nodes * (limits.max_qnodes_per_leaf + 1) + 1
        minimax = MinimaxSearch(capacity=min(capacity, MAX_MINIMAX_CAPACITY), limits=limits)
        return MinimaxSource(minimax, plan.max_depth)
    alphabeta = TrainingSearch(tt_bits=plan.tt_bits)
    if not plan.walk:
        return AlphaBetaSource(alphabeta, plan.depth, plan.min_depth)
    features = NETWORK_FEATURES_PER_NODE if plan.network else FEATURES_PER_NODE
    quiescence_ctx = new_context() if plan.quiescence else None

    def walk(pos: Position, ev: Evaluator, ab: TrainingSearch, tree: SearchTree, d: int) -> None:
        walk_tt(pos, ev, ab.tt, tree, ab.ctx, d, quiescence_ctx, plan.exact_leaves)

    tree = new_tree(WALK_TREE_NODES, features_per_node=features)
    return AlphaBetaSource(alphabeta, plan.depth, plan.min_depth, tree, walk)


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
