"""The one table of games: each registered once by its
:class:`~treestrap.games.facts.GameFacts`, its compiled
:class:`~treestrap.games.contract.Game` loaded on first use.

Listing the games and reading their facts compiles nothing, so the command line starts
at once. A test may :func:`register` a game of its own.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from treestrap.games.chess_facts import CHESS_FACTS
from treestrap.games.connect4_facts import CONNECT4_FACTS
from treestrap.games.facts import GameFacts

if TYPE_CHECKING:  # the contract's module compiles; the table must not
    from treestrap.games.contract import Game

_FACTS: dict[str, GameFacts] = {f.name: f for f in (CHESS_FACTS, CONNECT4_FACTS)}
_GAMES: dict[str, Game] = {}

#: The game of every command unless told otherwise.
DEFAULT_GAME = CHESS_FACTS.name


def game_names() -> tuple[str, ...]:
    """The registered games, the default first."""
    return tuple(_FACTS)


def game_facts(name: str) -> GameFacts:
    """The facts of game ``name``; ``ValueError`` lists the games."""
    if name not in _FACTS:
        raise ValueError(f"unknown game {name!r}: {', '.join(_FACTS)}")
    return _FACTS[name]


def shipped_preset_file(name: str) -> str | None:
    """The package data file of a game's shipped preset ``name`` (None: no game ships
    one of that name)."""
    for facts in _FACTS.values():
        if name in facts.presets:
            return facts.presets[name]
    return None


def get_game(name: str) -> Game:
    """The compiled contract of game ``name``; ``ValueError`` lists the games."""
    facts = game_facts(name)
    if name not in _GAMES:
        module, _, attribute = facts.contract.partition(":")
        _GAMES[name] = getattr(importlib.import_module(module), attribute)
    return _GAMES[name]


def register(facts: GameFacts, game: Game | None = None) -> None:
    """Add a game to the table (a test's own game); ``game`` given, its contract is not
    imported from ``facts.contract``."""
    _FACTS[facts.name] = facts
    if game is not None:
        _GAMES[facts.name] = game


def unregister(name: str) -> None:
    """Take a game out of the table again (after a test)."""
    _FACTS.pop(name, None)
    _GAMES.pop(name, None)
