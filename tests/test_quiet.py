"""Quiet nodes (search/quiet.py) and ``--quiet-only``: which positions count as quiet,
that search trees flag the others, and that updates leave the flagged ones out."""

from __future__ import annotations

import chess
import numpy as np
import pytest
from search_helpers import random_positions

from treestrap.core.notation import parse_fen
from treestrap.evaluation.presets import hand_set_model
from treestrap.learn.targets import node_mask, tree_delta
from treestrap.search.context import new_context
from treestrap.search.minimax import MinimaxLimits, MinimaxSearch
from treestrap.search.quiet import is_quiet
from treestrap.search.training import TrainingSearch
from treestrap.search.tree import NOISY, QUIESCENCE, new_tree
from treestrap.search.tt_walk import walk_tt

VALUE = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}


def oracle_quiet(board: chess.Board) -> bool:
    """The definition of quiet, written again with python-chess."""
    if board.is_check():
        return False
    them = not board.turn
    for move in board.generate_legal_captures():
        if move.promotion:
            return False
        victim = chess.PAWN if board.is_en_passant(move) else board.piece_type_at(move.to_square)
        if VALUE[victim] >= VALUE.get(board.piece_type_at(move.from_square), 100):
            return False
        occupied = board.occupied ^ chess.BB_SQUARES[move.from_square]
        if not board.attackers_mask(them, move.to_square, occupied):
            return False
    return not any(m.promotion for m in board.legal_moves)


@pytest.mark.parametrize(
    ("fen", "quiet"),
    [
        (chess.STARTING_FEN, True),
        # Nxe5 takes an undefended pawn.
        ("rnbqkbnr/pppp1ppp/8/4p3/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 2", False),
        # The same pawn defended by d6: a knight for a pawn is no quick win.
        ("rnbqkbnr/ppp2ppp/3p4/4p3/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 3", True),
        # Pawn takes a defended knight: the victim is worth more than the capturer.
        ("rnbqkb1r/pppp1ppp/5n2/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1", True),
        ("rnbqkb1r/pppp1ppp/8/4p3/3Pn3/8/PPP2PPP/RNBQKBNR w KQkq - 0 1", False),
        # In check.
        ("rnb1kbnr/pppp1ppp/8/4p3/5P1q/8/PPPPP1PP/RNBQKBNR w KQkq - 1 3", False),
        # A promotion.
        ("8/4P1k1/8/8/8/8/6K1/8 w - - 0 1", False),
    ],
)
def test_quiet_positions(fen: str, quiet: bool) -> None:
    assert oracle_quiet(chess.Board(fen)) == quiet
    assert is_quiet(parse_fen(fen), new_context().moves[0]) == quiet


def test_quiet_agrees_with_python_chess_on_random_positions() -> None:
    moves = new_context().moves[0]
    fens = random_positions(300, seed=11)
    verdicts = [is_quiet(parse_fen(fen), moves) for fen in fens]
    assert verdicts == [oracle_quiet(chess.Board(fen)) for fen in fens]
    assert 0 < sum(verdicts) < len(verdicts)  # both kinds occur


def _positions_of(tree, root: str) -> list[chess.Board]:
    """Each recorded node's position, rebuilt from its parent and move."""
    from treestrap.core.move import move_to_uci

    boards: list[chess.Board] = []
    for i in range(int(tree.meta[0])):
        parent = int(tree.parent[i])
        board = chess.Board(root) if parent < 0 else boards[parent].copy()
        if parent >= 0:
            board.push_uci(move_to_uci(int(tree.move[i])))
        boards.append(board)
    return boards


FEN = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"


def test_alpha_beta_trees_flag_the_nodes_that_are_not_quiet() -> None:
    search, ev, tree = TrainingSearch(), hand_set_model().evaluator(), new_tree(200_000)
    pos = parse_fen(FEN)
    search.search(pos, ev, 3)
    n = walk_tt(pos, ev, search.tt, tree, search.ctx, 1)
    noisy = (tree.flags[:n] & NOISY) != 0
    assert noisy.any() and not noisy.all()
    assert list(noisy) == [not oracle_quiet(b) for b in _positions_of(tree, FEN)]


def test_minimax_trees_flag_them_only_when_asked() -> None:
    ev = hand_set_model().evaluator()
    for mark in (False, True):
        search = MinimaxSearch(
            capacity=50_000, limits=MinimaxLimits(max_nodes=300, mark_noisy=mark)
        )
        search.search(parse_fen(FEN), ev, 2)
        tree = search.tree
        n = int(tree.meta[0])
        noisy = (tree.flags[:n] & NOISY) != 0
        if not mark:
            assert not noisy.any()
            continue
        main = (tree.flags[:n] & QUIESCENCE) == 0
        boards = _positions_of(tree, FEN)
        assert [noisy[i] for i in range(n) if main[i]] == [
            not oracle_quiet(boards[i]) for i in range(n) if main[i]
        ]


def test_quiet_only_updates_leave_the_flagged_nodes_out() -> None:
    search, ev, tree = TrainingSearch(), hand_set_model().evaluator(), new_tree(200_000)
    pos = parse_fen(FEN)
    search.search(pos, ev, 3)
    n = walk_tt(pos, ev, search.tt, tree, search.ctx, 1)
    noisy = (tree.flags[:n] & NOISY) != 0
    everything, quiet = node_mask(tree, 1), node_mask(tree, 1, quiet_only=True)
    assert np.array_equal(quiet, everything & ~noisy)
    size = ev.weights.shape[0]
    _, all_deltas = tree_delta(tree, size, 1.0, 1)
    theta, quiet_deltas = tree_delta(tree, size, 1.0, 1, quiet_only=True)
    assert quiet_deltas.size == int(quiet.sum()) < all_deltas.size
    # The step is the sum over the quiet nodes alone: flagging every other node as
    # terminal (left out in any case) gives the same change.
    tree.flags[:n][noisy] |= 2
    assert np.allclose(theta, tree_delta(tree, size, 1.0, 1)[0])
