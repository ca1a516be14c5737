"""A chess game in play, recorded as PGN (python-chess keeps the board the PGN is written
from, and that external engines read)."""

from __future__ import annotations

import chess
import chess.pgn

from treestrap.core.makemove import make_move
from treestrap.core.move import move_to_uci
from treestrap.core.notation import parse_fen, parse_uci_move
from treestrap.games.records import RecordTags


class ChessRecord:
    """The game from ``fen`` after the moves pushed on ``board`` (a board set up from
    that FEN), its opening named ``opening``."""

    def __init__(self, fen: str, board: chess.Board, opening: str) -> None:
        self.engine_view = board
        self.opening = opening
        self.pos = parse_fen(fen)
        for move in board.move_stack:
            make_move(self.pos, parse_uci_move(self.pos, move.uci()))

    def plies(self) -> int:
        return self.engine_view.ply()

    def play(self, move: int) -> None:
        self.engine_view.push(chess.Move.from_uci(move_to_uci(move)))
        make_move(self.pos, move)

    def text(self, tags: RecordTags) -> str:
        game = chess.pgn.Game.from_board(self.engine_view)
        game.headers.update(
            {
                "Event": tags.event,
                "Round": str(tags.number),
                "White": tags.first,
                "Black": tags.second,
                "Result": tags.result,
                "Opening": self.opening,
                "Termination": tags.termination,
            }
        )
        return str(game)
