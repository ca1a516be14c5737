"""Training options: the one table (training/options.py) that TrainConfig and the
``treestrap train`` parser are made from agrees with both, and the options of the
learning-strength work: adaptive optimizers resume exactly, CPU time is recorded per
game, a node budget is honoured, and the command line offers every optimizer the
learning layer has."""

from __future__ import annotations

import argparse
import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest
from test_training_run import (
    HELD_OUT,
    LEARNING_GAMES,
    LEARNING_SCALE,
    PAWN,
    QUEEN,
    metric_rows,
    quick,
)

from treestrap.commands.train import add_parser as add_train_parser
from treestrap.core.notation import parse_fen
from treestrap.evaluation.presets import random_model
from treestrap.evaluation.weight_files import load_weights
from treestrap.learn.linear_hyper import OPTIMIZERS
from treestrap.learn.optimizer import make_optimizer
from treestrap.learn.rules import NETWORK_ALGORITHM
from treestrap.learn.shared_options import OBJECTIVES
from treestrap.learn.targets import objective_deltas
from treestrap.option import NETWORK
from treestrap.search.context import new_context
from treestrap.search.quiescence import quiescence
from treestrap.search.scratch import NODES, QNODES
from treestrap.search.training import TrainingSearch
from treestrap.training.checkpoints import OPTIMIZER_FILE, PREVIOUS_OPTIMIZER_FILE
from treestrap.training.config import TrainConfig, apply_preset, network_config
from treestrap.training.learner import Learner
from treestrap.training.options import NETWORK_DEFAULTS, NETWORK_OPTIONS, TRAIN_OPTIONS
from treestrap.training.presets import PRESETS
from treestrap.training.run import train

GAMES = 4


def adam_config(games: int = GAMES):
    return quick("treestrap-ab", games, seed=7, max_plies=40, optimizer="adam", step_size=2.0)


def test_every_listed_optimizer_and_objective_is_implemented() -> None:
    for name in OPTIMIZERS:
        assert make_optimizer(name, 4, 0.1).name == name
    static, target = np.array([0.0, 100.0]), np.array([50.0, 50.0])
    for objective in OBJECTIVES:
        deltas = objective_deltas(static, target, objective)
        assert deltas[0] > 0 > deltas[1], objective


def test_objective_and_step_decay_reach_the_update_rule() -> None:
    config = quick("treestrap-ab", 2, objective="cross-entropy", step_decay=100.0)
    learner = Learner(config, random_model(config.feature_set, seed=config.seed))
    assert learner.algorithm.hyper.objective == "cross-entropy"
    learner.algorithm.start_game(101)
    assert learner.algorithm.optimizer.scale == 0.5


@pytest.fixture(scope="module")
def adam_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("adam")
    train(adam_config(), run)
    return run


def test_adam_run_resumes_into_the_same_weights(adam_run: Path, tmp_path: Path) -> None:
    train(adam_config(2), tmp_path)
    assert (tmp_path / OPTIMIZER_FILE).exists()
    train(adam_config(GAMES), tmp_path, resume=True)
    assert np.array_equal(
        load_weights(tmp_path / "weights.npz").weights,
        load_weights(adam_run / "weights.npz").weights,
    )


def test_resume_takes_the_previous_state_after_a_kill_between_the_writes(
    adam_run: Path, tmp_path: Path
) -> None:
    # Game 3's optimizer state was written, then the process died before the weights:
    # the weights say game 2, the newest state game 3, the previous state game 2.
    train(adam_config(2), tmp_path)
    weights_after_2 = (tmp_path / "weights.npz").read_bytes()
    train(adam_config(3), tmp_path, resume=True)
    (tmp_path / "weights.npz").write_bytes(weights_after_2)
    with np.load(tmp_path / PREVIOUS_OPTIMIZER_FILE) as previous:
        assert int(previous["games"]) == 2
    train(adam_config(GAMES), tmp_path, resume=True)
    assert np.array_equal(
        load_weights(tmp_path / "weights.npz").weights,
        load_weights(adam_run / "weights.npz").weights,
    )


def test_resume_without_the_optimizer_state_is_refused(tmp_path: Path) -> None:
    train(adam_config(2), tmp_path)
    (tmp_path / OPTIMIZER_FILE).unlink()
    with pytest.raises(ValueError, match="no adam optimizer state for game 2"):
        train(adam_config(GAMES), tmp_path, resume=True)


def test_adam_moves_weights_by_about_the_step(adam_run: Path) -> None:
    start = load_weights(adam_run / "checkpoints" / "game-000000.npz").weights
    after_one = load_weights(adam_run / "checkpoints" / "game-000001.npz").weights
    rows = metric_rows(adam_run)
    # Each update moves a weight by at most about the step (Adam's |m_hat/sqrt(v_hat)|
    # stays near 1), so after one game no weight moved more than searches * step.
    assert np.max(np.abs(after_one - start)) <= rows[0]["searches"] * 2.0 * 1.01
    assert np.count_nonzero(after_one - start) > 100


def test_cpu_time_is_recorded_per_game_and_in_total(adam_run: Path) -> None:
    rows = metric_rows(adam_run)
    assert all(r["cpu_seconds"] > 0 for r in rows)
    totals = [r["cpu_total"] for r in rows]
    assert totals == pytest.approx(list(np.cumsum([r["cpu_seconds"] for r in rows])), abs=0.01)
    state = load_weights(adam_run / "weights.npz").metadata["run_state"]
    assert state["cpu_seconds"] == pytest.approx(totals[-1], abs=0.01)


def test_node_budget_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    budget = 4000
    config = quick("treestrap-ab", 1, seed=3, max_plies=16, depth=None, nodes=budget)
    spent: list[tuple[int | None, int]] = []
    search = Learner.search

    def recording(self: Learner, pos, node_budget):  # type: ignore[no-untyped-def]
        result = search(self, pos, node_budget)
        stats = self.source.alphabeta.ctx.stats
        spent.append((node_budget, int(stats[NODES] + stats[QNODES])))
        return result

    monkeypatch.setattr(Learner, "search", recording)
    train(config, tmp_path)
    assert len(spent) >= 5  # every move after the book line
    for given, used in spent:
        assert given == budget
        # iterative deepening goes on until the budget is spent, and stops there
        assert budget <= used <= budget + 1


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"optimizer": "rmsprop"}, "unknown optimizer"),
        ({"step_size": -1.0}, "step size must be >= 0"),
        ({"objective": "hinge"}, "unknown objective"),
        ({"step_decay": -5.0}, "step decay must be >= 0"),
    ],
)
def test_bad_options_are_refused(tmp_path: Path, changes: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        train(dataclasses.replace(adam_config(), **changes), tmp_path)


def relative_error(model, fens: list[str]) -> float:  # type: ignore[no-untyped-def]
    """Squared error of H against the depth-3 search value over the squared search
    values: free of the weights' scale, which a fast step grows quickly (the plain
    squared error grows with it: 15491 -> 207286 over this run while the fit improved)."""
    ev = model.evaluator()
    search = TrainingSearch(tt_bits=16)
    h, v = [], []
    for fen in fens:
        h.append(model.evaluate(parse_fen(fen)))
        v.append(float(np.clip(search.search(parse_fen(fen), ev, 3).value, -9900.0, 9900.0)))
    hs, vs = np.array(h), np.array(v)
    return float(np.sum((vs - hs) ** 2) / np.sum(vs**2))


def quiescence_relative_error(model, fens: list[str], clip: float) -> float:  # type: ignore[no-untyped-def]
    """As :func:`relative_error` for the value a quiescence-valued run learns: the
    quiescence value Q(s) against the depth-3 search value, both clipped to ``clip``
    as its targets are."""
    ev = model.evaluator()
    search = TrainingSearch(tt_bits=16)
    ctx = new_context()
    q, v = [], []
    for fen in fens:
        q.append(quiescence(parse_fen(fen), ev, ctx))
        v.append(search.search(parse_fen(fen), ev, 3).value)
    qs, vs = np.clip(q, -clip, clip), np.clip(v, -clip, clip)
    return float(np.sum((vs - qs) ** 2) / np.sum(vs**2))


def test_strong_preset_run_learns(tmp_path: Path) -> None:
    """The strong preset's learning, checked as the quick preset's is
    (test_training_run.test_short_treestrap_run_learns): from a noisy start the error of
    the quiescence value, which its nodes learn, against held-out depth-3 search values
    falls."""
    preset = apply_preset(TrainConfig(seed=1), "strong")
    assert preset.node_value == "quiescence" and preset.depth == 3
    assert preset.target_clip == 1000.0 and preset.freeze == []
    assert preset.opponent == "hand-set" and preset.opponent_after > LEARNING_GAMES
    config = dataclasses.replace(
        preset, games=LEARNING_GAMES, init_scale=LEARNING_SCALE, checkpoint_every=LEARNING_GAMES
    )
    train(config, tmp_path)
    initial = load_weights(tmp_path / "checkpoints" / "game-000000.npz")
    final = load_weights(tmp_path / "weights.npz")
    before = quiescence_relative_error(initial, HELD_OUT, preset.target_clip)
    after = quiescence_relative_error(final, HELD_OUT, preset.target_clip)
    print(f"\nstrong preset: held-out relative error {before:.3f} -> {after:.3f}")
    assert after < 0.75 * before
    assert final.weights[QUEEN] > final.weights[PAWN] > 0


# --- the option table: one declaration for TrainConfig and the parser --------------

#: ``config.json`` of a linear run, key for key: the order its files have always had.
LINEAR_CONFIG_KEYS = [
    "algorithm",
    "games",
    "feature_set",
    "init",
    "seed",
    "init_scale",
    "step_size",
    "lam",
    "min_depth",
    "depth",
    "nodes",
    "clock",
    "increment",
    "minimax_nodes",
    "minimax_qnodes",
    "opponent",
    "opponent_depth",
    "opponent_after",
    "ladder",
    "ladder_window",
    "ladder_step",
    "openings",
    "max_plies",
    "checkpoint_every",
    "tt_bits",
    "squash",
    "predicted_only",
    "use_outcome",
    "freeze",
    "optimizer",
    "normalise_step",
    "objective",
    "step_decay",
    "quiet_only",
    "node_value",
    "target_clip",
]
NETWORK_CONFIG_KEYS = [
    *LINEAR_CONFIG_KEYS,
    "model",
    "linear_part",
    "replay_size",
    "batch_size",
    "tree_nodes",
    "momentum",
    "weight_decay",
    "teacher_every",
    "replay_steps",
]


def _train_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="treestrap")
    sub = parser.add_subparsers()
    add_train_parser(sub)
    return sub.choices["train"]


def test_trainconfig_has_one_field_per_option_in_table_order() -> None:
    fields = dataclasses.fields(TrainConfig)
    assert [f.name for f in fields] == [o.name for o in TRAIN_OPTIONS]
    assert [f.type for f in fields] == [o.type for o in TRAIN_OPTIONS]
    config = TrainConfig()
    assert [getattr(config, o.name) for o in TRAIN_OPTIONS] == [o.default for o in TRAIN_OPTIONS]
    assert TrainConfig().freeze is not config.freeze  # a fresh list each time


def test_every_flag_of_the_table_is_a_train_option_and_no_other() -> None:
    parser = _train_parser()
    groups = {a.dest: g.title for g in parser._action_groups for a in g._group_actions}
    flags = {a.dest: a.option_strings for a in parser._actions}
    command_options = {"help", "out", "resume", "preset", "minutes", "actors", "publish_every"}
    command_options |= {"backend", "address"}
    assert set(flags) - command_options == {o.name for o in TRAIN_OPTIONS if o.flag}
    for option in TRAIN_OPTIONS:
        if option.flag:
            assert flags[option.name] == [option.flag]
            network_only = option.kinds == (NETWORK,)
            assert groups[option.name].startswith("networks") == network_only, option.name
    # Every value of a flag is None unless given, so presets and resumed runs keep theirs.
    args = parser.parse_args([])
    assert all(getattr(args, o.name) is None for o in TRAIN_OPTIONS if o.flag)


def test_config_json_keys_keep_their_order() -> None:
    assert list(TrainConfig().to_json_dict()) == LINEAR_CONFIG_KEYS
    assert list(network_config("mlp:8").to_json_dict()) == NETWORK_CONFIG_KEYS
    assert [o.name for o in NETWORK_OPTIONS] == NETWORK_CONFIG_KEYS[len(LINEAR_CONFIG_KEYS) :]


def test_network_config_takes_the_network_defaults() -> None:
    config = network_config("logreg", games=3)
    assert (config.model, config.games) == ("logreg", 3)
    assert config.algorithm == NETWORK_ALGORITHM == "treestrap-mm"
    assert (config.feature_set, config.objective) == ("bitboard", "soft-cross-entropy")
    config.validate()
    given = network_config("mlp:8", algorithm="treestrap-ab", objective="reversed-kl")
    assert (given.algorithm, given.objective) == ("treestrap-ab", "reversed-kl")
    assert NETWORK_DEFAULTS == {
        "algorithm": "treestrap-mm",
        "feature_set": "bitboard",
        "objective": "soft-cross-entropy",
    }


def test_presets_set_only_options_of_the_table() -> None:
    for values in PRESETS.values():
        assert set(values) <= {o.name for o in TRAIN_OPTIONS}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"games": 0}, "games must be positive"),
        ({"depth": 21}, "depth must be in 1..20"),
        ({"nodes": 0}, "nodes per move must be positive, got 0"),
        ({"clock": float("nan")}, "the clock must be a positive number of seconds, got nan"),
        ({"increment": -1.0}, "the clock increment must be >= 0 seconds, got -1.0"),
        ({"checkpoint_every": 0}, "checkpoint every must be >= 1 game, got 0"),
        ({"max_plies": 0}, "max plies must be >= 1, got 0"),
        ({"opponent_after": -1}, "opponent after must be >= 0 games, got -1"),
        ({"step_size": -0.5}, "step size must be >= 0"),
    ],
)
@pytest.mark.parametrize("model", ["linear", "mlp:8"])
def test_linear_and_network_runs_share_the_game_limits(
    model: str, changes: dict, message: str
) -> None:
    base = TrainConfig() if model == "linear" else network_config(model)
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        dataclasses.replace(base, **changes).validate()


def test_the_search_needs_a_limit_except_a_network_minimax() -> None:
    unbounded = {"depth": None, "nodes": None, "clock": None}
    with pytest.raises(ValueError, match="give a search depth, a node budget or a clock"):
        dataclasses.replace(TrainConfig(), **unbounded).validate()
    with pytest.raises(ValueError, match="give a search depth, a node budget or a clock"):
        network_config("logreg", algorithm="treestrap-ab", **unbounded).validate()
    network_config("logreg", **unbounded).validate()  # the minimax tree's budget bounds it


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_a_step_of_zero_plays_the_games_and_keeps_the_weights(
    tmp_path: Path, optimizer: str
) -> None:
    train(
        quick("treestrap-ab", 2, seed=3, max_plies=30, optimizer=optimizer, step_size=0.0), tmp_path
    )
    start = load_weights(tmp_path / "checkpoints" / "game-000000.npz").weights
    after = load_weights(tmp_path / "weights.npz").weights
    assert len(metric_rows(tmp_path)) == 2
    assert np.array_equal(start, after)


def test_a_network_run_with_a_step_of_zero_keeps_its_parameters(tmp_path: Path) -> None:
    config = network_config("mlp:8", games=2, seed=3, max_plies=30, step_size=0.0)
    train(config, tmp_path)
    start = load_weights(tmp_path / "checkpoints" / "game-000000.npz").weights
    after = load_weights(tmp_path / "weights.npz").weights
    assert len(metric_rows(tmp_path)) == 2
    assert np.array_equal(start, after)
