"""The learning rules on Connect Four: each lowers its own error on held-out Connect Four
games, and ``treestrap train --game connect4`` runs every rule, resumes, refuses what
does not apply, and leaves chess runs as they were.

Held-out error: games are played once by the hand-written evaluation (random openings,
depth-3 searches of the rule's kind), their searches kept (roots, principal leaves,
trees with bounds): fixed targets. From random weights a rule learns from the training
games for a few passes, each H(s) recomputed with the weights of the moment; its error
on the held-out games is the mean squared error of what it learns towards
(``_held_out_error``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json

import numpy as np
import pytest
from test_bad_inputs import check_one_error_line

from treestrap.cli import main
from treestrap.connect4.board import Position, copy_position
from treestrap.core.search_tree import SearchTree
from treestrap.evaluation.presets import random_model
from treestrap.games.connect4_game import CONNECT4_GAME, random_opening
from treestrap.games.connect4_model import (
    Connect4Model,
    hand_written_connect4_model,
    load_connect4_model,
)
from treestrap.learn.base import Rule, Step
from treestrap.learn.rule_config import make_rule
from treestrap.learn.rules import ALGORITHM_NAMES
from treestrap.learn.targets import bounded_deltas, node_mask
from treestrap.learn.temporal import squash
from treestrap.search.value import VALUE_CLIP
from treestrap.training.config import TrainConfig, game_config
from treestrap.training.learner import Learner
from treestrap.training.run import train

DEPTH = 3


def _copy_tree(tree: SearchTree | None) -> SearchTree | None:
    """The used part of a search's record (the learner reuses its own)."""
    if tree is None:
        return None
    n = int(tree.meta[0])
    pairs = int(tree.feat_start[n])
    parts = {name: getattr(tree, name)[:n].copy() for name in SearchTree._fields}
    parts["feat_start"] = tree.feat_start[: n + 1].copy()
    parts["feat_idx"] = tree.feat_idx[:pairs].copy()
    parts["feat_val"] = tree.feat_val[:pairs].copy()
    parts["meta"] = tree.meta.copy()
    return SearchTree(**parts)


#: A game kept for learning: its searches (each with its root) and the first player's result.
Game = tuple[list[tuple[Position, Step]], float]


def _games(config: TrainConfig, model: Connect4Model, seeds: range) -> list[Game]:
    """Self-play games with ``model``'s weights as they are (no learning): per game its
    steps, each with a copy of its root and tree, and the first player's result."""
    learner = Learner(config, model)
    game = CONNECT4_GAME
    games = []
    for seed in seeds:
        pos = game.start_position()
        for move in random_opening(seed, 1):
            game.make_move(pos, move)
        steps = []
        buffer = game.new_move_buffer()
        while (result := game.terminal(pos, buffer))[0] is None:
            res, step = learner.search(pos, None)
            step.tree = _copy_tree(step.tree)
            if steps:
                steps[-1][1].actual_reply = res.best_move
            steps.append((copy_position(pos), step))
            game.make_move(pos, res.best_move)
        value = result[0]
        first = value if game.side_to_move(pos) == 0 else -value
        games.append((steps, first))
    return games


def _refresh(steps: list[tuple[Position, Step]], weights: np.ndarray) -> None:
    """Every H(s) of the steps with ``weights`` (the bounds stay as searched)."""
    for _pos, step in steps:
        step.root_static = float(np.dot(weights[step.root_idx], step.root_val))
        if step.leaf_idx is not None:
            step.leaf_value = float(np.dot(weights[step.leaf_idx], step.leaf_val))
        tree = step.tree
        if tree is not None:
            n = int(tree.meta[0])
            for i in range(n):
                a, b = tree.feat_start[i], tree.feat_start[i + 1]
                tree.static[i] = np.dot(weights[tree.feat_idx[a:b]], tree.feat_val[a:b])


def _play_through(rule: Rule, games: list[Game], weights: np.ndarray) -> None:
    for number, (steps, outcome) in enumerate(games, 1):
        rule.start_game(number)
        _refresh(steps, weights)
        for _pos, step in steps:
            rule.observe(step)
        rule.end_game([s for _p, s in steps], outcome)


def _held_out_error(config: TrainConfig, weights: np.ndarray, games: list[Game]) -> float:
    """The mean squared error of what ``config``'s rule learns towards, over the held-out
    games with ``weights``: the tree nodes' one-sided errors (TreeStrap), the roots'
    (RootStrap), or the squashed value (TD-Leaf: of the principal leaf) against the
    game's result for the side to move (the TD rules, whose lambda-returns end there)."""
    rule = make_rule(config, Connect4Model(weights.copy()), None)
    hyper = rule.hyper
    errors = []
    for steps, outcome in games:
        _refresh(steps, weights)
        for _pos, step in steps:
            if rule.needs_tree:
                tree = step.tree
                n = int(tree.meta[0])
                mask = node_mask(tree, hyper.min_depth)
                d = bounded_deltas(
                    tree.static[:n], tree.lower[:n], tree.upper[:n], clip=hyper.target_clip
                )
                errors.extend(d[mask] ** 2)
            elif rule.name.startswith("rootstrap"):
                target = np.clip(step.root_value, -VALUE_CLIP, VALUE_CLIP)
                errors.append((target - step.root_static) ** 2)
            else:
                z = outcome if step.color == 0 else -outcome
                value = step.leaf_value if rule.needs_leaf else step.root_static
                errors.append((squash(value, hyper.squash) - z) ** 2)
    return float(np.mean(errors))


@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
def test_every_rule_lowers_its_error_on_held_out_connect4_games(algorithm: str) -> None:
    # the default step sizes: Connect Four's (step_factors in games/connect4_facts.py)
    config = game_config("connect4", algorithm=algorithm, depth=DEPTH, minimax_nodes=400)
    teacher = hand_written_connect4_model()
    training = _games(config, teacher, range(100, 124))
    held_out = _games(config, teacher, range(500, 508))
    start = Connect4Model(np.random.default_rng(5).uniform(-1, 1, teacher.weights.size))
    before = _held_out_error(config, start.weights, held_out)
    model = Connect4Model(start.weights.copy())
    rule = make_rule(config, model, model.evaluator())
    for _ in range(3):
        _play_through(rule, training, model.weights)
    assert np.all(np.isfinite(model.weights))
    after = _held_out_error(config, model.weights, held_out)
    assert after < 0.98 * before, (before, after)


# --- treestrap train --game connect4 ------------------------------------------------


def _cli(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's usage errors
        return int(exc.code or 0)


@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
def test_a_short_run_of_every_rule_writes_weights_that_load(algorithm: str, tmp_path) -> None:
    run = tmp_path / "run"
    argv = ["train", "--game", "connect4", "--algorithm", algorithm, "--depth", "2"]
    argv += ["--games", "2", "--minimax-nodes", "200", "--seed", "3", "--out", str(run)]
    assert _cli(argv) == 0
    model = load_connect4_model(run / "weights.npz")
    first = load_connect4_model(run / "checkpoints" / "game-000000.npz")
    assert not np.array_equal(model.weights, first.weights)  # it learned
    assert model.metadata["run_state"]["games"] == 2
    config = json.loads((run / "config.json").read_text())
    assert config["game"] == "connect4" and config["feature_set"] == "connect4"
    lines = (run / "games.txt").read_text().splitlines()
    assert [line.split("\t")[0] for line in lines] == ["1", "2"]
    for line in lines:
        _number, moves, result, opening, why = line.split("\t")
        assert why in ("four in a row", "full board")
        assert moves.startswith(opening) and 2 <= len(opening) <= 4
        assert set(moves) <= set("1234567") and result in ("1-0", "0-1", "1/2-1/2")
    rows = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert [r["game"] for r in rows] == [1, 2]


def test_a_connect4_run_resumes_into_the_same_games(tmp_path) -> None:
    config = game_config("connect4", algorithm="treestrap-ab", depth=2, games=4, seed=9)
    train(config, tmp_path / "whole")
    train(dataclasses.replace(config, games=2), tmp_path / "split")
    assert _cli(["train", "--resume", str(tmp_path / "split"), "--games", "4"]) == 0
    whole = load_connect4_model(tmp_path / "whole" / "weights.npz")
    split = load_connect4_model(tmp_path / "split" / "weights.npz")
    assert np.array_equal(whole.weights, split.weights)
    games = [(tmp_path / run / "games.txt").read_text() for run in ("whole", "split")]
    assert games[0] == games[1]


def test_resume_cuts_games_txt_back_to_the_saved_weights(tmp_path) -> None:
    config = game_config("connect4", algorithm="rootstrap-ab", depth=2, games=2, seed=4)
    run = tmp_path / "run"
    train(config, run)
    records = (run / "games.txt").read_text()
    with open(run / "games.txt", "a") as fh:
        fh.write("3\t4444\t1-0\t44\tfour in a row\n4\t12")  # ahead of the weights, torn
    train(dataclasses.replace(config, games=3), run, resume=True)
    lines = (run / "games.txt").read_text().splitlines()
    assert (run / "games.txt").read_text().startswith(records)
    assert [line.split("\t")[0] for line in lines] == ["1", "2", "3"]
    assert lines[2].split("\t")[1] != "4444"


@pytest.mark.parametrize(
    ("options", "phrase"),
    [
        (["--opponent", "stockfish"], "--opponent is not for --game connect4"),
        (["--feature-set", "meep"], "not a connect four feature set"),
        (["--model", "mlp:8", "--linear-part", "hand-set"], "--linear-part is not for --game"),
        (["--clock", "10"], "--clock is not for --game connect4"),
        (["--node-value", "quiescence"], "no quiescence search"),
        (["--init", "CHESS"], "chess weights, not connect four weights"),
    ],
)
def test_what_connect4_does_not_take_is_one_error_line(options, phrase, tmp_path, capsys) -> None:
    random_model("meep", seed=1).save(tmp_path / "chess.npz")
    options = [str(tmp_path / "chess.npz") if o == "CHESS" else o for o in options]
    argv = ["train", "--game", "connect4", *options, "--games", "1", "--out", str(tmp_path / "r")]
    capsys.readouterr()
    assert _cli(argv) == 2
    err = capsys.readouterr().err
    check_one_error_line(err, phrase)
    assert not (tmp_path / "r").exists()


#: A chess run of each kind of search at fixed depth, as the code before the game
#: contract wrote it (sha256 of the weights' array, of games.pgn and of config.json).
CHESS_BEFORE = {
    "weights": "be3b2b4c86bd572cf0f7ea8ed0bb37d7a3f4dd0b35880cd11ff2ff6af333afab",
    "games.pgn": "ed345a2c8484646695eeb3234fc06a65914807a31518f5618a274cedae73b7e2",
    "config.json": "1a3d7f407d797cad9984cec6f5e1414fc2348e6a67de1e92208af7ff4cb98bff",
}


def test_a_chess_run_writes_what_it_wrote_before_the_game_contract(tmp_path) -> None:
    run = tmp_path / "run"
    argv = ["train", "--algorithm", "treestrap-ab", "--depth", "2", "--games", "2"]
    assert _cli([*argv, "--seed", "5", "--max-plies", "30", "--out", str(run)]) == 0
    with np.load(run / "weights.npz") as saved:
        weights = hashlib.sha256(saved["weights"].tobytes()).hexdigest()
    assert weights == CHESS_BEFORE["weights"]
    for name in ("games.pgn", "config.json"):
        assert hashlib.sha256((run / name).read_bytes()).hexdigest() == CHESS_BEFORE[name]


def test_two_actors_play_a_connect4_run(tmp_path) -> None:
    run = tmp_path / "run"
    argv = ["train", "--game", "connect4", "--depth", "2", "--games", "4", "--actors", "2"]
    assert _cli([*argv, "--out", str(run)]) == 0
    lines = (run / "games.txt").read_text().splitlines()
    assert [line.split("\t")[0] for line in lines] == ["1", "2", "3", "4"]
    rows = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert sorted(r["ticket"] for r in rows) == [1, 2, 3, 4]
    assert load_connect4_model(run / "weights.npz").metadata["run_state"]["games"] == 4
