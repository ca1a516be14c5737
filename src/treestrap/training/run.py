"""The training run: games of self-play (or against an opponent) in which a learning
algorithm updates the weights from every search it makes.

A run directory holds everything, so a run can be stopped at any moment and resumed::

    config.json        the TrainConfig, as given
    weights.npz        latest weights; their metadata carry the run state (games played,
                       results, ladder level): one atomic write after every game
    checkpoints/       weights before the first game (game-000000.npz), every
                       ``checkpoint_every`` games, and at 1, 2, 5, 10, 20, 50, ... games
                       so that learning curves on a log axis have points
    games.pgn          every game, with opening, result and round number (a Connect
                       Four run: games.txt, a line of moves a game, games/line_record.py)
    metrics.jsonl      one JSON line per game (CPU seconds included: curves' time axis);
                       ``--tensorboard DIR`` also logs each line as TensorBoard scalars
    optimizer.npz      an adaptive optimizer's state (AdaGrad, Adam), or a network run's
                       replay set and momentum, written before the weights, with the
                       previous one kept (optimizer-previous.npz) for a kill between the two

The weights are the commit point: a game's records and checkpoint are written before
them, and resuming cuts ``games.pgn`` and ``metrics.jsonl`` back to the saved weights
(a torn last record included), so a killed run loses at most the game in progress and
never counts one twice. A run killed before its first weights resumes from game 0.
Every write names its file when it fails (a full disk, a read-only directory) and
leaves the run as resumable as a kill does. Openings are drawn from (seed, game number),
so a run by depth or nodes is deterministic and resumes into the same games.

Network runs (``TrainConfig.model`` "logreg" or "mlp:H", Serban's Algorithm 7 through
:mod:`treestrap.learn.network_treestrap`) keep the same layout, with network
weight files as ``weights.npz`` and checkpoints. Their learning state beyond the weights,
the replay set (inputs bit-packed: about 100 bytes a position, 10 MB at the default
``replay_size``) and the Nesterov momentum, is their ``optimizer.npz``, so a resumed
network run repeats an uninterrupted one exactly (mini-batches are drawn from (seed,
game number)). Their metrics lines add the mean mini-batch loss (``replay_loss``) and
the replay set's size.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from treestrap.evaluation.feature_sets.bitboard import BITBOARD_SIZE
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.preset_names import PRESET_NAMES
from treestrap.evaluation.presets import preset_model
from treestrap.evaluation.weight_files import load_weights
from treestrap.evaluation.weights import LinearModel
from treestrap.games.registry import game_facts, get_game
from treestrap.learn.optimizer import Optimizer
from treestrap.play.loop import FIRST_WINS, SECOND_WINS
from treestrap.play.openings import Opening, load_openings
from treestrap.training.checkpoints import (
    RunModel,
    RunState,
    check_format_version,
    is_log_checkpoint,
    load_optimizer_state,
    save_checkpoint,
    save_optimizer_state,
    save_run_weights,
)
from treestrap.training.config import TrainConfig, network_activation, network_sizes
from treestrap.training.files import remove_temporaries, write_atomic
from treestrap.training.game import GameSummary, play_training_game
from treestrap.training.learner import Learner
from treestrap.training.opponents import (
    Opponent,
    faces_opponent,
    make_opponent,
    update_ladder,
)
from treestrap.training.options import UNSAVED_OPTIONS
from treestrap.training.origin import (
    UNKNOWN_COMMAND,
    new_origin,
    note_resume,
    read_origin,
    write_origin,
)
from treestrap.training.records import append_record, metrics_row, truncate_records
from treestrap.training.tensorboard_log import TrainingLog, check_new_log, require_tensorboard


def _initial_model(config: TrainConfig) -> RunModel:
    """A run's start, of its game: random (seeded), the hand-written evaluation, or a
    weight file of the run's model kind; with ``--model``, a network."""
    if config.model != "linear":
        return _initial_network(config)
    game = get_game(config.game)
    if config.init == "random":
        return game.random_model(config.feature_set, config.seed, config.init_scale)
    if config.init == "hand-set":
        return game.hand_set_model(config.feature_set)
    model = _loaded_start(game, config)
    if model.is_network:
        raise ValueError(
            f"{config.init}: a network weight file ({model.describe()}), and "
            f"{config.algorithm} learns linear weights: train a network with --model "
            f"{model.spec}"
        )
    if model.feature_set_name != config.feature_set:
        raise ValueError(
            f"initial weights are for feature set {model.feature_set_name!r}, "
            f"not {config.feature_set!r}"
        )
    return model


def _loaded_start(game: Any, config: TrainConfig) -> RunModel:
    """The weight file of ``--init``; a perspective network is refused (it is fitted
    offline: self-play runs do not train one yet)."""
    model = game.load_model(config.init)
    if not getattr(model, "learns_online", True):
        raise ValueError(
            f"{config.init}: a perspective network ({model.spec}); training runs do not "
            "learn perspective networks yet"
        )
    return model


def load_run_model(config: TrainConfig, path: Path) -> RunModel:
    """A run's weight file, read as its game's model."""
    return get_game(config.game).load_model(path)


def _initial_network(config: TrainConfig) -> RunModel:
    """A network run's start: random (seeded) or a network weight file of the same
    layers (``treestrap supervised convert --network`` makes one from a supervised
    model); a hybrid adds its ``--linear-part``."""
    game = get_game(config.game)
    sizes = network_sizes(config.model)
    activation = network_activation(config.model)
    if config.init == "random":
        model = game.random_network(sizes, activation, config.seed, config.init_scale)
        if config.linear_part is None:
            return model
        linear = _linear_part(config.linear_part)
        # The output layer at zero: the hybrid starts as its linear part.
        params = model.weights.copy()
        params[-(sizes[-2] + 1 if len(sizes) > 1 else BITBOARD_SIZE + 1) :] = 0.0
        linear_set = linear.feature_set.name
        return NetworkModel(
            sizes, params, linear=linear.weights, linear_set=linear_set, activation=activation
        )
    if config.init == "hand-set":
        raise ValueError(
            "--init hand-set is linear weights; a network starts from 'random' or a network file"
        )
    model = _loaded_start(game, config)
    if not model.is_network:
        raise ValueError(
            f"{config.init}: linear weights, and this run learns --model {config.model}: it "
            "needs a network weight file (treestrap supervised convert --network, or --init "
            "random)"
        )
    if model.sizes != sizes or model.activation != activation:
        raise ValueError(
            f"{config.init}: a network of layers {model.sizes} ({model.spec}), "
            f"not the {config.model} of --model"
        )
    if config.linear_part is not None:
        if model.linear is not None:
            raise ValueError(f"{config.init}: a hybrid already; it keeps its own linear part")
        linear = _linear_part(config.linear_part)
        model.linear, model.linear_set = linear.weights, linear.feature_set.name
        model.__post_init__()
    return model


def _linear_part(spec: str) -> LinearModel:
    """A hybrid's linear part: a preset by name or a linear weight file."""
    model = preset_model(spec) if spec in PRESET_NAMES else load_weights(spec)
    if model.is_network:
        raise ValueError(f"--linear-part {spec}: a network file, not linear weights")
    return model


def _check_model_kind(model: RunModel, config: TrainConfig, path: Path) -> None:
    """Refuse a run's weights of the other kind than its config (a damaged run)."""
    if model.is_network != (config.model != "linear"):
        raise ValueError(f"{path}: its weights are not the {config.model} model of the run")


def saved_config(run: Path, games: int) -> TrainConfig:
    """The config a run directory was started with (``games``, if given, replaces its
    number of games); ``ValueError`` if there is none."""
    path = run / "config.json"
    if not path.is_file():
        raise ValueError(f"{run} holds no training run ({path.name} not found)")
    try:
        saved = json.loads(path.read_text())
        return TrainConfig(**{**saved, "games": games or saved["games"]})
    except (ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"{path} is not a training config ({exc})") from None


@dataclass
class OpenedRun:
    """A run directory made (or reopened) and checked: what a game loop starts from."""

    config: TrainConfig
    run: Path
    book: list[Opening]
    model: RunModel
    state: RunState
    #: the TensorBoard log of ``--tensorboard``, if given
    board: TrainingLog | None = None
    #: the command that made the run and its starting weights (training/origin.py)
    origin: dict[str, Any] | None = None

    @property
    def weights_path(self) -> Path:
        return self.run / "weights.npz"

    def close(self) -> None:
        """Close what the run holds open (its TensorBoard log)."""
        if self.board is not None:
            self.board.close()


def open_run(config: TrainConfig, run_dir: str | Path, resume: bool = False) -> OpenedRun:
    """Make a new run directory (or reopen one to resume, cutting its records back to
    the saved weights); ``ValueError`` for bad input, before anything is written."""
    run = Path(run_dir)
    weights = run / "weights.npz"
    if resume:
        # What config.json leaves out (where the run reports) comes from the caller.
        unsaved = {o.name: getattr(config, o.name) for o in UNSAVED_OPTIONS}
        config = dataclasses.replace(saved_config(run, config.games), **unsaved)
    # Every check of the config and the book before the first write, so bad input
    # leaves no run directory behind (one that only --resume would accept).
    config.validate()
    book = load_openings(config.openings) if game_facts(config.game).opening_book else []
    initial = None if resume else _initial_model(config)  # a bad --init file: no directory
    board_dir = Path(config.tensorboard) if config.tensorboard is not None else None
    if board_dir is not None:
        require_tensorboard()  # missing: an error line before anything is written
        if not (resume and weights.exists()):
            check_new_log(board_dir)
    if resume:
        # Leftovers of writes a kill cut short; a full disk wants their space back.
        remove_temporaries(run, run / "checkpoints")
    else:
        if weights.exists():
            raise ValueError(f"{run} already holds a run: use --resume or another directory")
        run.mkdir(parents=True, exist_ok=True)
        write_atomic(run / "config.json", json.dumps(config.to_json_dict(), indent=2))
        write_origin(run, new_origin(config, initial))
    origin = read_origin(run)
    if resume and weights.exists():
        model = load_run_model(config, weights)
        check_format_version(model, run)  # before its state is read or its records cut
        _check_model_kind(model, config, weights)
        state = RunState(**model.metadata.get("run_state", {}))
        truncate_records(run, state.games)
    else:
        # A new run, or one killed before its first weights: start (again) from game 0.
        if resume and (run / "metrics.jsonl").exists():
            raise ValueError(f"{run} has game records but no weights.npz: it cannot resume")
        model = initial if initial is not None else _initial_model(config)
        state = RunState()
        if origin is None:  # a run made before runs recorded their origin
            origin = new_origin(config, model, UNKNOWN_COMMAND)
        save_checkpoint(model, config, state, run, origin)
        save_run_weights(model, config, state, weights, origin)
    if config.ladder and state.elo is None and config.opponent.startswith("stockfish"):
        state.elo = int(config.opponent.split(":")[1]) if ":" in config.opponent else 1350
    if origin is None:  # resuming a run made before runs recorded their origin
        origin = new_origin(config, _initial_model(config), UNKNOWN_COMMAND)
    if resume:
        origin = note_resume(run, origin, state.games)
    opened = OpenedRun(config, run, book, model, state, origin=origin)
    if board_dir is not None:
        opened.board = TrainingLog(board_dir, config, run / "metrics.jsonl")
    return opened


def game_opening(config: TrainConfig, book: list[Opening], number: int) -> tuple[Opening, bool]:
    """Game ``number``'s opening, drawn from (seed, number), and whether the learner
    plays white (odd numbers)."""
    rng = np.random.default_rng([config.seed, number])
    return book[int(rng.integers(len(book)))], number % 2 == 1


def play_game(
    learner: Learner, book: list[Opening], partner: Opponent | None, number: int
) -> GameSummary:
    """Game ``number`` of the learner's run: from its opening against ``partner``, or
    against itself. The opening is drawn from (seed, number): a line of the book, the
    learner playing white in odd games, or the game's own seeded opening."""
    config, game = learner.config, learner.game
    if game_facts(config.game).opening_book:
        opening, learner_white = game_opening(config, book, number)
        record = game.start_record(opening)
    else:
        assert game.opening is not None, f"{config.game} draws no openings of its own"
        record, learner_white = game.start_record(game.opening(config.seed, number)), True
    return play_training_game(learner, partner, record, number, learner_white)


def commit_game(
    opened: OpenedRun,
    summary: GameSummary,
    optimizer: Optimizer,
    opponent: Opponent | None,
    extra_metrics: dict[str, Any] | None = None,
) -> None:
    """Count game ``summary`` (numbered ``state.games + 1``) into the run's state and
    write its records, checkpoint, optimizer state and, last, the weights."""
    config, run, model, state = opened.config, opened.run, opened.model, opened.state
    number = state.games + 1
    versus = faces_opponent(config, number)
    score = summary.learner_score if versus else 0.5
    if summary.result == "1/2-1/2":
        state.draws += 1
    elif not versus:
        state.wins += summary.result == FIRST_WINS
        state.losses += summary.result == SECOND_WINS
    elif score == 1.0:
        state.wins += 1
    else:
        state.losses += 1
    state.games = number
    state.cpu_seconds += summary.cpu_seconds
    state.recent = ([*state.recent, score])[-config.ladder_window :]
    update_ladder(config, state, opponent)
    # The records first and the weights last: the weights are the commit point.
    # Killed (or out of disk) anywhere before them, the run resumes at this game
    # again (deterministic), cuts the records back and rewrites them.
    facts = game_facts(config.game)
    append_record(run / facts.games_file, summary.pgn + facts.record_end)
    row = {**metrics_row(summary, model, state), **(extra_metrics or {})}
    append_record(run / "metrics.jsonl", json.dumps(row) + "\n")
    if number % config.checkpoint_every == 0 or number == config.games or is_log_checkpoint(number):
        save_checkpoint(model, config, state, run, opened.origin)
    save_optimizer_state(run, number, optimizer)
    save_run_weights(model, config, state, opened.weights_path, opened.origin)
    if opened.board is not None:  # after the commit point: a game logged is kept
        opened.board.log(row)


def train(
    config: TrainConfig,
    run_dir: str | Path,
    resume: bool = False,
    on_game: Callable[[GameSummary, RunState], None] | None = None,
    time_limit: float | None = None,
) -> RunState:
    """Run (or resume) a training run into ``run_dir``; returns the final state.

    ``time_limit`` (seconds) ends the run after the first game that finishes past it;
    ``--resume`` can carry it on later. One process plays and learns; the actors and
    the learner of :mod:`treestrap.distributed` spread the same run over processes.
    """
    started = time.monotonic()
    opened = open_run(config, run_dir, resume)
    try:
        return _play_games(opened, on_game, time_limit, started)
    finally:
        opened.close()


def _play_games(
    opened: OpenedRun,
    on_game: Callable[[GameSummary, RunState], None] | None,
    time_limit: float | None,
    started: float,
) -> RunState:
    """Play and learn ``opened``'s remaining games (until ``time_limit`` seconds after
    ``started``), committing each."""
    config, state = opened.config, opened.state
    learner = Learner(config, opened.model)
    load_optimizer_state(opened.run, state.games, learner.algorithm.optimizer)
    opponent = make_opponent(config, state.elo)
    try:
        while state.games < config.games:
            if time_limit is not None and time.monotonic() - started >= time_limit:
                break
            number = state.games + 1
            learner.algorithm.start_game(number)
            partner = opponent if faces_opponent(config, number) else None
            summary = play_game(learner, opened.book, partner, number)
            # The weights to write: a network's are read back from the rule's torch copy.
            opened.model = learner.model()
            extra = learner.algorithm.game_metrics()  # a network's loss and replay size
            commit_game(opened, summary, learner.algorithm.optimizer, opponent, extra)
            if on_game:
                on_game(summary, state)
    finally:
        if opponent is not None:
            opponent.close()
    return state
