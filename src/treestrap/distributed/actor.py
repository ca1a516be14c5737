"""A self-play actor: a :class:`~treestrap.training.learner.Learner` of its own (model,
searches, learning rule) that plays the games the learner hands out and ships back each
game with its updates. Backends host it in a process or a Ray actor.

A network run's actor holds a network's :class:`~treestrap.training.learner.Learner` but
learns nothing itself: it searches with the newest network it was sent and ships every
search's replay samples (:class:`SampleRecorder`); the learner takes the mini-batch steps.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from treestrap.distributed.messages import Job, Played
from treestrap.distributed.updates import Record, RecordingOptimizer, ReplaySample
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.games.registry import game_facts, get_game
from treestrap.learn.base import Step
from treestrap.learn.network_treestrap import ReplayAlgorithm
from treestrap.learn.replay import hybrid_tree_samples
from treestrap.play.openings import load_openings
from treestrap.search.value import VALUE_CLIP
from treestrap.training.config import TrainConfig, network_activation, network_sizes
from treestrap.training.learner import Learner
from treestrap.training.opponents import (
    Opponent,
    UciOpponent,
    faces_opponent,
    make_opponent,
)
from treestrap.training.run import play_game


class SampleRecorder(ReplayAlgorithm):
    """A network actor's update rule: :class:`ReplayAlgorithm`'s interface, keeping each
    search's first K tree nodes as a :class:`ReplaySample` instead of learning from them."""

    def __init__(self, algorithm: ReplayAlgorithm) -> None:
        super().__init__(algorithm.trainer, algorithm.seed, algorithm.name)
        self.samples: list[Record] = []

    def observe(self, step: Step) -> None:
        assert step.tree is not None
        trainer = self.trainer
        inputs, lower, upper, linear = hybrid_tree_samples(
            step.tree, trainer.hyper.tree_nodes, trainer.hyper.leaves, trainer.replay.layout.size
        )
        # A minimax tree's values are exact: its bounds travel once; a plain network's
        # linear parts are all 0.
        exact = np.array_equal(lower, upper)
        hybrid = bool(linear.any())
        self.samples.append(
            ReplaySample(inputs, lower, None if exact else upper, linear if hybrid else None)
        )
        target = float(np.clip(step.root_value, -VALUE_CLIP, VALUE_CLIP))
        self.stats.abs_delta.append(abs(target - step.root_static))
        self.stats.updates += 1

    def take(self) -> list[Record]:
        """The samples since the last call, in search order."""
        samples, self.samples = self.samples, []
        return samples


class Actor:
    """Plays :class:`Job` after :class:`Job` with the newest weights it was sent."""

    def __init__(self, config: TrainConfig) -> None:
        self.config = config
        self.game = get_game(config.game)
        self.book = load_openings(config.openings) if game_facts(config.game).opening_book else []
        self.learner: Learner
        self.recorder: RecordingOptimizer | SampleRecorder
        self.linear: tuple[np.ndarray, str] | None = None
        if config.model != "linear":
            self._network_learner()
        else:
            # zeros: the weights come with each job
            model = self.game.random_model(config.feature_set, config.seed, 0.0)
            self.learner = Learner(config, model)
            self.recorder = RecordingOptimizer(self.learner.algorithm.optimizer)
            self.learner.algorithm.optimizer = self.recorder
        self.opponent: Opponent | None = None
        self.opponent_made = False
        self.version = -1

    def _network_learner(self) -> None:
        """A network run's learner: the run's layers, with the linear part of
        :attr:`linear` (a hybrid's, from the learner's first job); the parameters come
        with each job."""
        config = self.config
        sizes = network_sizes(config.model)
        activation = network_activation(config.model)
        network = self.game.random_network(sizes, activation, config.seed, 1.0)
        if self.linear is not None:  # a hybrid (chess)
            linear, linear_set = self.linear
            network = NetworkModel(
                sizes, network.weights, linear=linear, linear_set=linear_set, activation=activation
            )
        # The actor keeps no replay set (the learner does): the smallest one.
        self.learner = Learner(replace(config, replay_size=2), network)
        assert isinstance(self.learner.algorithm, ReplayAlgorithm)
        self.recorder = SampleRecorder(self.learner.algorithm)
        self.learner.algorithm = self.recorder

    def play(self, job: Job) -> Played:
        if job.linear is not None and self.linear is None:
            self.linear = job.linear
            self._network_learner()
        if job.weights is not None:
            if isinstance(self.recorder, SampleRecorder):
                # the game's own write: chess's rounds layer 0 and forgets accumulators
                self.recorder.trainer.write(self.learner.ev, job.weights)
            else:
                model = self.learner.model()
                assert not model.is_network
                # In place: the compiled evaluator shares this array.
                model.weights[...] = job.weights
                if job.optimizer_state:
                    self.recorder.load_state(job.optimizer_state)
            self.version = job.version
        if not self.opponent_made:
            self.opponent = make_opponent(self.config, job.elo)
            self.opponent_made = True
        if (
            isinstance(self.opponent, UciOpponent)
            and job.elo is not None
            and self.opponent.elo != job.elo
        ):
            self.opponent.set_elo(job.elo)
        self.recorder.take()  # nothing from a game that failed half-way
        self.learner.algorithm.start_game(job.ticket)
        partner = self.opponent if faces_opponent(self.config, job.ticket) else None
        summary = play_game(self.learner, self.book, partner, job.ticket)
        return Played(job.ticket, self.version, summary, self.recorder.take())

    def close(self) -> None:
        if self.opponent is not None:
            self.opponent.close()
