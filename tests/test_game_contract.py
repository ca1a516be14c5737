"""The game contract (games/contract.py) filled by chess and by Connect Four: random
games through its functions alone, and the search a rule learns from."""

from __future__ import annotations

import random

import numpy as np
import pytest

from treestrap.evaluation.presets import hand_set_model
from treestrap.games.connect4_model import hand_written_connect4_model
from treestrap.games.contract import ALPHABETA, MINIMAX, SearchPlan
from treestrap.games.registry import get_game


def _model(name: str):  # type: ignore[no-untyped-def]
    return hand_set_model() if name == "chess" else hand_written_connect4_model()


@pytest.mark.parametrize("name", ["chess", "connect4"])
def test_random_games_through_the_contract(name: str) -> None:
    game = get_game(name)
    ev = _model(name).evaluator()
    rng = random.Random(7)
    buffer = game.new_move_buffer()
    for _ in range(20):
        pos = game.start_position()
        keys = [game.key(pos)]
        for _ply in range(80):
            value, why = game.terminal(pos, buffer)
            n = game.legal_moves(pos, buffer)
            if value is not None:
                assert value in (-1.0, 0.0) and why
                break
            assert n > 0 and why == ""
            side = game.side_to_move(pos)
            game.make_move(pos, int(buffer[rng.randrange(n)]))
            assert game.side_to_move(pos) == 1 - side
            keys.append(game.key(pos))
        h, k = game.evaluate_gradient(pos, ev)
        assert h == game.evaluate(pos, ev) and k > 0
        # the gradient of a linear model is its features: theta . phi = H
        assert np.dot(ev.weights[ev.idx[:k]], ev.val[:k]) == pytest.approx(h)
        copy, end = game.copy_position(pos), game.key(pos)
        while len(keys) > 1:  # unmake restores every earlier hash
            game.unmake_move(pos)
            keys.pop()
            assert game.key(pos) == keys[-1]
        assert game.key(copy) == end  # a copy is a position of its own


@pytest.mark.parametrize("name", ["chess", "connect4"])
@pytest.mark.parametrize("kind", [ALPHABETA, MINIMAX])
def test_the_learning_search_returns_a_tree_the_rules_read(name: str, kind: str) -> None:
    game = get_game(name)
    ev = _model(name).evaluator()
    plan = SearchPlan(kind, tt_bits=14, depth=2, walk=True, minimax_nodes=300, minimax_qnodes=5)
    search = game.learning_search(plan)
    pos = game.start_position()
    result, tree = search.search(pos, ev, None)
    assert tree is not None and int(tree.meta[0]) > 1
    assert tree.parent[0] == -1 and tree.key[0] == game.key(pos)
    buffer = game.new_move_buffer()
    legal = buffer[: game.legal_moves(pos, buffer)].tolist()
    assert result.best_move in legal and result.pv[0] == result.best_move
    if kind == MINIMAX:  # exact values: the root's is the search's
        assert tree.lower[0] == tree.upper[0] == result.value
    else:
        assert tree.lower[0] <= result.value <= tree.upper[0]
