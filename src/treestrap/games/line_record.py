"""A game in play recorded as one line of text (a game without PGN: Connect Four): its
number, its moves as the game writes them, joined (the opening's included), the result
from the first player's view, the opening's moves and why it ended, tab-separated."""

from __future__ import annotations

from typing import Any

from treestrap.games.records import RecordTags


class LineRecord:
    """The game from ``pos`` (a fresh start position) after the ``opening`` moves;
    ``move_text`` writes a move of a position."""

    engine_view = None  # no external engine plays these games

    def __init__(self, pos: Any, opening: list[int], move_text: Any, make_move: Any) -> None:
        self.pos = pos
        self._move_text = move_text
        self._make_move = make_move
        texts = []
        for move in opening:
            texts.append(move_text(pos, move))
            make_move(pos, move)
        self._first_ply = len(opening)
        self.opening = "".join(texts)
        self._moves: list[str] = []

    def plies(self) -> int:
        return self._first_ply + len(self._moves)

    def play(self, move: int) -> None:
        self._moves.append(self._move_text(self.pos, move))
        self._make_move(self.pos, move)

    def text(self, tags: RecordTags) -> str:
        played = self.opening + "".join(self._moves)
        return "\t".join((str(tags.number), played, tags.result, self.opening, tags.termination))
