"""The learner of a distributed run: it hands out games, applies the updates of each
finished game in the order games arrive, writes the run's files and publishes weights.

The run directory, its files and the commit point are those of
:mod:`treestrap.training.run`, so a distributed run resumes as a one-process run does
(and either can resume the other). Games are numbered in the order the learner commits
them, so ``games.pgn`` and ``metrics.jsonl`` hold games 1..n once each whatever
order the actors finish in; an actor that dies loses only the game it was playing, and
that game is neither numbered nor counted. Each game's metrics line adds the weight
version it was played with (``weights_version``: games the learner had applied when it
published them), ``staleness`` (games committed since), its ``actor`` slot and the
``ticket`` its opening was drawn from.

With one actor and publication after every game (the default) the actor always plays
with the learner's weights, and the records replay its own updates, so the run's
weights equal those of a one-process run bit for bit.

Network runs (``--model``, Serban's Algorithm 7): actors ship each search's replay
samples; the learner's rule (:mod:`treestrap.learn.network_treestrap`) adds them to
its replay set in the order games arrive, taking the configured mini-batch steps after
each search's samples (drawn from (seed, game number) as a one-process run draws them),
and publishes the network's parameters every K games. Its metrics lines add
``replay_loss`` and ``replay_positions`` as a one-process network run's do.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from treestrap.distributed.backend import Backend
from treestrap.distributed.messages import Job, Played
from treestrap.distributed.updates import ReplaySample, apply_updates
from treestrap.learn.network_treestrap import ReplayAlgorithm
from treestrap.learn.optimizer import Optimizer, make_optimizer
from treestrap.learn.rule_config import rule_step_size
from treestrap.training.checkpoints import RunState, load_optimizer_state
from treestrap.training.config import TrainConfig
from treestrap.training.game import GameSummary
from treestrap.training.learner import Learner
from treestrap.training.opponents import UciOpponent, make_opponent
from treestrap.training.run import OpenedRun, commit_game, open_run

#: Actor deaths in a row (no game committed between them) before the run gives up:
#: something kills every actor (memory, a broken node), and retrying forever would hide it.
MAX_DEATHS_IN_A_ROW = 10
_ROUND = re.compile(r'^\[Round "[^"]*"\]$', re.MULTILINE)
#: A Connect Four game's record (games/line_record.py) starts with its number.
_LINE_NUMBER = re.compile(r"^\d+(?=\t)")


@dataclass
class LearnerStats:
    """Where a distributed run's time and bytes went (filled in as it runs)."""

    games: int = 0
    updates: int = 0  # searches whose update records were applied
    nodes: int = 0
    wall_seconds: float = 0.0
    #: time in the learner's own work: applying updates and writing the run's files
    learner_seconds: float = 0.0
    job_bytes: int = 0
    game_bytes: int = 0
    update_bytes: int = 0  # of game_bytes: the update records alone
    weight_sends: int = 0
    restarts: int = 0

    @property
    def learner_share(self) -> float:
        return self.learner_seconds / self.wall_seconds if self.wall_seconds else 0.0


class _LadderLevel(UciOpponent):
    """The ladder's Stockfish level, kept by the learner for ``update_ladder``; the
    actors' engines follow it through their jobs."""

    def __init__(self, elo: int) -> None:
        self.elo = elo
        self.name = f"stockfish-{elo}"

    def set_elo(self, elo: int) -> None:
        self.elo = elo

    def close(self) -> None:
        pass


def learner_optimizer(config: TrainConfig, size: int) -> Optimizer:
    """The optimizer a linear :class:`~treestrap.training.learner.Learner` of ``config``
    uses (same kind and step), to replay the actors' records through."""
    return make_optimizer(config.optimizer, size, rule_step_size(config, network=False))


@dataclass
class _Published:
    version: int
    weights: np.ndarray
    optimizer_state: dict[str, np.ndarray]


def _publish(state: RunState, weights: np.ndarray, optimizer: Optimizer | None) -> _Published:
    """The weights to send, with an adaptive optimizer's state (``None``: a network
    run's, whose replay set and momentum stay with the learner)."""
    saved = {k: v.copy() for k, v in optimizer.state().items()} if optimizer is not None else {}
    return _Published(state.games, weights.copy(), saved)


def _warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def run_learner(
    opened: OpenedRun,
    backend: Backend,
    on_game: Callable[[GameSummary, RunState], None] | None = None,
    time_limit: float | None = None,
    publish_every: int = 1,
    stats: LearnerStats | None = None,
    on_problem: Callable[[str], None] = _warn,
) -> RunState:
    """Play ``opened``'s remaining games on ``backend``'s actors; returns the final state."""
    started = time.monotonic()
    config, state, model = opened.config, opened.state, opened.model
    stats = stats if stats is not None else LearnerStats()
    if state.games >= config.games:
        return state  # finished already: no actor to start
    is_network = model.is_network
    network = Learner(config, model) if is_network else None
    optimizer = (
        network.algorithm.optimizer
        if network is not None
        else learner_optimizer(config, model.weights.shape[0])
    )
    load_optimizer_state(opened.run, state.games, optimizer)
    ladder = _LadderLevel(state.elo) if config.ladder and state.elo is not None else None
    if config.opponent != "self":
        make_opponent(config, state.elo).close()  # a missing engine fails here, once
    shipped = optimizer if network is None else None
    published = _publish(state, opened.model.weights, shipped)
    # A hybrid's linear part goes with the weights: actors build their network from it.
    linear = None
    if getattr(model, "linear", None) is not None:  # a chess hybrid's linear part
        linear = (model.linear, model.linear_set)
    has = [-1] * backend.count  # the weight version each slot holds
    in_flight: dict[int, Job] = {}
    ticket = state.games + 1
    deaths = 0
    backend.start(config)
    try:
        while state.games < config.games:
            stopping = time_limit is not None and time.monotonic() - started >= time_limit
            for slot in range(backend.count):
                if stopping or slot in in_flight or state.games + len(in_flight) >= config.games:
                    continue
                fresh = has[slot] != published.version
                job = Job(
                    ticket,
                    published.version,
                    published.weights if fresh else None,
                    published.optimizer_state if fresh else None,
                    state.elo,
                    linear if fresh else None,
                )
                stats.weight_sends += fresh
                backend.submit(slot, job)
                in_flight[slot], has[slot] = job, published.version
                ticket += 1
            if not in_flight:
                break
            for slot, played in backend.wait():
                job = in_flight.pop(slot)
                if played is None:
                    deaths += 1
                    on_problem(
                        f"actor {slot} died playing ticket {job.ticket}; game dropped, "
                        "actor restarted"
                    )
                    if deaths >= MAX_DEATHS_IN_A_ROW:
                        raise RuntimeError(
                            f"{deaths} actors died in a row without a game: giving up "
                            f"(resume with the same command once the cause is fixed)"
                        )
                    has[slot] = -1
                    backend.restart(slot)
                    continue
                deaths = 0
                t0 = time.perf_counter()
                summary = _commit(opened, played, slot, optimizer, ladder, network)
                stats.updates += len(played.updates)
                stats.update_bytes += played.update_bytes
                stats.games += 1
                stats.nodes += summary.nodes
                if state.games % publish_every == 0:
                    published = _publish(state, opened.model.weights, shipped)
                stats.learner_seconds += time.perf_counter() - t0
                if on_game:
                    on_game(summary, state)
    finally:
        backend.close()
        stats.wall_seconds = time.monotonic() - started
        stats.job_bytes = backend.traffic.job_bytes
        stats.game_bytes = backend.traffic.game_bytes
        stats.restarts = backend.restarts
    return state


def _commit(
    opened: OpenedRun,
    played: Played,
    slot: int,
    optimizer: Optimizer,
    ladder: UciOpponent | None,
    network: Learner | None = None,
) -> GameSummary:
    """Apply ``played``'s updates (a network run's: learn from its replay samples) and
    commit it as the run's next game."""
    state = opened.state
    number = state.games + 1
    learned: dict[str, object] = {}
    if network is not None:
        learned = learn_samples(network, number, played.updates)
        opened.model = network.model()  # the weights to write: the network now
    else:
        apply_updates(optimizer, opened.model.weights, played.updates)
    summary = replace(
        played.summary,
        number=number,
        pgn=_LINE_NUMBER.sub(
            str(number), _ROUND.sub(f'[Round "{number}"]', played.summary.pgn, count=1)
        ),
    )
    extra = {
        "weights_version": played.version,
        "staleness": state.games - played.version,
        "actor": slot,
        "ticket": played.ticket,
        **learned,
    }
    commit_game(opened, summary, optimizer, ladder, extra)
    return summary


def learn_samples(network: Learner, number: int, samples: Sequence[object]) -> dict[str, object]:
    """Game ``number``'s learning in a network run: each search's replay samples join
    the replay set in order, each followed by the configured mini-batch steps (as
    :meth:`~treestrap.learn.replay.ReplayTrainer.learn_from_tree` does after a search);
    returns the metrics a network game's line adds."""
    algorithm = network.algorithm
    assert isinstance(algorithm, ReplayAlgorithm)
    algorithm.start_game(number)
    for sample in samples:
        assert isinstance(sample, ReplaySample)
        trainer = algorithm.trainer
        algorithm.losses.append(
            trainer.learn_from_samples(sample.inputs, sample.values, sample.upper, sample.linear)
        )
    return algorithm.game_metrics()


def make_backend(name: str, actors: int, address: str | None = None) -> Backend:
    """A backend by name: ``local`` (processes) or ``ray``."""
    if name == "local":
        from treestrap.distributed.local import LocalBackend

        return LocalBackend(actors)
    if name == "ray":
        from treestrap.distributed.ray_backend import RayBackend
        from treestrap.distributed.ray_support import require_ray

        require_ray()
        return RayBackend(actors, address)
    raise ValueError(f"unknown backend {name!r} (known: local, ray)")


def train_distributed(
    config: TrainConfig,
    run_dir: str,
    actors: int = 2,
    backend: str | Backend = "local",
    address: str | None = None,
    resume: bool = False,
    on_game: Callable[[GameSummary, RunState], None] | None = None,
    time_limit: float | None = None,
    publish_every: int = 1,
    stats: LearnerStats | None = None,
) -> RunState:
    """:func:`treestrap.training.run.train` with ``actors`` actors on ``backend``."""
    if actors < 1:
        raise ValueError(f"actors must be >= 1, got {actors}")
    if publish_every < 1:
        raise ValueError(f"publish every must be >= 1 game, got {publish_every}")
    if isinstance(backend, str):
        backend = make_backend(backend, actors, address)  # Ray missing: before any write
    opened = open_run(config, run_dir, resume)
    if opened.config.teacher_every:
        opened.close()
        # Actors search with the network they were sent: --publish-every K is their teacher.
        raise ValueError("--teacher-every G is the one-process loop's: actors use --publish-every")
    try:
        return run_learner(opened, backend, on_game, time_limit, publish_every, stats)
    finally:
        opened.close()
