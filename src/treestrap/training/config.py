"""What defines a training run: :class:`TrainConfig`, made from the option table of
:mod:`treestrap.training.options`, and its checks.

The presets themselves live in :mod:`treestrap.training.presets`, which the command line
reads without importing this module's numba-backed dependencies.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, TypeVar

from treestrap.evaluation.presets import RANDOM_SCALE
from treestrap.games.registry import game_facts
from treestrap.learn.linear_hyper import SEARCH_VALUE_CLIP
from treestrap.learn.rules import ALGORITHM_NAMES, NETWORK_ALGORITHM, NETWORK_ALGORITHMS
from treestrap.learn.shared_options import NETWORK_OBJECTIVES, OBJECTIVES
from treestrap.option import LINEAR, Option, model_kind
from treestrap.search.value import VALUE_CLIP
from treestrap.training.options import (
    NETWORK_DEFAULTS,
    NETWORK_OPTIONS,
    OPTIONS_BY_NAME,
    TRAIN_OPTIONS,
    UNSAVED_OPTIONS,
)
from treestrap.training.presets import PRESETS

# The table cannot import these (numba); it writes them out, and they must agree.
assert SEARCH_VALUE_CLIP == VALUE_CLIP, "learn/linear_hyper.py: SEARCH_VALUE_CLIP"
assert OPTIONS_BY_NAME["init_scale"].default == RANDOM_SCALE, "training/options.py: init_scale"

C = TypeVar("C")


def _field(option: Option) -> Any:
    """The dataclass field of ``option``: a list default is copied for each config."""
    if isinstance(option.default, list):
        return dataclasses.field(default_factory=functools.partial(list, option.default))
    return dataclasses.field(default=option.default)


def _fields_from_options(cls: type[C]) -> type[C]:
    """``cls`` as a dataclass whose fields are the table's options, in its order."""
    cls.__annotations__ = {option.name: option.type for option in TRAIN_OPTIONS}
    for option in TRAIN_OPTIONS:
        setattr(cls, option.name, _field(option))
    return dataclasses.dataclass(cls)


@_fields_from_options
class TrainConfig:
    """Everything that defines a training run: one field per option of
    :data:`treestrap.training.options.TRAIN_OPTIONS` (``treestrap train --help`` lists
    those with a flag); each option's ``doc`` says what its field means."""

    def validate(self) -> None:
        """``ValueError`` with the first problem: a value the model kind does not take,
        a value out of its option's bounds, then options that do not go together."""
        kind = model_kind(self.model)
        kind_problem = _linear_problem if kind == LINEAR else _network_problem
        problem = (
            _game_problem(self)
            or kind_problem(self)
            or _option_problem(self, kind)
            or _combination_problem(self, kind)
        )
        if problem is not None:
            raise ValueError(problem)
        if kind == LINEAR:
            from treestrap.games.registry import get_game  # compiles the game

            frozen_indices(get_game(self.game).feature_names(self.feature_set), self.freeze)

    def to_json_dict(self) -> dict[str, object]:
        """What ``config.json`` holds: every field but where the run reports
        (``UNSAVED_OPTIONS``), less the network ones in a linear run and the game in a
        chess run (its file is then byte for byte what it was before networks and
        games)."""
        saved = dataclasses.asdict(self)
        for option in UNSAVED_OPTIONS:
            del saved[option.name]
        if not game_facts(self.game).named_in_files:
            del saved["game"]
        if model_kind(self.model) == LINEAR:
            for option in NETWORK_OPTIONS:
                del saved[option.name]
        return saved


def _game_problem(config: TrainConfig) -> str | None:
    """What the game does not take, or None."""
    try:
        facts = game_facts(config.game)
    except ValueError as exc:
        return str(exc)
    refused = facts.problem(config)
    own_features = facts.train_defaults.get("feature_set")
    if refused is None and own_features not in (None, config.feature_set):
        return (
            f"--feature-set {config.feature_set} is not a {facts.title} feature set: "
            f"{facts.title} has its own features ({own_features})"
        )
    return refused


def game_config(game: str, **fields: Any) -> TrainConfig:
    """A run's config for ``game``: its defaults, TrainConfig's for the fields not given."""
    return TrainConfig(**{**game_facts(game).train_defaults, "game": game, **fields})


def _linear_problem(config: TrainConfig) -> str | None:
    """What a linear model cannot learn with, or None."""
    if config.algorithm not in ALGORITHM_NAMES:
        return f"unknown algorithm {config.algorithm!r}: {', '.join(ALGORITHM_NAMES)}"
    if config.objective not in OBJECTIVES:
        if config.objective in NETWORK_OBJECTIVES:
            return (
                f"objective {config.objective!r} is for networks: give --model "
                f"(logreg, mlp:H or crelu:H); linear models take {', '.join(OBJECTIVES)}"
            )
        return f"unknown objective {config.objective!r}: {', '.join(OBJECTIVES)}"
    return None


def _network_problem(config: TrainConfig) -> str | None:
    """What a network cannot learn with, or None (``ValueError`` for a bad ``model``)."""
    network_sizes(config.model)
    if config.algorithm not in NETWORK_ALGORITHMS:
        return (
            f"--model {config.model} learns by Serban's Algorithm 7 over minimax trees "
            f"(--algorithm {NETWORK_ALGORITHM}) or over the alpha-beta's table bounds "
            f"(treestrap-ab), not by {config.algorithm}"
        )
    facts = game_facts(config.game)
    inputs = facts.network_inputs  # the game's own bitboards
    if network_activation(config.model) not in facts.network_activations:
        kinds = " or ".join(facts.network_activations)
        return f"{facts.title} networks have {kinds} hidden units (mlp:H)"
    if config.feature_set != inputs:
        return f"networks read the bitboard inputs, not {config.feature_set!r}"
    if config.objective not in NETWORK_OBJECTIVES:
        return (
            f"objective {config.objective!r} is for linear models; networks take "
            f"{', '.join(NETWORK_OBJECTIVES)}"
        )
    if config.optimizer != "sgd":
        return "networks take SGD with --momentum, not --optimizer"
    return None


def _option_problem(config: TrainConfig, kind: str) -> str | None:
    """The first value out of its option's bounds, of the options of ``kind``."""
    for option in TRAIN_OPTIONS:
        if kind in option.kinds:
            problem = option.problem(getattr(config, option.name))
            if problem is not None:
                return problem
    return None


def _combination_problem(config: TrainConfig, kind: str) -> str | None:
    """Options that do not go together, or None."""
    unbounded = config.depth is None and config.nodes is None and config.clock is None
    # A network's treestrap-mm search stays within its minimax tree's node budget.
    if unbounded and (kind == LINEAR or config.algorithm == "treestrap-ab"):
        return "give a search depth, a node budget or a clock"
    if config.node_value != "static" and config.algorithm != "treestrap-ab":
        return (
            f"--node-value {config.node_value} is for treestrap-ab (the table walk), "
            f"not {config.algorithm}"
        )
    if kind != LINEAR and (config.minimax_nodes < 1 or config.minimax_qnodes < 0):
        return "minimax nodes must be >= 1 and quiescence nodes >= 0"
    return None


#: ``--model`` kinds of network with hidden layers, and their activation.
NETWORK_KINDS = {"mlp": "tanh", "crelu": "crelu"}


def network_config(model: str, **fields: Any) -> TrainConfig:
    """A network run's config (``model`` "logreg" or "mlp:H"): the network defaults of
    the option table for the fields not given, TrainConfig's for the others."""
    return TrainConfig(**{**NETWORK_DEFAULTS, "model": model, **fields})


def network_sizes(spec: str) -> list[int]:
    """Layer sizes of a ``--model`` network: "logreg" -> [1], "mlp:20" -> [20, 1],
    "mlp:32,8" -> [32, 8, 1], "crelu:256" -> [256, 1]; ``ValueError`` for anything
    else."""
    if spec == "logreg":
        return [1]
    kind, _, widths = spec.partition(":")
    if kind in NETWORK_KINDS and widths:
        try:
            hidden = [int(h) for h in widths.split(",")]
        except ValueError:
            hidden = []
        if hidden and all(1 <= h <= 4096 for h in hidden):
            return [*hidden, 1]
    raise ValueError(
        f"unknown model {spec!r}: linear, logreg, mlp:H (H tanh hidden units, 1..4096; "
        "mlp:H1,H2 for two hidden layers) or crelu:H (clipped-ReLU hidden units)"
    )


def network_activation(spec: str) -> str:
    """The hidden units' activation of a ``--model`` network (see :func:`network_sizes`)."""
    return NETWORK_KINDS.get(spec.partition(":")[0], "tanh")


def apply_preset(config: TrainConfig, name: str) -> TrainConfig:
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r} (known: {', '.join(PRESETS)})")
    return dataclasses.replace(config, **PRESETS[name])


def frozen_indices(names: list[str], prefixes: list[str]) -> tuple[int, ...]:
    """Indices of the features whose names start with any of ``prefixes``."""
    found = tuple(i for i, n in enumerate(names) if any(n.startswith(p) for p in prefixes))
    unmatched = [p for p in prefixes if not any(n.startswith(p) for n in names)]
    if unmatched:
        raise ValueError(f"--freeze: no feature starts with {', '.join(unmatched)}")
    return found
