"""The conformance suite: what every registered game's contract must do, run over every
game the registry holds (a game registered by the test suite itself included).

Random playthroughs by the contract's own moves and end; make/unmake round trips that
restore the position as the contract shows it (hash, side to move, end, moves); a move's
text read back as the move; a random network's compiled evaluation equal to its torch
twin; and one short training run of every rule, each of which must write finite
weights that load back.
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest
from conftest import require_module

from treestrap.games.contract import Game
from treestrap.games.registry import game_facts, game_names, get_game
from treestrap.learn.rules import RULES

#: A network's output ``z`` is this many of the game's units for the first player.
UNITS_PER_LOGIT = 400.0 / math.log(10.0)
#: Random games a playthrough check plays per game, and their most plies.
GAMES, PLIES = 6, 60

GAMES_UNDER_TEST = list(game_names())


def _positions(game: Game, seed: int, plies: int = PLIES) -> list[Any]:
    """Copies of the positions of one random game (its start included)."""
    rng = random.Random(seed)
    pos = game.start_position()
    buffer = game.new_move_buffer()
    seen = [game.copy_position(pos)]
    for _ in range(plies):
        if game.terminal(pos, buffer)[0] is not None:
            break
        n = game.legal_moves(pos, buffer)
        game.make_move(pos, int(buffer[rng.randrange(n)]))
        seen.append(game.copy_position(pos))
    return seen


def _seen(game: Game, pos: Any, buffer: np.ndarray) -> tuple[Any, ...]:
    """What the contract shows of a position: its hash, side to move, end and moves (a
    position's history arrays past its ply are the game's own scratch)."""
    moves = tuple(sorted(int(m) for m in buffer[: game.legal_moves(pos, buffer)]))
    return game.key(pos), game.side_to_move(pos), game.terminal(pos, buffer), moves


@pytest.mark.parametrize("name", GAMES_UNDER_TEST)
def test_random_playthroughs_keep_the_rules(name: str) -> None:
    game = get_game(name)
    buffer = game.new_move_buffer()
    ended = 0
    for seed in range(GAMES):
        rng = random.Random(seed)
        pos = game.start_position()
        for ply in range(10 * PLIES):
            value, why = game.terminal(pos, buffer)
            if value is not None:
                assert value in (-1.0, 0.0, 1.0) and why, (name, seed, ply)
                ended += 1
                break
            n = game.legal_moves(pos, buffer)
            assert 0 < n <= len(buffer), (name, seed, ply)
            moves = [int(m) for m in buffer[:n]]
            assert len(set(moves)) == n and game.no_move not in moves
            side = game.side_to_move(pos)
            game.make_move(pos, moves[rng.randrange(n)])
            assert game.side_to_move(pos) == 1 - side
    assert ended > 0, f"{name}: no random game ended within {10 * PLIES} plies"


@pytest.mark.parametrize("name", GAMES_UNDER_TEST)
def test_make_unmake_restores_the_position_and_its_hash(name: str) -> None:
    game = get_game(name)
    buffer = game.new_move_buffer()
    checked = 0
    for seed in range(GAMES):
        for pos in _positions(game, seed):
            if game.terminal(pos, buffer)[0] is not None:
                continue
            seen, key = _seen(game, pos, buffer), game.key(pos)
            assert _seen(game, game.copy_position(pos), buffer) == seen
            for move in [int(m) for m in buffer[: game.legal_moves(pos, buffer)]]:
                text = game.move_text(pos, move)
                game.make_move(pos, move)
                assert game.key(pos) != key, (name, text)
                game.unmake_move(pos)
                assert _seen(game, pos, buffer) == seen, (name, text)
                checked += 1
    assert checked > 100


@pytest.mark.parametrize("name", GAMES_UNDER_TEST)
def test_a_moves_text_reads_back_as_the_move(name: str) -> None:
    game = get_game(name)
    buffer = game.new_move_buffer()
    checked = 0
    for pos in _positions(game, seed=11):
        if game.terminal(pos, buffer)[0] is not None:
            continue
        for move in [int(m) for m in buffer[: game.legal_moves(pos, buffer)]]:
            assert game.parse_move(pos, game.move_text(pos, move)) == move
            checked += 1
    assert checked > 20
    with pytest.raises(ValueError):
        game.parse_move(game.start_position(), "no such move")


@pytest.mark.parametrize("name", GAMES_UNDER_TEST)
def test_a_random_networks_evaluation_equals_its_torch_twin(name: str) -> None:
    torch = require_module("torch", "torch")
    game = get_game(name)
    activation = game_facts(name).network_activations[0]
    model = game.random_network([8, 1], activation, 5, 1.0)
    twin = model.torch_twin()
    ev = model.evaluator()
    checked = 0
    for seed in range(3):
        for pos in _positions(game, seed):
            row = game.network_input_row(pos)
            with torch.no_grad():
                z = float(twin(torch.from_numpy(row[None]))[0, 0])
            first = 1.0 if game.side_to_move(pos) == 0 else -1.0
            expected = UNITS_PER_LOGIT * z * first
            assert game.evaluate(pos, ev) == pytest.approx(expected, rel=1e-9, abs=1e-6)
            checked += 1
    assert checked > 10


def _rule_config(name: str, algorithm: str, network: bool) -> Any:
    from treestrap.training.config import game_config, network_config

    common = {"games": 1, "seed": 3, "max_plies": 12, "minimax_nodes": 60, "depth": 1}
    if network:  # over the game's network inputs
        inputs = game_facts(name).network_inputs
        return network_config("mlp:4", **common, game=name, algorithm=algorithm, feature_set=inputs)
    return game_config(name, **common, algorithm=algorithm)


@pytest.mark.parametrize("name", GAMES_UNDER_TEST)
@pytest.mark.parametrize(
    ("algorithm", "network"),
    [(r.name, False) for r in RULES] + [(r.name, True) for r in RULES if r.network],
)
def test_one_short_run_of_every_rule_writes_weights_that_load(
    name: str, algorithm: str, network: bool, tmp_path
) -> None:
    from treestrap.training.run import train

    if network:
        require_module("torch", "torch")
    config = _rule_config(name, algorithm, network)
    state = train(config, tmp_path / "run")
    assert state.games == 1
    model = get_game(name).load_model(tmp_path / "run" / "weights.npz")
    assert model.is_network == network
    assert np.all(np.isfinite(model.weights))
