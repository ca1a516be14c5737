"""Connect Four as a :class:`~treestrap.games.contract.Game`: the compiled game of
:mod:`treestrap.connect4`, its searches for learning, seeded random openings, and its
tournaments of in-process players (:mod:`treestrap.games.connect4_tournament`).

Self-play at a fixed depth is deterministic, so every training game starts from a short
random opening drawn from (seed, game number): 2 to 4 plies, each one a move after which
the game goes on and the opponent cannot win at once.
"""

from __future__ import annotations

import numpy as np

from treestrap.connect4.bits import WIDTH
from treestrap.connect4.board import (
    DRAW,
    LOSS,
    MAX_MOVES,
    NOT_TERMINAL,
    RANK_WINS,
    ST_PLY,
    Position,
    copy_position,
    legal_moves,
    make_move,
    move_ranks,
    new_position,
    position_key,
    side_to_move,
    terminal_value,
    unmake_move,
)
from treestrap.connect4.evaluator import (
    Connect4Evaluator,
    evaluate,
    evaluate_gradient,
    new_connect4_tree,
)
from treestrap.connect4.features import feature_names
from treestrap.connect4.minimax import Connect4Minimax
from treestrap.connect4.search import Connect4Search, SearchResult
from treestrap.connect4.table import NO_MOVE
from treestrap.connect4.walk import walk_tt
from treestrap.core.search_tree import SearchTree
from treestrap.games.connect4_facts import CONNECT4_FACTS
from treestrap.games.connect4_model import (
    hand_written_connect4_model,
    load_connect4_model,
    random_connect4_model,
)
from treestrap.games.connect4_network import random_connect4_network
from treestrap.games.connect4_tournament import CONNECT4_TOURNAMENT
from treestrap.games.contract import MINIMAX, Game, LearningSearch, SearchPlan
from treestrap.games.line_record import LineRecord

#: The fewest nodes an alpha-beta by node budget gets.
MIN_NODE_BUDGET = 1000
#: Nodes a table walk records: more than the entries of depth >= 1 of a training search.
WALK_TREE_NODES = 1 << 16
#: Plies of a random opening: at least, at most.
OPENING_PLIES = (2, 4)


class Connect4AlphaBetaSource:
    """The training alpha-beta, to ``depth`` plies or else within the move's node
    budget, and with ``walk`` its table walk: the entries of depth >= ``min_depth``
    reachable from the root, with their bounds."""

    def __init__(self, tt_bits: int, depth: int | None, min_depth: int, walk: bool) -> None:
        self.alphabeta = Connect4Search(tt_bits=tt_bits)
        self.depth = depth
        self.min_depth = min_depth
        self.walk_tree = new_connect4_tree(WALK_TREE_NODES) if walk else None

    def search(
        self, pos: Position, ev: Connect4Evaluator, node_budget: int | None
    ) -> tuple[SearchResult, SearchTree | None]:
        ab = self.alphabeta
        if self.depth is not None:
            result = ab.search(pos, ev, self.depth)
        else:
            result = ab.search_nodes(pos, ev, max(node_budget or 0, MIN_NODE_BUDGET))
        if self.walk_tree is None:
            return result, None
        walk_tt(pos, ev, ab, self.walk_tree, self.min_depth)
        return result, self.walk_tree


class Connect4MinimaxSource:
    """Full-tree minimax: iterative deepening within ``max_nodes`` tree nodes, to at
    most ``max_depth`` plies."""

    def __init__(self, max_nodes: int, max_depth: int) -> None:
        # A search stops on the node after its budget: one more than the budget fits.
        self.minimax = Connect4Minimax(capacity=max_nodes + 1, max_nodes=max_nodes)
        self.max_depth = max_depth

    def search(
        self, pos: Position, ev: Connect4Evaluator, node_budget: int | None
    ) -> tuple[SearchResult, SearchTree | None]:
        result = self.minimax.search_budget(pos, ev, self.max_depth)
        return result, self.minimax.tree


def connect4_learning_search(plan: SearchPlan) -> LearningSearch:
    """The Connect Four search of ``plan`` (no quiescence: the chess-only fields of the
    plan do not apply)."""
    if plan.kind == MINIMAX:
        return Connect4MinimaxSource(plan.minimax_nodes, plan.max_depth)
    return Connect4AlphaBetaSource(plan.tt_bits, plan.depth, plan.min_depth, plan.walk)


def _terminal(pos: Position, buffer: np.ndarray) -> tuple[float | None, str]:
    t = terminal_value(pos)
    if t == LOSS:
        return -1.0, "four in a row"
    if t == DRAW:
        return 0.0, "full board"
    return None, ""


def _safe_moves(pos: Position) -> list[int]:
    """The moves after which the game goes on and the opponent cannot win at once."""
    safe = []
    buf = np.zeros(MAX_MOVES, dtype=np.int64)
    ranks = np.zeros(WIDTH, dtype=np.int64)
    for m in buf[: legal_moves(pos, buf)].tolist():
        make_move(pos, m)
        if terminal_value(pos) == NOT_TERMINAL:
            move_ranks(pos, ranks)
            if not (ranks == RANK_WINS).any():
                safe.append(m)
        unmake_move(pos)
    return safe


def random_opening(seed: int, number: int) -> list[int]:
    """Game ``number``'s opening moves (columns 0-6), drawn from (seed, number)."""
    rng = np.random.default_rng([seed, number])
    pos = new_position()
    for _ in range(int(rng.integers(OPENING_PLIES[0], OPENING_PLIES[1] + 1))):
        moves = _safe_moves(pos)
        if not moves:
            break
        make_move(pos, moves[int(rng.integers(len(moves)))])
    return [int(m) for m in pos.moves[: int(pos.st[ST_PLY])]]


def _move_text(pos: Position, move: int) -> str:
    return str(int(move) + 1)


CONNECT4_GAME = Game(
    name=CONNECT4_FACTS.name,
    start_position=new_position,
    copy_position=copy_position,
    new_move_buffer=lambda: np.zeros(MAX_MOVES, dtype=np.int64),
    legal_moves=legal_moves,
    make_move=make_move,
    unmake_move=unmake_move,
    terminal=_terminal,
    side_to_move=side_to_move,
    key=position_key,
    evaluate=evaluate,
    evaluate_gradient=evaluate_gradient,
    move_text=_move_text,
    no_move=NO_MOVE,
    learning_search=connect4_learning_search,
    feature_names=lambda feature_set: feature_names(),
    random_model=lambda feature_set, seed, scale: random_connect4_model(seed, scale),
    hand_set_model=lambda feature_set: hand_written_connect4_model(),
    random_network=lambda sizes, activation, seed, scale: random_connect4_network(
        sizes, seed, scale
    ),
    load_model=load_connect4_model,
    start_record=lambda opening: LineRecord(new_position(), opening, _move_text, make_move),
    opening=random_opening,
    tournament_play=CONNECT4_TOURNAMENT,
)
