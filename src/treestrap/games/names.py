"""The built-in games' names, numba-free so the command line lists them instantly
(the table itself: :mod:`treestrap.games.registry`)."""

from __future__ import annotations

from treestrap.games.registry import DEFAULT_GAME, game_names

GAME_NAMES = game_names()

__all__ = ["DEFAULT_GAME", "GAME_NAMES"]
