"""Positions and helpers shared by the search tests."""

from __future__ import annotations

import random

import chess

from treestrap.core.makemove import make_move
from treestrap.core.notation import parse_fen
from treestrap.core.position import Position
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.search.context import new_context
from treestrap.search.training import TrainingSearch
from treestrap.search.tree import SearchTree, new_tree
from treestrap.search.tt_walk import walk_tt

#: Starting points with few captures available, so that exhaustive (unpruned)
#: quiescence below a depth-3 minimax tree stays small enough to compare with.
QUIET_STARTS = [
    chess.STARTING_FEN,
    "4k3/pp3ppp/8/8/8/8/PP3PPP/4K3 w - - 0 1",
    "4k3/2p2pp1/8/3r4/8/8/2P2PP1/3RK3 w - - 0 1",
    "6k1/5ppp/8/8/3N4/8/5PPP/6K1 b - - 0 1",
    "r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1",
    "8/5k2/3p4/2pP4/2P5/4K3/8/8 w - - 0 1",
]


def random_positions(
    count: int,
    seed: int,
    min_ply: int = 4,
    max_ply: int = 40,
    starts: list[str] | None = None,
) -> list[str]:
    """FENs from random legal games (deterministic in ``seed``), not game-over."""
    rng = random.Random(seed)
    fens: list[str] = []
    while len(fens) < count:
        board = chess.Board(rng.choice(starts) if starts else chess.STARTING_FEN)
        for _ in range(rng.randint(min_ply, max_ply)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if not board.is_game_over(claim_draw=True):
            fens.append(board.fen())
    return fens


def node_position(root_fen: str, tree: SearchTree, i: int) -> Position:
    """The position of tree node ``i``, reached from the root by its path of moves."""
    path = []
    while tree.parent[i] >= 0:
        path.append(int(tree.move[i]))
        i = int(tree.parent[i])
    pos = parse_fen(root_fen)
    for move in reversed(path):
        make_move(pos, move)
    return pos


def quiescence_walk(model: NetworkModel, fen: str) -> SearchTree:
    """The table walk with quiescence leaves (``exact_leaves``) of a depth-2 training
    search of ``fen`` by ``model``, as a network run with quiescence values records it."""
    ev = model.evaluator()
    search = TrainingSearch(tt_bits=14)
    search.search(parse_fen(fen), ev, 2)
    tree = new_tree(1 << 14, features_per_node=40)
    walk_tt(parse_fen(fen), ev, search.tt, tree, search.ctx, 1, new_context(), True)
    return tree
