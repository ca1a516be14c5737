"""A self-play actor: a :class:`~treestrap.training.learner.Learner` of its own (model,
searches, learning rule) that plays the games the learner hands out and ships back each
game with its updates. Backends host it in a process or a Ray actor."""

from __future__ import annotations

import numpy as np

from treestrap.distributed.messages import Job, Played
from treestrap.distributed.updates import RecordingOptimizer
from treestrap.evaluation.features import get_feature_set
from treestrap.evaluation.weights import LinearModel
from treestrap.play.openings import load_openings
from treestrap.training.config import TrainConfig
from treestrap.training.game import play_training_game
from treestrap.training.learner import Learner
from treestrap.training.opponents import Opponent, UciOpponent, make_opponent
from treestrap.training.run import game_opening


class Actor:
    """Plays :class:`Job` after :class:`Job` with the newest weights it was sent."""

    def __init__(self, config: TrainConfig) -> None:
        self.config = config
        self.book = load_openings(config.openings)
        feature_set = get_feature_set(config.feature_set)
        model = LinearModel(feature_set, np.zeros(feature_set.size))
        self.learner = Learner(config, model)
        self.recorder = RecordingOptimizer(self.learner.algorithm.optimizer)
        self.learner.algorithm.optimizer = self.recorder
        self.opponent: Opponent | None = None
        self.opponent_made = False
        self.version = -1

    def play(self, job: Job) -> Played:
        if job.weights is not None:
            # In place: the compiled evaluator shares this array.
            self.learner.model.weights[...] = job.weights
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
        opening, learner_white = game_opening(self.config, self.book, job.ticket)
        self.recorder.take()  # nothing from a game that failed half-way
        self.learner.algorithm.start_game(job.ticket)
        summary = play_training_game(
            self.learner, self.opponent, opening, job.ticket, learner_white
        )
        return Played(job.ticket, self.version, summary, self.recorder.take())

    def close(self) -> None:
        if self.opponent is not None:
            self.opponent.close()
