"""A move in plain Python while the compiled search is still compiling.

A fresh ``treestrap uci`` with an empty compile cache needs about half a minute before
its search can run, and a GUI's clock (or python-chess's ten-second command timeout)
does not wait that long. Until the kernels are ready, a timed ``go`` is answered by this
small alpha-beta over python-chess boards: captures first,
iterative deepening until the time is spent. It scores its leaves with the engine's own
evaluation where that can be read in numpy (:mod:`treestrap.engine.quick_evaluation`),
else with material and a centre bonus. It plays legal, sensible moves, weaker than the
engine proper (a few thousand nodes a second); it is used only until the compile is done.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

import chess

from treestrap.search.timeman import SearchLimits, allocate

#: Centipawns of each piece type (index: python-chess's piece type, 1..6).
PIECE_VALUES = (0, 100, 320, 330, 500, 900, 0)
#: A checkmate, beyond any material count.
MATE_SCORE = 100_000
#: Centipawns for a knight, bishop or pawn on one of the sixteen central squares.
CENTRE_BONUS = 10
CENTRE = chess.SquareSet(
    (chess.BB_FILE_C | chess.BB_FILE_D | chess.BB_FILE_E | chess.BB_FILE_F)
    & (chess.BB_RANK_3 | chess.BB_RANK_4 | chess.BB_RANK_5 | chess.BB_RANK_6)
)
#: A quick move thinks at most this long ...
QUICK_MOVE_SECONDS = 1.0
#: ... and a ``go`` that may think this long or longer waits for the compiled search.
QUICK_WAIT_LIMIT = 30.0
#: Deepest iteration: a time limit ends the search long before on any real budget.
MAX_DEPTH = 8


class _OutOfTime(Exception):
    """Raised inside the search when its time is spent."""


def material_score(board: chess.Board) -> float:
    """Material and centre for the side to move, in centipawns."""
    score = 0
    for square, piece in board.piece_map().items():
        value = PIECE_VALUES[piece.piece_type]
        if square in CENTRE and piece.piece_type in (chess.PAWN, chess.KNIGHT, chess.BISHOP):
            value += CENTRE_BONUS
        score += value if piece.color == board.turn else -value
    return score


def _ordered(board: chess.Board, first: chess.Move | None) -> list[chess.Move]:
    """Legal moves: ``first``, then captures by the value taken, then the rest."""

    def key(move: chess.Move) -> int:
        if move == first:
            return -1_000_000
        victim = board.piece_type_at(move.to_square)
        return -PIECE_VALUES[victim] if victim else 0

    return sorted(board.legal_moves, key=key)


def _search(
    board: chess.Board,
    depth: int,
    alpha: float,
    beta: float,
    deadline: float,
    score: Callable[[chess.Board], float],
) -> float:
    if time.monotonic() >= deadline:
        raise _OutOfTime
    if board.is_checkmate():
        return -MATE_SCORE - depth  # a quicker mate scores more for the winner
    if board.is_stalemate() or board.is_insufficient_material():
        return 0
    if depth <= 0:
        return score(board)
    best = -MATE_SCORE * 2
    for move in _ordered(board, None):
        board.push(move)
        value = -_search(board, depth - 1, -beta, -alpha, deadline, score)
        board.pop()
        if value > best:
            best = value
        alpha = max(alpha, value)
        if alpha >= beta:
            break
    return best


def quick_move(
    board: chess.Board,
    seconds: float,
    score: Callable[[chess.Board], float] = material_score,
) -> chess.Move | None:
    """The best move found within ``seconds`` by a search whose leaves ``score`` rates
    (None when there is no legal move); the first legal move is the answer even when no
    iteration completes."""
    moves = list(board.legal_moves)
    if not moves:
        return None
    deadline = time.monotonic() + seconds
    best = moves[0]
    board = board.copy(stack=False)
    for depth in range(1, MAX_DEPTH + 1):
        try:
            alpha, choice = -MATE_SCORE * 2, best
            for move in _ordered(board, best):
                board.push(move)
                value = -_search(board, depth - 1, -MATE_SCORE * 2, -alpha, deadline, score)
                board.pop()
                if value > alpha:
                    alpha, choice = value, move
        except _OutOfTime:
            break
        best = choice
    return best


def quick_move_time(
    board: chess.Board | None, limits: SearchLimits, overhead: float
) -> float | None:
    """Seconds a quick move may think under a ``go``'s ``limits``; None when the ``go``
    should wait for the compiled search (no clock, or time enough to wait)."""
    if board is None or limits.infinite:
        return None
    limits = replace(limits, fullmove=board.fullmove_number)
    budget = allocate(limits, board.turn == chess.WHITE, overhead)
    if budget.soft is None or budget.soft >= QUICK_WAIT_LIMIT:
        return None
    return min(budget.soft, QUICK_MOVE_SECONDS)


def position_board(args: list[str]) -> chess.Board | None:
    """The python-chess board of ``position`` arguments that the UCI front end has
    accepted already; None for one python-chess reads otherwise."""
    try:
        return _board_of(args)
    except ValueError:
        return None


def _board_of(args: list[str]) -> chess.Board:
    if args[0] == "startpos":
        board, rest = chess.Board(), args[1:]
    else:
        end = args.index("moves") if "moves" in args else len(args)
        board, rest = chess.Board(" ".join(args[1:end])), args[end:]
    for text in rest[1:]:
        board.push_uci(text)
    return board
