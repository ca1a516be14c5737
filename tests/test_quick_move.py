"""The quick move of a cold start: a fresh ``treestrap uci`` whose kernels are still
compiling answers a timed ``go`` at once from a plain-Python search, and a ``go`` with
no clock waits for the compiled one (src/treestrap/engine/quick_move.py)."""

from __future__ import annotations

import io
import threading
import time

import chess
import pytest

from treestrap.engine import uci as uci_module
from treestrap.engine.quick_move import material_score, position_board, quick_move
from treestrap.engine.uci import UciEngine


def test_quick_move_finds_a_mate_in_one_and_takes_a_hanging_queen() -> None:
    assert quick_move(chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"), 0.5) == chess.Move.from_uci(
        "a1a8"
    )
    assert quick_move(chess.Board("4k3/8/8/3q4/8/8/3R4/3K4 w - - 0 1"), 0.5) == chess.Move.from_uci(
        "d2d5"
    )


def test_quick_move_has_nothing_to_play_in_mate_or_stalemate() -> None:
    assert quick_move(chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"), 0.1) is None  # mated
    assert quick_move(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), 0.1) is None  # stalemate


@pytest.mark.parametrize("seed", range(3))
def test_quick_move_is_legal_even_with_no_time(seed: int) -> None:
    import random

    rng = random.Random(seed)
    board = chess.Board()
    for _ in range(40):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
        move = quick_move(board, 0.0 if board.ply() % 2 else 0.01)
        assert (move is None) == board.is_game_over() or move in board.legal_moves


def test_material_score_is_for_the_side_to_move() -> None:
    board = chess.Board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    assert material_score(board) == 500
    board.turn = chess.BLACK
    assert material_score(board) == -500


def test_position_board_follows_the_position_command() -> None:
    board = position_board(["startpos", "moves", "e2e4", "e7e5", "g1f3"])
    assert board.fen() == "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"
    assert position_board(["fen", *fen.split(), "moves", "a1a7"]).piece_at(chess.A7)


class _Lines(io.StringIO):
    """An output stream that remembers its lines and signals each bestmove."""

    def __init__(self) -> None:
        super().__init__()
        self.bestmove = threading.Event()

    def write(self, text: str) -> int:
        if text.startswith("bestmove"):
            self.bestmove.set()
        return super().write(text)


def test_a_cold_session_answers_a_timed_go_quickly_and_waits_on_a_depth_go(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    compiled = threading.Event()
    real_warm_up = UciEngine._warm_up

    def held_warm_up(self: UciEngine) -> None:
        compiled.wait(60)  # the kernels "compile" until the test lets them
        real_warm_up(self)

    monkeypatch.setattr(UciEngine, "_warm_up", held_warm_up)
    monkeypatch.setattr(uci_module, "READY_WAIT", 0.2)
    out = _Lines()
    session = UciEngine(out)
    try:
        start = time.monotonic()
        session.handle("isready")  # answered after READY_WAIT, not after the compile
        assert out.getvalue().endswith("readyok\n") and time.monotonic() - start < 5
        session.handle("position startpos moves e2e4 e7e5")
        session.handle("go wtime 3000 btime 3000")
        assert out.bestmove.wait(10)
        lines = out.getvalue().splitlines()
        quick = "info string the search is still compiling (first start): a quick search"
        assert f"{quick} with this engine's evaluation" in lines  # the default is a network
        move = chess.Move.from_uci(lines[-1].split()[1])
        assert move in position_board(["startpos", "moves", "e2e4", "e7e5"]).legal_moves

        out.bestmove.clear()
        session.handle("go depth 2")  # no clock: waits for the compiled search
        assert not out.bestmove.wait(0.5)
        compiled.set()
        assert out.bestmove.wait(120)
        assert any(line.startswith("info depth 2 ") for line in out.getvalue().splitlines())
    finally:
        compiled.set()
        session.shutdown()


def test_only_a_go_on_a_clock_gets_a_quick_move() -> None:
    from treestrap.engine.quick_move import QUICK_MOVE_SECONDS, quick_move_time
    from treestrap.search.timeman import SearchLimits

    board = chess.Board()
    assert quick_move_time(board, SearchLimits(depth=3), 0.05) is None
    assert quick_move_time(board, SearchLimits(infinite=True), 0.05) is None
    assert quick_move_time(board, SearchLimits(movetime=60.0), 0.05) is None  # time to wait
    assert quick_move_time(board, SearchLimits(movetime=0.5), 0.05) == pytest.approx(0.45)
    clock = SearchLimits(wtime=300.0, btime=300.0)
    assert quick_move_time(board, clock, 0.05) == QUICK_MOVE_SECONDS
    assert quick_move_time(None, clock, 0.05) is None  # a position python-chess refuses
