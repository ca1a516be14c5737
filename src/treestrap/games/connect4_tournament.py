"""Connect Four's tournaments of in-process players: its
:class:`~treestrap.games.contract.TournamentPlay` (the players of
:mod:`treestrap.games.connect4_players`, random openings, the PGN record).

Openings are a few uniformly random plies, seeded: none ends the game, and the side to
move after them cannot win at once (as in the reference positions), so neither side
starts lost on the spot. A record is a PGN game whose moves are columns 1-7, White (the
first player) moving first.
"""

from __future__ import annotations

import random
from functools import partial

import numpy as np

from treestrap.connect4.board import (
    LOSS,
    MAX_MOVES,
    NOT_TERMINAL,
    Position,
    can_play,
    format_moves,
    legal_moves,
    make_move,
    new_position,
    terminal_value,
    unmake_move,
)
from treestrap.games.connect4_facts import CONNECT4_FACTS
from treestrap.games.connect4_players import FORMS, make_players, parse_connect4_players
from treestrap.games.contract import TournamentPlay
from treestrap.games.move_pgn import move_pgn

#: Random plies before a tournament game (few: the players decide the game).
DEFAULT_OPENING_PLIES = 4
MAX_OPENING_PLIES = 30
#: Tries at a random opening before giving up (each try is cheap; few fail).
OPENING_TRIES = 1000


def can_win_now(pos: Position) -> bool:
    """Whether the side to move has a column that makes four."""
    buf = np.zeros(MAX_MOVES, dtype=np.int64)
    for i in range(legal_moves(pos, buf)):
        make_move(pos, int(buf[i]))
        won = terminal_value(pos) == LOSS
        unmake_move(pos)
        if won:
            return True
    return False


def random_opening(rng: random.Random, plies: int) -> str:
    """``plies`` random columns (a move string, 1-7) after which the game goes on and
    the side to move cannot win at once."""
    for _ in range(OPENING_TRIES):
        pos = new_position()
        for _ in range(plies):
            cols = [c for c in range(7) if can_play(pos, c)]
            make_move(pos, rng.choice(cols))
            if terminal_value(pos) != NOT_TERMINAL:
                break
        else:
            if not can_win_now(pos):
                return format_moves(pos)
    raise ValueError(f"no opening of {plies} plies found in {OPENING_TRIES} tries")


def random_openings(count: int, plies: int, seed: int) -> list[str]:
    """``count`` openings, the same for the same seed."""
    rng = random.Random(f"connect4-openings/{seed}/{plies}")
    return [random_opening(rng, plies) for _ in range(count)]


def opening_columns(count: int, plies: int, seed: int) -> list[list[int]]:
    """:func:`random_openings` as columns 0-6."""
    return [[int(c) - 1 for c in opening] for opening in random_openings(count, plies, seed)]


def fixed_depth(tc: str) -> int:
    """The search depth of a learning curve's ``tc`` (``depth=N``); ``ValueError`` for
    any other limit (Connect Four's players are fixed-depth searches)."""
    key, _, value = tc.partition("=")
    if key != "depth" or not value.isdigit() or int(value) < 1:
        raise ValueError(f"a Connect Four curve plays at a fixed depth (tc depth=N), not {tc!r}")
    return int(value)


def weights_player(name: str, path: str, tc: str) -> str:
    """The spec of a search over the weight file ``path`` at ``tc``'s depth."""
    depth = fixed_depth(tc)
    if ":" in path:  # a player spec splits its options at ':'
        raise ValueError(f"a Connect Four curve cannot name a weight file with ':': {path}")
    return f"{name}={path}:depth={depth}"


CONNECT4_TOURNAMENT = TournamentPlay(
    parse_players=parse_connect4_players,
    make_players=make_players,
    openings=opening_columns,
    record=partial(move_pgn, CONNECT4_FACTS.title),
    weights_player=weights_player,
    player_forms=FORMS,
    opening_plies=DEFAULT_OPENING_PLIES,
    max_opening_plies=MAX_OPENING_PLIES,
)
