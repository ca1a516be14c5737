"""One game's PGN text -> its moves and label, or the reason it is skipped.

A malformed game never stops a build: it is skipped and counted under one of these
reasons (the manifest and the summary list them):

``truncated``      the text ends without a result marker (a cut file, a broken stream)
``bad_fen``        a FEN tag python-chess cannot read
``illegal_move``   a move that is not legal in its position
``bad_move``       a move that is not SAN at all, or ambiguous
``variant``        a Variant tag other than standard chess
``no_moves``       no moves at all (a stray header block)
``min_plies``      fewer plies than ``--min-plies``
``undecided``      no 1-0, 0-1 or 1/2-1/2 result, with ``--undecided drop``
``result_contradicts_board``  the game ends in mate but the result says otherwise

plus the tag filters of :mod:`.filters`, and ``unsupported_position`` for a start
position our core refuses (:mod:`.chunk` finds that one while encoding).
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import chess
import chess.pgn

from treestrap.supervised.dataset.filters import GameFilter
from treestrap.supervised.dataset.labels import (
    DRAW,
    RESULT_TOKENS,
    label_of_outcome,
    label_of_result,
)

TRUNCATED, BAD_FEN, ILLEGAL_MOVE, BAD_MOVE = "truncated", "bad_fen", "illegal_move", "bad_move"
VARIANT, NO_MOVES, MIN_PLIES, UNDECIDED = "variant", "no_moves", "min_plies", "undecided"
RESULT_CONTRADICTS_BOARD = "result_contradicts_board"
UNSUPPORTED_POSITION = "unsupported_position"
#: The reasons that say a game is broken (or not chess), not that a filter dropped it: a
#: file whose every game is skipped for one of these is not a usable collection.
UNUSABLE = frozenset(
    {
        TRUNCATED,
        BAD_FEN,
        ILLEGAL_MOVE,
        BAD_MOVE,
        VARIANT,
        NO_MOVES,
        RESULT_CONTRADICTS_BOARD,
        UNSUPPORTED_POSITION,
    }
)

_STANDARD = ("", "standard", "chess", "normal", "from position")


@dataclass
class ParsedGame:
    """A game that passed every check."""

    headers: chess.pgn.Headers
    start_fen: str
    moves_uci: list[str]
    final: chess.Board  # the last position, with the game's moves on its stack
    label: int  # the class of the PGN result (an undecided game kept: a draw)


class _QuietBuilder(chess.pgn.GameBuilder):
    """python-chess logs every PGN error; here they are collected and counted instead."""

    def handle_error(self, error: Exception) -> None:
        self.game.errors.append(error)


def ends_with_result(text: str) -> bool:
    """Whether the movetext ends with a termination marker, as a complete game does."""
    words = text.split()
    return bool(words) and words[-1] in RESULT_TOKENS


def parse_game(
    text: str, game_filter: GameFilter, min_plies: int, undecided: str
) -> ParsedGame | str:
    """The parsed game, or the reason it is skipped (see the module docstring)."""
    if not ends_with_result(text):
        return TRUNCATED
    headers = chess.pgn.read_headers(io.StringIO(text))
    if headers is None:
        return NO_MOVES
    rejected = game_filter.reject(headers)
    if rejected:
        return rejected
    if headers.get("Variant", "").strip().lower() not in _STANDARD:
        return VARIANT
    game = chess.pgn.read_game(io.StringIO(text), Visitor=_QuietBuilder)
    if game is None:
        return NO_MOVES
    if game.errors:
        return _error_reason(game.errors[0])
    try:
        board = game.board()
    except ValueError:
        return BAD_FEN
    start_fen = board.fen()
    moves = list(game.mainline_moves())
    if not moves:
        return NO_MOVES
    if len(moves) < min_plies:
        return MIN_PLIES
    for move in moves:
        board.push(move)
    label = label_of_result(headers.get("Result"))
    if label is None:
        label = label_of_result(text.split()[-1])
    if label is None:
        if undecided == "drop":
            return UNDECIDED
        label = DRAW
    if board.is_checkmate() and label != label_of_outcome(board.outcome()):  # type: ignore[arg-type]
        return RESULT_CONTRADICTS_BOARD
    return ParsedGame(headers, start_fen, [m.uci() for m in moves], board, label)


def _error_reason(error: Exception) -> str:
    if isinstance(error, chess.IllegalMoveError):
        return ILLEGAL_MOVE
    if isinstance(error, chess.InvalidMoveError | chess.AmbiguousMoveError):
        return BAD_MOVE
    return BAD_FEN  # python-chess reports a broken FEN tag as a plain ValueError
