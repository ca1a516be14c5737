"""OpenSpiel's ``connect_four`` as the oracle of the rules: thousands of random games
played in lockstep, the legal moves, the end and the result compared after every move,
and perft counts of random positions counted by both.

OpenSpiel (pip package ``open-spiel``, in the ``dev`` extra) numbers columns 0-6 from
the left as we do and player 0 moves first. Without it these tests skip on a user's
machine and fail under ``CI=true`` (see ``conftest.require``).
"""

from __future__ import annotations

import importlib.util
import random
from typing import Any

import numpy as np
import pytest
from conftest import require

from treestrap.connect4.board import (
    DRAW,
    LOSS,
    MAX_MOVES,
    NOT_TERMINAL,
    format_moves,
    legal_moves,
    make_move,
    new_position,
    parse_moves,
    terminal_value,
)
from treestrap.connect4.perft import perft

GAMES = 3000


@pytest.fixture(scope="module")
def game() -> Any:
    require(
        importlib.util.find_spec("pyspiel") is not None,
        "OpenSpiel is not installed: pip install open-spiel (it is in the dev extra)",
    )
    import pyspiel

    return pyspiel.load_game("connect_four")


def openspiel_perft(state: Any, depth: int) -> int:
    """Perft over OpenSpiel's states: a terminal state has no moves below it."""
    if state.is_terminal():
        return 0
    actions = state.legal_actions()
    if depth == 1:
        return len(actions)
    return sum(openspiel_perft(state.child(a), depth - 1) for a in actions)


def openspiel_state(game: Any, moves: str) -> Any:
    state = game.new_initial_state()
    for ch in moves:
        state.apply_action(int(ch) - 1)
    return state


def test_random_games_agree_move_by_move(game: Any) -> None:
    rng = random.Random(2029)
    buf = np.zeros(MAX_MOVES, dtype=np.int64)
    results = {LOSS: 0, DRAW: 0}
    for _ in range(GAMES):
        pos, state = new_position(), game.new_initial_state()
        while True:
            n = legal_moves(pos, buf)
            ours = sorted(int(c) for c in buf[:n])
            assert ours == sorted(state.legal_actions()), format_moves(pos)
            value = terminal_value(pos)
            assert (value != NOT_TERMINAL) == state.is_terminal(), format_moves(pos)
            if state.is_terminal():
                break
            assert state.current_player() == int(pos.st[0]) & 1
            col = rng.choice(ours)
            make_move(pos, col)
            state.apply_action(col)
        results[value] += 1
        returns = state.returns()
        if value == DRAW:
            assert returns == [0.0, 0.0]
        else:
            # the player who made the last move won
            winner = (int(pos.st[0]) - 1) & 1
            assert returns[winner] == 1.0 and returns[1 - winner] == -1.0
    assert results[LOSS] > 0 and results[DRAW] > 0  # both endings were exercised


def test_perft_of_random_positions_agrees(game: Any) -> None:
    rng = random.Random(29)
    buf = np.zeros(MAX_MOVES, dtype=np.int64)
    checked = 0
    while checked < 40:
        pos = new_position()
        for _ in range(rng.randrange(4, 30)):
            n = legal_moves(pos, buf)
            if n == 0:
                break
            make_move(pos, int(buf[rng.randrange(n)]))
        moves = format_moves(pos)
        state = openspiel_state(game, moves)
        for depth in range(1, 5):
            assert perft(pos, depth) == openspiel_perft(state, depth), (moves, depth)
        checked += 1


def test_the_written_perft_counts_are_openspiels(game: Any) -> None:
    """The counts test_connect4_board.py holds, recounted by OpenSpiel (seconds)."""
    from test_connect4_board import OPENSPIEL_PERFT

    for moves, counts in OPENSPIEL_PERFT.items():
        state = openspiel_state(game, moves)
        recounted = [openspiel_perft(state, depth) for depth in range(1, len(counts) + 1)]
        assert recounted == counts, moves
        assert [perft(parse_moves(moves), d) for d in range(1, len(counts) + 1)] == counts
