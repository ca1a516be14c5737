"""A run's update rule from its config, in one place: the step size (``--step-size``,
or the rule's default), the hyperparameters and the rule itself.

learn/ sits below training/, so the config is read by the names of the rule options
(:data:`~treestrap.learn.rule_options.RULE_OPTIONS`; each family's dataclass declares
its own) and of the few fields of the run a rule also needs (:class:`RuleConfig`);
:class:`treestrap.training.config.TrainConfig` has them all.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol

from treestrap.evaluation.model import Evaluator
from treestrap.evaluation.torch_network import network_parameters_of
from treestrap.games.registry import game_facts, get_game
from treestrap.learn.base import Rule
from treestrap.learn.linear_hyper import Hyper
from treestrap.learn.registry import (
    default_step_size,
    make_algorithm,
    make_network_algorithm,
)
from treestrap.learn.replay import ReplayTrainer
from treestrap.learn.replay_hyper import ReplayHyper
from treestrap.learn.rule_option import OPTION
from treestrap.learn.rules import NETWORK_STEP_SIZE


class RuleConfig(Protocol):
    """The fields of a run's config that choose its rule, beside the rule options
    (:data:`~treestrap.learn.rule_options.RULE_OPTIONS`, read by name)."""

    game: str
    algorithm: str
    seed: int
    step_size: float | None
    squash: bool
    optimizer: str
    normalise_step: bool


def options_of(family: type, config: RuleConfig) -> dict[str, Any]:
    """The values ``config`` gives the options that ``family`` declares."""
    return {
        f.name: getattr(config, f.name) for f in dataclasses.fields(family) if OPTION in f.metadata
    }


def rule_step_size(config: RuleConfig, network: bool) -> float:
    """``config.step_size``, or the rule's default: the paper's for a linear rule
    (:func:`~treestrap.learn.registry.default_step_size`), Algorithm 7's
    :data:`~treestrap.learn.rules.NETWORK_STEP_SIZE` for a network. A
    step of 0 is kept: the run plays its games and learns nothing."""
    if config.step_size is not None:
        return config.step_size
    if network:
        return NETWORK_STEP_SIZE
    return default_step_size(
        config.algorithm,
        config.squash,
        config.optimizer,
        config.normalise_step,
        game_facts(config.game).step_factors,
    )


def make_rule(
    config: RuleConfig,
    model: Any,
    evaluator: Evaluator | Any,
    frozen: tuple[int, ...] = (),
) -> Rule:
    """The rule of a run that learns ``model``, with the config's hyperparameters: a
    linear rule by name (``frozen``: the indices of weights it never changes), or
    Algorithm 7 over a float64 torch copy of the network, which writes each step's
    parameters into ``evaluator`` (the searches'). ``model`` is a game's model
    (:mod:`treestrap.games.contract`): a network offers its torch twin and the write of
    new parameters into its evaluator, and the game its inputs' layout and symmetry."""
    if model.is_network:
        network_hyper = ReplayHyper(
            **options_of(ReplayHyper, config),
            step_size=rule_step_size(config, network=True),
            seed=config.seed,
        )
        trainer = ReplayTrainer(
            model.torch_twin(),
            evaluator,
            network_parameters_of,
            network_hyper,
            get_game(config.game).network_inputs,
            model.write_evaluator,
        )
        return make_network_algorithm(config.algorithm, trainer, config.seed)
    hyper = Hyper(
        **options_of(Hyper, config),
        step_size=rule_step_size(config, network=False),
        frozen=frozen,
    )
    return make_algorithm(config.algorithm, model, hyper)
