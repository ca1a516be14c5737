"""Random legal games played in lockstep with python-chess, the oracle.

A game is drawn as (start FEN, length, seed, repetition bias); the seed drives the
choice among python-chess's legal moves (sorted, so runs are reproducible), and the
bias sometimes replays the move made four plies ago or takes back the mover's last
move, which produces repetitions. In every position of every game the core must agree
with python-chess on the legal moves, check, game status, repetitions, Polyglot key
and FEN; make/unmake and null/unnull must restore every array exactly.
"""

from __future__ import annotations

import random

import chess
import chess.polyglot
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treestrap.core.makemove import make_move, make_null_move, unmake_move, unmake_null_move
from treestrap.core.move import move_to_uci
from treestrap.core.notation import (
    STARTING_FEN,
    board_from_position,
    format_fen,
    legal_moves,
    parse_fen,
    parse_uci_move,
    position_from_board,
)
from treestrap.core.position import (
    ST_PLY,
    Position,
    compute_key,
    current_key,
    in_check,
)
from treestrap.core.status import (
    CHECKMATE,
    FIFTY_MOVES,
    INSUFFICIENT_MATERIAL,
    ONGOING,
    STALEMATE,
    STATUS_NAMES,
    THREEFOLD_REPETITION,
    game_status,
    is_repetition,
    new_move_buffer,
    repetition_count,
)

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

START_FENS = [
    STARTING_FEN,
    KIWIPETE,
    # en passant available at once (exf6), and more double pushes to come
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    # en passant at once (dxc6), castling all round
    "r3k2r/pp1p1ppp/8/2pPp3/8/8/PPP2PPP/R3K2R w KQkq c6 0 10",
    # promotions, capture-promotions and under-promotions for both sides
    "1n1n3k/PPP5/8/8/8/8/ppp5/1N1N3K w - - 0 1",
    "4k3/1P4P1/8/8/8/8/1p4p1/4K3 b - - 0 60",
    # CPW positions 3, 4 and 5: pins, en passant along a rank, checks, castling
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    # CPW 3 after g2g4: f4xg3 en passant is pseudo-legal but illegal (rank pin)
    "8/2p5/3p4/KP5r/1R3pPk/8/4P3/8 b - g3 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    # near the fifty-move rule
    "4k3/8/8/8/8/8/8/R3K2R w KQ - 95 80",
    "8/8/3k4/3p4/8/3P4/3K4/2R5 b - - 97 120",
    # material that can become insufficient by a capture
    "8/8/3k4/3n4/8/3B4/3K4/8 w - - 0 50",
    "8/8/2k5/3b4/8/4N3/3K4/8 b - - 30 70",
    # knights out, everything else at home: shuffles and repetitions
    "r1bqkb1r/pppppppp/2n2n2/8/8/2N2N2/PPPPPPPP/R1BQKB1R w KQkq - 4 3",
    "4k3/8/8/8/8/8/8/1N2K1N1 w - - 0 1",
    # mates and stalemates within reach, and a stalemate to start from
    "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
    "8/8/8/8/8/5k2/5p2/5K2 w - - 0 1",
    "R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1",
    "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
]

MAX_PLIES = 150
EXAMPLES = 200


@st.composite
def games(draw: st.DrawFn) -> tuple[str, int, int, float]:
    fen = draw(st.sampled_from(START_FENS))
    plies = draw(st.integers(0, MAX_PLIES))
    seed = draw(st.integers(0, 2**32 - 1))
    bias = draw(st.sampled_from([0.0, 0.3, 0.8]))
    return fen, plies, seed, bias


def _pick(board: chess.Board, rng: random.Random, bias: float) -> chess.Move:
    legal = sorted(board.legal_moves, key=chess.Move.uci)
    if rng.random() < bias:
        stack = board.move_stack
        candidates = []
        if len(stack) >= 4:
            candidates.append(stack[-4])  # go round the cycle again
        if len(stack) >= 2:
            last = stack[-2]
            candidates.append(chess.Move(last.to_square, last.from_square))  # take it back
        for move in candidates:
            if move in legal:
                return move
    return rng.choice(legal)


def _snapshot(pos: Position) -> dict[str, np.ndarray]:
    return {name: getattr(pos, name).copy() for name in pos._fields if name != "tables"}


def _assert_restored(pos: Position, snap: dict[str, np.ndarray], what: str) -> None:
    for name, before in snap.items():
        assert np.array_equal(getattr(pos, name), before), f"{what} did not restore {name}"


def _expected_status(board: chess.Board) -> int:
    if board.is_checkmate():
        return CHECKMATE
    if board.is_stalemate():
        return STALEMATE
    if board.is_insufficient_material():
        return INSUFFICIENT_MATERIAL
    if board.halfmove_clock >= 100:
        return FIFTY_MOVES
    if board.is_repetition(3):
        return THREEFOLD_REPETITION
    return ONGOING


def check_position(board: chess.Board, pos: Position, rng: random.Random) -> None:
    """Every invariant of one position (``board`` and ``pos`` describe the same game)."""
    fen = board.fen()
    where = f"{fen} after {[m.uci() for m in board.move_stack]}"

    moves = legal_moves(pos)
    ucis = [move_to_uci(m) for m in moves]
    assert len(ucis) == len(set(ucis)), f"duplicate moves in {where}"
    assert set(ucis) == {m.uci() for m in board.legal_moves}, where

    assert bool(in_check(pos)) == board.is_check(), where
    status = game_status(pos, new_move_buffer())
    expected = _expected_status(board)
    assert STATUS_NAMES[status] == STATUS_NAMES[expected], where
    reps = repetition_count(pos)
    assert (reps >= 2) == board.is_repetition(2), f"repetition_count {reps} in {where}"
    assert (reps >= 3) == board.is_repetition(3), f"repetition_count {reps} in {where}"
    assert (reps >= 4) == board.is_repetition(4), f"repetition_count {reps} in {where}"
    assert bool(is_repetition(pos)) == (reps >= 2), where

    key = int(current_key(pos))
    assert key == chess.polyglot.zobrist_hash(board), where
    assert key == int(compute_key(pos)), f"incremental key differs from recomputed in {where}"

    assert format_fen(pos) == fen
    assert format_fen(parse_fen(fen)) == fen

    # make/unmake of every legal move: the key stays right, every array comes back.
    snap = _snapshot(pos)
    for m in moves:
        make_move(pos, m)
        assert current_key(pos) == compute_key(pos), f"{move_to_uci(m)} in {where}"
        unmake_move(pos)
    _assert_restored(pos, snap, "make/unmake of every move")
    if moves:
        m = rng.choice(moves)
        make_move(pos, m)
        child = board.copy(stack=False)
        child.push_uci(move_to_uci(m))
        assert int(current_key(pos)) == chess.polyglot.zobrist_hash(child), where
        assert format_fen(pos) == child.fen(), where
        unmake_move(pos)
        _assert_restored(pos, snap, f"make/unmake of {move_to_uci(m)}")

    # Null move (not in check): the key is the position's with the turn passed.
    if not board.is_check():
        make_null_move(pos)
        board.push(chess.Move.null())
        try:
            assert int(current_key(pos)) == chess.polyglot.zobrist_hash(board), where
            assert current_key(pos) == compute_key(pos), where
            # The full-move number is left alone (python-chess counts a null move).
            assert format_fen(pos).split()[:5] == board.fen().split()[:5], where
            assert repetition_count(pos) == 1, "a null move starts a new repetition horizon"
            assert {move_to_uci(m) for m in legal_moves(pos)} == {
                m.uci() for m in board.legal_moves
            }, f"moves after a null move in {where}"
        finally:
            board.pop()
        unmake_null_move(pos)
        _assert_restored(pos, snap, "null/unnull move")


def play(fen: str, plies: int, seed: int, bias: float, check=check_position):
    """Play the game in lockstep, checking every position; returns (board, pos)."""
    rng = random.Random(seed)
    board = chess.Board(fen)
    pos = parse_fen(fen)
    check(board, pos, rng)
    for _ in range(plies):
        if board.is_checkmate() or board.is_stalemate():
            break
        move = _pick(board, rng, bias)
        make_move(pos, parse_uci_move(pos, move.uci()))
        board.push(move)
        check(board, pos, rng)
    assert pos.st[ST_PLY] == len(board.move_stack)
    return board, pos


SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


@SETTINGS
@given(games())
def test_random_games_agree_with_python_chess(game: tuple[str, int, int, float]) -> None:
    play(*game)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(games())
def test_python_chess_round_trip(game: tuple[str, int, int, float]) -> None:
    fen, plies, seed, bias = game
    board, pos = play(fen, plies, seed, bias, check=lambda b, p, r: None)

    # position_from_board replays the history too: same key, same repetition count.
    replayed = position_from_board(board)
    assert current_key(replayed) == current_key(pos)
    assert repetition_count(replayed) == repetition_count(pos)
    assert board_from_position(replayed).fen() == board.fen()
    with pytest.raises(ValueError):
        parse_uci_move(replayed, "a1a1")


# --- targeted cases ---------------------------------------------------------------


def _lockstep(fen: str, ucis: list[str]) -> tuple[chess.Board, Position]:
    board = chess.Board(fen)
    pos = parse_fen(fen)
    for uci in ucis:
        make_move(pos, parse_uci_move(pos, uci))
        board.push_uci(uci)
    return board, pos


def test_threefold_by_knight_shuffle() -> None:
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"]
    board = chess.Board()
    pos = parse_fen(STARTING_FEN)
    counts = [int(repetition_count(pos))]
    for uci in shuffle * 2:
        make_move(pos, parse_uci_move(pos, uci))
        board.push_uci(uci)
        counts.append(int(repetition_count(pos)))
        check_position(board, pos, random.Random(0))
    assert counts == [1, 1, 1, 1, 2, 2, 2, 2, 3]
    assert game_status(pos, new_move_buffer()) == THREEFOLD_REPETITION
    assert board.is_repetition(3)


def test_capture_resets_repetitions() -> None:
    fen = "4k3/8/8/8/8/8/4p3/R3K1N1 w - - 0 1"
    shuffle = ["g1f3", "e8d8", "f3g1", "d8e8"]
    board, pos = _lockstep(fen, [*shuffle, "e1e2", "e8d8", "e2e1", "d8e8", *shuffle])
    assert repetition_count(pos) == board.is_repetition(2) + 1 == 2


def test_fifty_move_rule_and_mate_on_the_hundredth_ply() -> None:
    board, pos = _lockstep("7k/8/6K1/8/8/8/8/R7 w - - 99 80", ["a1b1"])
    assert game_status(pos, new_move_buffer()) == FIFTY_MOVES == _expected_status(board)
    board, pos = _lockstep("7k/8/6K1/8/8/8/8/R7 w - - 99 80", ["a1a8"])
    assert game_status(pos, new_move_buffer()) == CHECKMATE == _expected_status(board)
    board, pos = _lockstep("7k/8/6K1/8/8/8/P7/R7 w - - 99 80", ["a2a3"])
    assert game_status(pos, new_move_buffer()) == ONGOING == _expected_status(board)


def test_repetition_ignores_an_en_passant_square_that_cannot_be_used() -> None:
    """FIDE (and python-chess) treat positions as the same when the same moves are
    possible: an en-passant capture that is illegal (the capturing pawn is pinned
    along the rank) does not make the position after the double push different."""
    fen = "7k/2p5/8/KP5r/8/8/8/8 b - - 0 1"
    cycle = ["a5a4", "h8g8", "a4a5", "g8h8"]
    board, pos = _lockstep(fen, ["c7c5", *cycle, *cycle])
    assert board.is_repetition(3)
    assert repetition_count(pos) == 3
    assert game_status(pos, new_move_buffer()) == THREEFOLD_REPETITION
