"""A run's update rule from its config, in one place: the step size (``--step-size``,
or the rule's default), the hyperparameters and the rule itself.

learn/ sits below training/, so the config is described here by the fields it reads
(:class:`RuleConfig`); :class:`treestrap.training.config.TrainConfig` has them all.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from treestrap.connect4.inputs import INPUT_NB
from treestrap.connect4.network import write_parameters
from treestrap.evaluation.model import Evaluator
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.torch_network import network_parameters_of, torch_network
from treestrap.evaluation.weights import LinearModel
from treestrap.games.connect4_network import Connect4NetworkModel
from treestrap.learn.base import Hyper, Rule
from treestrap.learn.names import NETWORK_OBJECTIVES
from treestrap.learn.network_treestrap import NETWORK_STEP_SIZE
from treestrap.learn.registry import default_step_size, make_algorithm, make_network_algorithm
from treestrap.learn.replay import ReplayHyper, ReplayTrainer
from treestrap.learn.replay_inputs import CONNECT4_INPUTS


class RuleConfig(Protocol):
    """The fields of a run's config that choose its rule and set its hyperparameters
    (each one's meaning: :mod:`treestrap.training.options`)."""

    game: str
    algorithm: str
    seed: int
    step_size: float | None
    # the linear rules' (Hyper)
    lam: float
    min_depth: int
    squash: bool
    predicted_only: bool
    use_outcome: bool
    optimizer: str
    normalise_step: bool
    objective: str
    step_decay: float
    quiet_only: bool
    target_clip: float
    # Algorithm 7's (ReplayHyper)
    replay_size: int
    batch_size: int
    tree_nodes: int
    replay_steps: int
    momentum: float
    weight_decay: float
    teacher_every: int
    node_value: str


def write_connect4_network(evaluator: Any, params: np.ndarray) -> None:
    """A Connect Four network's new parameters into its evaluator's buffer."""
    write_parameters(evaluator.weights, params)


def rule_step_size(config: RuleConfig, network: bool) -> float:
    """``config.step_size``, or the rule's default: the paper's for a linear rule
    (:func:`~treestrap.learn.registry.default_step_size`), Algorithm 7's
    :data:`~treestrap.learn.network_treestrap.NETWORK_STEP_SIZE` for a network. A
    step of 0 is kept: the run plays its games and learns nothing."""
    if config.step_size is not None:
        return config.step_size
    if network:
        return NETWORK_STEP_SIZE
    return default_step_size(
        config.algorithm, config.squash, config.optimizer, config.normalise_step, config.game
    )


def make_rule(
    config: RuleConfig,
    model: LinearModel | NetworkModel | Connect4NetworkModel,
    evaluator: Evaluator | Any,
    frozen: tuple[int, ...] = (),
) -> Rule:
    """The rule of a run that learns ``model``, with the config's hyperparameters: a
    linear rule by name (``frozen``: the indices of weights it never changes), or
    Algorithm 7 over a float64 torch copy of the network, which writes each step's
    parameters into ``evaluator`` (the searches'; a Connect Four network's replay set
    holds its 85 inputs, mirrored left to right)."""
    if isinstance(model, NetworkModel | Connect4NetworkModel):
        network_hyper = ReplayHyper(
            capacity=config.replay_size,
            batch=config.batch_size,
            nodes=config.tree_nodes,
            steps=config.replay_steps,
            objective=NETWORK_OBJECTIVES[config.objective],
            lr=rule_step_size(config, network=True),
            momentum=config.momentum,
            weight_decay=config.weight_decay,
            step_decay=config.step_decay,
            seed=config.seed,
            leaves=config.node_value == "quiescence",
            teacher_every=config.teacher_every,
        )
        if isinstance(model, Connect4NetworkModel):
            net = torch_network(list(model.sizes), model.weights, INPUT_NB)
            write = write_connect4_network
            trainer = ReplayTrainer(
                net, evaluator, network_parameters_of, network_hyper, CONNECT4_INPUTS, write
            )
        else:
            net = torch_network(list(model.sizes), model.weights, activation=model.activation)
            trainer = ReplayTrainer(net, evaluator, network_parameters_of, network_hyper)
        return make_network_algorithm(config.algorithm, trainer, config.seed)
    hyper = Hyper(
        step_size=rule_step_size(config, network=False),
        lam=config.lam,
        min_depth=config.min_depth,
        squash=config.squash,
        predicted_only=config.predicted_only,
        use_outcome=config.use_outcome,
        frozen=frozen,
        optimizer=config.optimizer,
        normalise=config.normalise_step,
        objective=config.objective,
        step_decay=config.step_decay,
        quiet_only=config.quiet_only,
        target_clip=config.target_clip,
    )
    return make_algorithm(config.algorithm, model, hyper)
