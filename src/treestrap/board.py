"""``Board``: a small, friendly facade over the compiled core.

>>> board = Board()
>>> len(board.legal_moves())
20
>>> board.push("e2e4")
>>> board.fen()
'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'
>>> for move in ["f7f6", "d2d4", "g7g5", "d1h5"]:
...     board.push(move)
>>> board.status()
'checkmate'
>>> board.pop()
'd1h5'
>>> board.to_chess().is_valid()
True
"""

from __future__ import annotations

import chess

from treestrap.core.makemove import make_move, unmake_move
from treestrap.core.move import move_to_uci
from treestrap.core.notation import (
    STARTING_FEN,
    format_fen,
    legal_moves,
    parse_fen,
    parse_uci_move,
)
from treestrap.core.position import MAX_HISTORY, ST_PLY, ST_SIDE, Position, current_key, in_check
from treestrap.core.status import STATUS_NAMES, game_status, new_move_buffer


class Board:
    """A chess position with its move history. Moves are UCI strings."""

    def __init__(self, fen: str = STARTING_FEN) -> None:
        self.pos: Position = parse_fen(fen)
        self._root_fen = format_fen(self.pos)
        self._moves: list[int] = []

    @classmethod
    def from_chess(cls, board: chess.Board) -> Board:
        """The same position and history as a python-chess board."""
        ours = cls(board.root().fen(en_passant="fen"))
        for move in board.move_stack:
            ours.push(move.uci())
        return ours

    def fen(self) -> str:
        return format_fen(self.pos)

    @property
    def turn(self) -> str:
        return "white" if self.pos.st[ST_SIDE] == 0 else "black"

    @property
    def key(self) -> int:
        """Polyglot Zobrist key (equals ``chess.polyglot.zobrist_hash``)."""
        return int(current_key(self.pos))

    @property
    def move_stack(self) -> list[str]:
        return [move_to_uci(m) for m in self._moves]

    def legal_moves(self) -> list[str]:
        return [move_to_uci(m) for m in legal_moves(self.pos)]

    def is_check(self) -> bool:
        return bool(in_check(self.pos))

    def push(self, uci: str) -> None:
        """Play a legal move; ``ValueError`` if it is malformed or illegal."""
        if self.pos.st[ST_PLY] >= MAX_HISTORY:
            raise ValueError(f"game too long: at most {MAX_HISTORY} plies are kept")
        move = parse_uci_move(self.pos, uci)
        make_move(self.pos, move)
        self._moves.append(move)

    def pop(self) -> str:
        """Take back the last move and return it; ``IndexError`` if there is none."""
        if not self._moves:
            raise IndexError("pop from a board with no moves played")
        unmake_move(self.pos)
        return move_to_uci(self._moves.pop())

    def status(self) -> str:
        """'ongoing', 'checkmate', 'stalemate', 'insufficient material',
        'fifty-move rule' or 'threefold repetition'."""
        return STATUS_NAMES[game_status(self.pos, new_move_buffer())]

    def to_chess(self) -> chess.Board:
        """A python-chess board with the same start position and move history."""
        board = chess.Board(self._root_fen)
        for uci in self.move_stack:
            board.push_uci(uci)
        return board

    def __str__(self) -> str:
        return str(chess.Board(self.fen()))

    def __repr__(self) -> str:
        return f"Board({self.fen()!r})"
