"""The training run: games of self-play (or against an opponent) in which a learning
algorithm updates the weights from every search it makes.

A run directory holds everything, so a run can be stopped at any moment and resumed::

    config.json        the TrainConfig, as given
    weights.npz        latest weights; their metadata carry the run state (games played,
                       results, ladder level): one atomic write after every game
    checkpoints/       weights before the first game (game-000000.npz), every
                       ``checkpoint_every`` games, and at 1, 2, 5, 10, 20, 50, ... games
                       so that learning curves on a log axis have points
    games.pgn          every game, with opening, result and round number
    metrics.jsonl      one JSON line per game (CPU seconds included: curves' time axis)
    optimizer.npz      an adaptive optimizer's state (AdaGrad, Adam), written before the
                       weights, with the previous one kept for a kill between the two

Resuming drops any PGN or metrics record newer than the saved weights, so a killed run
loses at most the game in progress. Openings are drawn from (seed, game number), so a
run by depth or nodes is deterministic and resumes into the same games.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from treestrap.evaluation.presets import hand_set_model, random_model
from treestrap.evaluation.weights import LinearModel, load_weights, save_weights
from treestrap.play.openings import load_openings
from treestrap.training.checkpoints import (
    RunState,
    is_log_checkpoint,
    load_optimizer_state,
    save_checkpoint,
    save_optimizer_state,
    with_meta,
)
from treestrap.training.config import TrainConfig
from treestrap.training.game import GameSummary, play_training_game
from treestrap.training.learner import Learner
from treestrap.training.opponents import make_opponent, update_ladder
from treestrap.training.records import append_record, metrics_row, truncate_records


def _initial_model(config: TrainConfig) -> LinearModel:
    if config.init == "random":
        return random_model(config.feature_set, seed=config.seed, scale=config.init_scale)
    if config.init == "hand-set":
        return hand_set_model(config.feature_set)
    model = load_weights(config.init)
    if model.feature_set.name != config.feature_set:
        raise ValueError(
            f"initial weights are for feature set {model.feature_set.name!r}, "
            f"not {config.feature_set!r}"
        )
    return model


def train(
    config: TrainConfig,
    run_dir: str | Path,
    resume: bool = False,
    on_game: Callable[[GameSummary, RunState], None] | None = None,
    time_limit: float | None = None,
) -> RunState:
    """Run (or resume) a training run into ``run_dir``; returns the final state.

    ``time_limit`` (seconds) ends the run after the first game that finishes past it;
    ``--resume`` can carry it on later.
    """
    started = time.monotonic()
    run = Path(run_dir)
    if resume:
        saved = json.loads((run / "config.json").read_text())
        config = TrainConfig(**{**saved, "games": config.games or saved["games"]})
        model = load_weights(run / "weights.npz")
        state = RunState(**model.metadata.get("run_state", {}))
        truncate_records(run, state.games)
    else:
        config.validate()
        if (run / "weights.npz").exists():
            raise ValueError(f"{run} already holds a run: use --resume or another directory")
        run.mkdir(parents=True, exist_ok=True)
        (run / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2))
        model = _initial_model(config)
        state = RunState()
        save_checkpoint(model, config, state, run)
        save_weights(with_meta(model, config, state), run / "weights.npz")
    config.validate()
    book = load_openings(config.openings)
    learner = Learner(config, model)
    load_optimizer_state(run, state.games, learner.algorithm.optimizer)
    if config.ladder and state.elo is None and config.opponent.startswith("stockfish"):
        state.elo = int(config.opponent.split(":")[1]) if ":" in config.opponent else 1350
    opponent = make_opponent(config, state.elo)
    try:
        while state.games < config.games:
            if time_limit is not None and time.monotonic() - started >= time_limit:
                break
            number = state.games + 1
            rng = np.random.default_rng([config.seed, number])
            opening = book[int(rng.integers(len(book)))]
            learner_white = number % 2 == 1
            learner.algorithm.start_game(number)
            summary = play_training_game(learner, opponent, opening, number, learner_white)
            score = summary.learner_score if opponent is not None else 0.5
            if summary.result == "1/2-1/2":
                state.draws += 1
            elif opponent is None:
                state.wins += summary.result == "1-0"
                state.losses += summary.result == "0-1"
            elif score == 1.0:
                state.wins += 1
            else:
                state.losses += 1
            state.games = number
            state.cpu_seconds += summary.cpu_seconds
            state.recent = ([*state.recent, score])[-config.ladder_window :]
            update_ladder(config, state, opponent)
            append_record(run / "games.pgn", summary.pgn + "\n\n")
            append_record(
                run / "metrics.jsonl", json.dumps(metrics_row(summary, model, state)) + "\n"
            )
            # The checkpoint first: killed between the two writes, the run resumes at
            # this game again (deterministic) and rewrites the same checkpoint.
            if (
                number % config.checkpoint_every == 0
                or number == config.games
                or is_log_checkpoint(number)
            ):
                save_checkpoint(model, config, state, run)
            save_optimizer_state(run, number, learner.algorithm.optimizer)
            save_weights(with_meta(model, config, state), run / "weights.npz")
            if on_game:
                on_game(summary, state)
    finally:
        if opponent is not None:
            opponent.close()
    return state
