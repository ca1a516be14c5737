"""The linear features of Connect Four: the compiled extraction against a slow
recount from the board in plain Python, the gradient against a finite difference of the
linear evaluation, the network inputs, and the hand-written evaluation."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from test_connect4_board import grid, random_game

from treestrap.connect4.bits import HEIGHT, WIDTH, lines
from treestrap.connect4.board import NOT_TERMINAL, parse_moves, terminal_value
from treestrap.connect4.features import (
    BIAS,
    COLUMNS,
    MAX_ACTIVE,
    SIZE,
    STACKED,
    count_index,
    dense_features,
    extract,
    feature_names,
    gradient,
    line_index,
    linear_value,
    new_buffers,
    threat_index,
)
from treestrap.connect4.hand_eval import hand_value, hand_weights
from treestrap.connect4.inputs import INPUT_NB, active_inputs, dense_inputs, input_names


def slow_features(g: list[list[int]], mover: int) -> np.ndarray:
    """phi(s) recounted from ``grid[col][row]`` (0 empty, 1 first, 2 second player)
    by the definitions in the features module's docstring, cell by cell."""
    own, opp = mover + 1, 2 - mover
    phi = np.zeros(SIZE)
    heights = [sum(1 for c in column if c) for column in g]

    def playable(col: int, row: int) -> bool:
        return heights[col] == row

    for i, cells in enumerate(lines()):
        at = [(b // 7, b % 7) for b in cells]
        mine = sum(g[c][r] == own for c, r in at)
        theirs = sum(g[c][r] == opp for c, r in at)
        if (mine > 0) == (theirs > 0) or mine + theirs == 4:
            continue
        side, k = (0, mine) if mine else (1, theirs)
        p = sum(g[c][r] == 0 and playable(c, r) for c, r in at)
        phi[line_index(i, side, k, p)] = 1
        phi[count_index(side, k, p)] += 1

    def makes_four(player: int, col: int, row: int) -> bool:
        for cells in lines():
            at = [(b // 7, b % 7) for b in cells]
            if (col, row) in at and all(g[c][r] == player for c, r in at if (c, r) != (col, row)):
                return True
        return False

    for side, player in enumerate((own, opp)):
        threat = [[False] * HEIGHT for _ in range(WIDTH)]
        for col in range(WIDTH):
            for row in range(HEIGHT):
                threat[col][row] = g[col][row] == 0 and makes_four(player, col, row)
        for col in range(WIDTH):
            for row in range(HEIGHT):
                if threat[col][row] and not playable(col, row):
                    odd = row % 2 == 0  # rows count from 1 at the bottom
                    phi[threat_index(mover == 0, side, odd)] += 1
                if threat[col][row] and row + 1 < HEIGHT and threat[col][row + 1]:
                    phi[STACKED + side] += 1
        for col in range(WIDTH):
            phi[COLUMNS + side * WIDTH + col] = sum(c == player for c in g[col])
    phi[BIAS] = 1
    phi[BIAS + 1] = 1 if mover == 0 else 0
    return phi


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_features_match_a_slow_recount(seed: int) -> None:
    pos = random_game(random.Random(seed), stop_early=0.06)  # finished games too
    idx, val = new_buffers()
    n = extract(pos, idx, val)
    assert n <= MAX_ACTIVE
    assert len(set(idx[:n].tolist())) == n  # each index once
    assert np.all(val[:n] != 0)
    expected = slow_features(grid(pos), int(pos.st[0]) & 1)
    np.testing.assert_array_equal(dense_features(pos), expected)


def test_a_known_position_by_hand() -> None:
    # x (first) on columns 1, 2, 3 of the bottom row, o three in column 7; x to move
    pos = parse_moves("172737")
    phi = dense_features(pos)
    # the bottom row 1-4: three own discs and the fourth cell playable: a win on the move
    assert phi[count_index(0, 3, 1)] == 1
    # column 7 rows 1-4: three opp discs and the cell on top playable: to block
    assert phi[count_index(1, 3, 1)] == 1
    assert phi[COLUMNS + 3] == 0 and phi[COLUMNS + 0] == 1 and phi[COLUMNS + WIDTH + 6] == 3
    assert phi[BIAS] == 1 and phi[BIAS + 1] == 1
    names = feature_names()
    assert len(names) == SIZE == len(set(names))
    assert names[count_index(0, 3, 1)] == "lines.own.k3.p1"


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_gradient_is_a_finite_difference_of_the_linear_value(seed: int) -> None:
    rng = random.Random(seed)
    pos = random_game(rng, stop_early=0.06)
    if terminal_value(pos) != NOT_TERMINAL:
        return
    theta = np.array([rng.uniform(-1, 1) for _ in range(SIZE)])
    idx, val = new_buffers()
    n = gradient(pos, idx, val)
    grad = np.zeros(SIZE)
    np.add.at(grad, idx[:n], val[:n])
    base = linear_value(pos, theta, *new_buffers())
    h = 1e-3
    for i in sorted({int(j) for j in idx[:n]} | {rng.randrange(SIZE) for _ in range(20)}):
        bumped = theta.copy()
        bumped[i] += h
        diff = (linear_value(pos, bumped, *new_buffers()) - base) / h
        assert abs(diff - grad[i]) < 1e-6, (i, diff, grad[i])


def test_network_inputs_are_the_cells_and_the_side_to_move() -> None:
    pos = parse_moves("4453")  # x: d1, e1; o: d2, c1; x to move
    dense = np.zeros(INPUT_NB, dtype=np.float32)
    dense_inputs(pos, dense)
    names = input_names()
    assert len(names) == INPUT_NB == 85
    on = sorted(names[i] for i in np.flatnonzero(dense))
    assert on == ["first-to-move", "first.c4r1", "first.c5r1", "second.c3r1", "second.c4r2"]
    idx = np.zeros(INPUT_NB, dtype=np.int64)
    n = active_inputs(parse_moves("44531"), idx)
    assert "first-to-move" not in [names[i] for i in idx[:n]] and n == 5


def test_the_hand_evaluation_likes_what_players_like() -> None:
    theta = hand_weights()
    assert theta.shape == (SIZE,)
    # a win on the move is worth more than anything the opponent holds
    assert hand_value(parse_moves("172737")) > 50
    # x, to move after 172737, blocks o's column 7 or does not: o likes the second
    assert hand_value(parse_moves("1727377")) < 0 < hand_value(parse_moves("1727371"))
    # the centre opening is the best first move by the hand evaluation too (for the
    # player who made it, so the lowest value for the opponent to move)
    values = [hand_value(parse_moves(str(c + 1))) for c in range(WIDTH)]
    assert int(np.argmin(values)) == 3
