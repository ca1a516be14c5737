"""The learning player: its model, its update rule (:mod:`treestrap.learn`, made from the
run's config by :func:`~treestrap.learn.rule_config.make_rule`) and the search that rule
learns from (:mod:`treestrap.training.searches`: the training alpha-beta, with the
table walk for TreeStrap(alpha-beta), or Serban's full-tree minimax). A linear model
learns by its rule's gradient steps in place; a network by Serban's Algorithm 7 (replay
mini-batches from minimax trees, or from the table walk's bounds with a one-sided
loss). The game's contract (:mod:`treestrap.games`) moves and evaluates its positions."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.weights import LinearModel
from treestrap.games.connect4_model import Connect4Model
from treestrap.games.connect4_network import Connect4NetworkModel
from treestrap.games.registry import get_game
from treestrap.learn.base import Rule, Step
from treestrap.learn.network_treestrap import ReplayAlgorithm
from treestrap.learn.rule_config import make_rule
from treestrap.training.config import TrainConfig, frozen_indices
from treestrap.training.searches import SearchSource, learning_search

#: What a learner learns: linear weights or a network, of chess or Connect Four.
LearnerModel = LinearModel | NetworkModel | Connect4Model | Connect4NetworkModel


class Learner:
    """The learning player of a run: ``model`` (linear or a network), the rule of
    ``config`` and the search it learns from, chosen by the rule's ``search_kind``."""

    def __init__(self, config: TrainConfig, model: LearnerModel) -> None:
        self.config = config
        self.game = get_game(config.game)
        self._model = model
        # A network's sizes and provenance, for the weight files of model().
        self._sizes = list(model.sizes) if model.is_network else []
        self._metadata = dict(model.metadata)
        self.ev = model.evaluator()
        # --freeze names features of linear models
        frozen = () if model.is_network else frozen_indices(model.feature_names(), config.freeze)
        self.algorithm: Rule = make_rule(config, model, self.ev, frozen)
        network = model.is_network
        self.source: SearchSource = learning_search(config, self.algorithm, network)
        self.nps = 200_000.0  # updated from measurements; sets clock-derived budgets

    def model(self) -> LearnerModel:
        """The model as it stands (a weight file's): a linear model is learned in place;
        a network's parameters are read from the torch copy its rule steps."""
        if self._model.is_network:
            assert isinstance(self.algorithm, ReplayAlgorithm)
            params = self.algorithm.network_parameters()
            return dataclasses.replace(self._model, weights=params, metadata=dict(self._metadata))
        return self._model

    def search(self, pos: Any, node_budget: int | None) -> tuple[Any, Step]:
        """Search ``pos`` (within ``node_budget`` nodes where the search takes one) and
        record what the rule learns from."""
        game = self.game
        result, tree = self.source.search(pos, self.ev, node_budget)
        if self.algorithm.needs_root_gradient:
            h, n = game.evaluate_gradient(pos, self.ev)
            static, idx, val = float(h), self.ev.idx[:n].copy(), self.ev.val[:n].copy()
        else:
            empty = np.zeros(0)
            static, idx, val = float(game.evaluate(pos, self.ev)), empty.astype(np.int64), empty
        step = Step(
            color=int(game.side_to_move(pos)),
            root_value=result.value,
            root_static=static,
            root_idx=idx,
            root_val=val,
            tree=tree,
            predicted_reply=result.pv[1] if len(result.pv) > 1 else game.no_move,
        )
        if self.algorithm.needs_leaf:
            self._record_leaf(step, pos, result.pv)
        return result, step

    def _record_leaf(self, step: Step, pos: Any, pv: list[int]) -> None:
        """The principal leaf's value and gradient, from the root side's view."""
        leaf = self.game.copy_position(pos)
        for m in pv:
            self.game.make_move(leaf, m)
        lh, ln = self.game.evaluate_gradient(leaf, self.ev)
        sign = 1.0 if len(pv) % 2 == 0 else -1.0
        step.leaf_value = sign * float(lh)
        step.leaf_idx = self.ev.idx[:ln].copy()
        step.leaf_val = sign * self.ev.val[:ln].copy()
