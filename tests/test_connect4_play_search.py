"""Connect Four's playing search: its definition against a plain Python oracle, its
proven results against the exact solver's reference scores, the n-tuple evaluation from
bitboards against the model's own, and its node limit."""

from __future__ import annotations

import numpy as np
import pytest
from test_connect4_search import random_positions

from treestrap.connect4.bits import BOARD, BOTTOM, CELLS, ONE, winning_cells
from treestrap.connect4.board import (
    ST_PLY,
    Position,
    make_move,
    new_position,
    parse_moves,
    position_key,
    unmake_move,
)
from treestrap.connect4.evaluator import evaluate
from treestrap.connect4.ntuple import (
    columns_value,
    ntuple_buffer,
    random_walk_tuples,
    tuple_columns,
)
from treestrap.connect4.play_search import PlaySearch, plies_to_end, win_score
from treestrap.games.connect4_model import hand_written_connect4_model, random_connect4_model
from treestrap.games.connect4_players import load_model, parse_connect4_player
from treestrap.search.value import MATE, clip_value

REFERENCE = "connect4/solved-1000.txt"


def oracle(pos: Position, ev, depth: int) -> float:
    """The playing search's value by its definition, in plain Python: no pruning, no
    table. The mover cannot win with this disc; two opponent fours to stop, or only
    moves under an opponent's four, lose to the opponent's next disc; a single forced
    reply costs no depth."""
    ply = int(pos.st[ST_PLY])
    cur = pos.discs[ply & 1]
    mask = pos.discs[0] | pos.discs[1]
    playable = (mask + BOTTOM) & BOARD
    theirs = winning_cells(cur ^ mask, mask)
    forced = playable & theirs
    if forced:
        if forced & (forced - ONE):
            return -win_score(ply + 2)
        playable = forced
    playable &= ~(theirs >> ONE)
    if not playable:
        return -win_score(ply + 2)
    if ply >= CELLS - 2:
        return 0.0
    if depth <= 0 and not forced:
        return clip_value(float(evaluate(pos, ev)))
    best = -MATE
    for col in range(7):
        if int(playable) >> (col * 7) & 0x3F:
            make_move(pos, col)
            best = max(best, -oracle(pos, ev, depth - 1))
            unmake_move(pos)
    return best


def can_win_now(pos: Position) -> bool:
    ply = int(pos.st[ST_PLY])
    mask = pos.discs[0] | pos.discs[1]
    return bool(winning_cells(pos.discs[ply & 1], mask) & (mask + BOTTOM) & BOARD)


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_the_search_equals_its_definition(depth: int) -> None:
    ev = random_connect4_model(seed=depth).evaluator()
    checked = 0
    for pos in random_positions(30, seed=10 + depth, max_plies=30):
        if can_win_now(pos):
            continue
        search = PlaySearch(table_bits=14)  # a fresh table: no deeper result to reuse
        before = position_key(pos)
        result = search.search(pos, ev, depth)
        assert position_key(pos) == before
        assert result.value == oracle(pos, ev, depth)
        if result.value == -win_score(int(pos.st[ST_PLY]) + 2):
            continue  # lost to the next disc: every move is as bad (the oracle has no child)
        # the move it names reaches that value
        make_move(pos, result.best_move)
        assert -oracle(pos, ev, depth - 1) == result.value
        unmake_move(pos)
        checked += 1
    assert checked >= 20


def test_searched_to_the_end_it_finds_every_exact_score_and_a_best_move(reference_data) -> None:
    lines = reference_data(REFERENCE).read_text(encoding="utf-8").split("\n")
    ev = hand_written_connect4_model().evaluator()
    search = PlaySearch(table_bits=18)
    checked = 0
    for line in lines:
        if not line.strip():
            continue
        moves, *text = line.split()
        if len(moves) < 26:
            continue
        scores = [int(s) for s in text]
        best = max(scores)
        pos = parse_moves(moves)
        ply = len(moves)
        result = search.search(pos, ev, CELLS - ply)
        # the reference's score (22 - the winner's discs) as the disc that ends the game
        if best > 0:
            want = win_score(2 * (22 - best) - (1 if ply % 2 == 0 else 0))
        elif best < 0:
            want = -win_score(2 * (22 + best) - (1 if ply % 2 == 1 else 0))
        else:
            want = 0.0
        assert result.value == want, moves
        assert scores[result.best_move] == best, moves
        if best:
            assert plies_to_end(result.value, ply) > 0
        checked += 1
    assert checked > 50


def test_a_win_at_once_needs_no_search_and_a_lost_position_still_names_a_move() -> None:
    ev = hand_written_connect4_model().evaluator()
    search = PlaySearch(table_bits=12)
    won = search.search(parse_moves("112233"), ev, 3)  # column 4 makes four now
    assert (won.best_move, won.nodes, plies_to_end(won.value, 6)) == (3, 0, 1)
    # the second player faces three open in the bottom row: every move loses
    lost = search.search(parse_moves("33445"), ev, 3)
    assert lost.value == -win_score(7) and lost.best_move in (1, 5)  # blocks one end


def test_a_node_limit_stops_the_search() -> None:
    ev = hand_written_connect4_model().evaluator()
    search = PlaySearch(table_bits=14)
    stopped = search.search(parse_moves("44"), ev, 12, max_nodes=50)
    assert stopped.stopped and stopped.nodes == 50
    assert not search.search(parse_moves("44"), ev, 2, max_nodes=10_000).stopped


def test_tuples_read_column_by_column_equal_the_models_evaluation() -> None:
    shipped = load_model(parse_connect4_player("ntuple")).evaluator()
    rng = np.random.default_rng(3)
    tuples = random_walk_tuples(9, 5, seed=3)
    small = ntuple_buffer(tuples, rng.normal(size=9 * 4**5))
    for w in (shipped.weights, small):
        form = tuple_columns(w)
        assert form.tables.size < w.size / 4  # only the patterns a board can show
        for pos in [new_position(), *random_positions(60, seed=4, max_plies=42)]:
            want = evaluate(pos, shipped._replace(weights=w))
            assert columns_value(pos, form) == want  # to the last bit


def test_an_ntuple_model_searches_as_through_its_own_evaluation() -> None:
    # The column form is the search's fast path; the model's evaluation is the oracle.
    ev = load_model(parse_connect4_player("ntuple")).evaluator()
    for pos in random_positions(8, seed=5, max_plies=20):
        if can_win_now(pos):
            continue
        assert PlaySearch(table_bits=14).search(pos, ev, 3).value == oracle(pos, ev, 3)
