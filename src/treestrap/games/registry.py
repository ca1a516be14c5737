"""The games by name (:mod:`treestrap.games.names`): each one's contract."""

from __future__ import annotations

from treestrap.games.contract import Game
from treestrap.games.names import CHESS, CONNECT4, GAME_NAMES


def get_game(name: str) -> Game:
    """The contract of game ``name``; ``ValueError`` lists the games."""
    if name == CHESS:
        from treestrap.games.chess_game import CHESS_GAME

        return CHESS_GAME
    if name == CONNECT4:
        from treestrap.games.connect4_game import CONNECT4_GAME

        return CONNECT4_GAME
    raise ValueError(f"unknown game {name!r}: {', '.join(GAME_NAMES)}")
