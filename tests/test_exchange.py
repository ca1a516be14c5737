"""Static exchange evaluation against an exchange played out move by move in
python-chess (an independent reference: its attack sets and x-rays, our rules)."""

from __future__ import annotations

import chess
import pytest
from search_helpers import random_positions

from treestrap.core.notation import parse_fen, parse_uci_move
from treestrap.search.exchange import EXCHANGE_VALUE, exchange_at_least

STARTS = [
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "2r2rk1/pp1bqppp/2n1pn2/3p4/2PP4/2N1PN2/PP1BQPPP/2R2RK1 w - - 0 12",
]


def _value(board: chess.Board, square: chess.Square) -> int:
    piece = board.piece_at(square)
    return 0 if piece is None else EXCHANGE_VALUE[piece.piece_type - 1]


def _recapture_value(board: chess.Board, square: chess.Square) -> int:
    """What the side to move gains by recapturing on ``square`` with its least
    valuable attacker and going on, free to stop (0)."""
    attackers = board.attackers(board.turn, square)
    if not attackers:
        return 0
    frm = min(attackers, key=lambda s: board.piece_at(s).piece_type)  # type: ignore[union-attr]
    taker = board.piece_at(frm)
    assert taker is not None
    if taker.piece_type == chess.KING and board.attackers(not board.turn, square):
        return 0
    taken = _value(board, square)
    board.push(chess.Move(frm, square))
    rest = _recapture_value(board, square)
    board.pop()
    return max(0, taken - rest)


def reference_exchange(board: chess.Board, move: chess.Move) -> int:
    if board.is_castling(move) or move.promotion:
        return 0
    taken = EXCHANGE_VALUE[0] if board.is_en_passant(move) else _value(board, move.to_square)
    board.push(move)
    rest = _recapture_value(board, move.to_square)
    board.pop()
    return taken - rest


@pytest.mark.parametrize(
    ("fen", "uci", "value"),
    [
        ("4k3/8/3p4/4p3/8/5N2/8/4K3 w - - 0 1", "f3e5", 100 - 320),  # pawn defends
        ("4k3/8/8/4p3/3P4/8/8/4K3 w - - 0 1", "d4e5", 100),  # undefended
        ("4k3/4r3/8/4r3/8/8/4R3/4RK2 w - - 0 1", "e2e5", 500),  # x-ray: R, R vs R, R
        ("4k3/4q3/8/4b3/8/8/4R3/4Q1K1 w - - 0 1", "e2e5", 330),  # Q behind R, bishop taken
        ("4k3/8/8/3p4/4K3/8/8/8 w - - 0 1", "e4d5", 100),  # the king takes a loose pawn
    ],
)
def test_known_exchanges(fen: str, uci: str, value: int) -> None:
    board = chess.Board(fen)
    move = chess.Move.from_uci(uci)
    assert reference_exchange(board, move) == value
    pos = parse_fen(fen)
    m = parse_uci_move(pos, uci)
    assert exchange_at_least(pos, m, value)
    assert not exchange_at_least(pos, m, value + 1)


def test_every_capture_of_random_positions_matches_the_reference() -> None:
    checked = 0
    for fen in random_positions(150, seed=11, starts=STARTS, min_ply=0, max_ply=30):
        board = chess.Board(fen)
        pos = parse_fen(fen)
        for move in board.legal_moves:
            if not board.is_capture(move) and not move.promotion:
                continue
            value = reference_exchange(board, move)
            m = parse_uci_move(pos, move.uci())
            assert exchange_at_least(pos, m, value), (fen, move.uci(), value)
            assert not exchange_at_least(pos, m, value + 1), (fen, move.uci(), value)
            assert exchange_at_least(pos, m, 0) == (value >= 0), (fen, move.uci())
            checked += 1
    assert checked > 300
