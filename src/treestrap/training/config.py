"""What defines a training run: :class:`TrainConfig`, its presets and its checks.

The presets themselves live in :mod:`treestrap.training.presets`, which the command line
reads without importing this module's numba-backed dependencies.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from treestrap.evaluation.features import get_feature_set
from treestrap.evaluation.presets import RANDOM_SCALE
from treestrap.learn.names import (
    NETWORK_ALGORITHM,
    NETWORK_ALGORITHMS,
    NETWORK_OBJECTIVES,
    NODE_VALUES,
    OBJECTIVES,
    OPTIMIZERS,
)
from treestrap.learn.registry import ALGORITHMS
from treestrap.search.value import VALUE_CLIP
from treestrap.training.presets import PRESETS

#: The fields of a network run (``model`` other than "linear"); a linear run's
#: ``config.json`` leaves them out, so it reads as it did before networks.
NETWORK_FIELDS = ("model", "replay_size", "batch_size", "tree_nodes", "momentum", "replay_steps")


@dataclass
class TrainConfig:
    """Everything that defines a training run (``treestrap train --help`` lists them)."""

    algorithm: str = "treestrap-ab"
    games: int = 20
    feature_set: str = "meep"
    #: initial weights: "random" (small, seeded), "hand-set", or a weight file
    init: str = "random"
    seed: int = 0
    init_scale: float = RANDOM_SCALE
    #: step size; None = the paper's value for the algorithm
    step_size: float | None = None
    lam: float = 0.7
    #: minimum depth d of the nodes TreeStrap learns from
    min_depth: int = 1
    #: alpha-beta search: fixed depth, or (if depth is None) a node budget per move
    depth: int | None = 3
    nodes: int | None = None
    #: Fischer clock per player (seconds); sets a node budget per move from measured
    #: speed, and learning time is charged to the clock. None = no clock.
    clock: float | None = None
    increment: float = 0.0
    #: full-tree minimax budgets (Serban 2014): tree nodes, quiescence nodes per leaf
    minimax_nodes: int = 5000
    minimax_qnodes: int = 500
    #: "self", "stockfish", "stockfish:ELO", "uci:COMMAND" or a weight file
    opponent: str = "self"
    opponent_depth: int = 3
    #: games of self-play before the opponent takes over (0: the opponent from the
    #: first game). A partner late in a run moved the strong run's weights further
    #: than more self-play did (README, "Learning strength").
    opponent_after: int = 0
    #: raise/lower the opponent's UCI_Elo by ladder_step after a window of games
    ladder: bool = False
    ladder_window: int = 10
    ladder_step: int = 50
    #: None/"builtin", or a .tsv/.pgn/.epd file of opening lines
    openings: str | None = None
    max_plies: int = 300
    checkpoint_every: int = 10
    tt_bits: int = 18
    squash: bool = True
    predicted_only: bool = True
    use_outcome: bool = True
    #: feature-name prefixes whose weights keep their initial values. Tempo by
    #: default: learned from search trees it grows to the average one-ply gain of
    #: their (often tactical) nodes, several pawns, and then acts as a stand-pat bonus
    #: that keeps quiescence from capturing (measured: +407 Elo at 1000 games).
    freeze: list[str] = field(default_factory=lambda: ["tempo"])
    #: how each update is applied: "sgd" (the paper's fixed step), "adagrad" or "adam"
    #: (per-feature adaptive steps; ``step_size`` is then a change in weight units)
    optimizer: str = "sgd"
    #: TreeStrap: divide each search's summed update by the number of nodes in it
    normalise_step: bool = False
    #: RootStrap/TreeStrap error: "squared" (the paper), "cross-entropy" or "squashed"
    #: (values read as win probabilities through KnightCap's tanh; learn/targets.py)
    objective: str = "squared"
    #: the step halves after this many games (``tau / (tau + games)``); 0 = fixed
    step_decay: float = 0.0
    #: TreeStrap: learn only from quiet nodes (search/quiet.py), not from those where a
    #: capture, promotion or check decides the value at once
    quiet_only: bool = False
    #: TreeStrap(alpha-beta): the value each node's bounds are compared with: "static",
    #: H(s) (the paper), or "quiescence", Q(s) moved through the gradient at its
    #: principal quiescence leaf (search/quiescence.py: the search evaluates a node by
    #: Q, and H(s) cannot see the captures at hand)
    node_value: str = "static"
    #: TreeStrap: search bounds are clipped to +-this before they become targets
    #: (the paper: 9900, the heuristic range; learn/targets.py)
    target_clip: float = VALUE_CLIP
    #: "linear" (the feature set's weights, learned by ``algorithm``) or a network on
    #: the bitboard inputs learned by Serban's Algorithm 7 over full-tree minimax
    #: trees (treestrap-mm) or the alpha-beta's table bounds (treestrap-ab): "logreg"
    #: or "mlp:H" (hidden sizes, "mlp:H1,H2" for two layers)
    model: str = "linear"
    #: Algorithm 7: positions kept in the replay set (N; each tree node enters twice,
    #: as searched and colour-flipped), mini-batch size (M), tree nodes added per
    #: search by increasing depth (K), Nesterov momentum (0 = plain SGD) and
    #: mini-batch steps after each search
    replay_size: int = 100_000
    batch_size: int = 64
    tree_nodes: int = 500
    momentum: float = 0.9
    replay_steps: int = 1

    def validate(self) -> None:
        if self.opponent_after < 0:
            raise ValueError(f"opponent after must be >= 0 games, got {self.opponent_after}")
        if self.model != "linear":
            self._validate_network()
            return
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {self.algorithm!r}: {', '.join(ALGORITHMS)}")
        if self.games < 1:
            raise ValueError("games must be positive")
        if self.depth is None and self.nodes is None and self.clock is None:
            raise ValueError("give a search depth, a node budget or a clock")
        if self.depth is not None and not 1 <= self.depth <= 20:
            raise ValueError("depth must be in 1..20")
        if self.nodes is not None and self.nodes < 1:
            raise ValueError(f"nodes per move must be positive, got {self.nodes}")
        # ``not x > 0`` also refuses NaN, which no comparison would catch.
        if self.clock is not None and not self.clock > 0:
            raise ValueError(f"the clock must be a positive number of seconds, got {self.clock}")
        if not self.increment >= 0:
            raise ValueError(f"the clock increment must be >= 0 seconds, got {self.increment}")
        if self.checkpoint_every < 1:
            raise ValueError(f"checkpoint every must be >= 1 game, got {self.checkpoint_every}")
        if self.max_plies < 1:
            raise ValueError(f"max plies must be >= 1, got {self.max_plies}")
        if not 0.0 <= self.lam <= 1.0:
            raise ValueError("lambda must be in [0, 1]")
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"unknown optimizer {self.optimizer!r}: {', '.join(OPTIMIZERS)}")
        if self.objective not in OBJECTIVES:
            if self.objective in NETWORK_OBJECTIVES:
                raise ValueError(
                    f"objective {self.objective!r} is for networks: give --model "
                    f"(logreg or mlp:H); linear models take {', '.join(OBJECTIVES)}"
                )
            raise ValueError(f"unknown objective {self.objective!r}: {', '.join(OBJECTIVES)}")
        if self.step_decay < 0:
            raise ValueError("step decay must be >= 0 games")
        if self.step_size is not None and not self.step_size > 0:
            raise ValueError("step size must be positive")
        if not 0 < self.target_clip <= VALUE_CLIP:
            raise ValueError(f"target clip must be in (0, {VALUE_CLIP:g}], got {self.target_clip}")
        if self.node_value not in NODE_VALUES:
            raise ValueError(f"unknown node value {self.node_value!r}: {', '.join(NODE_VALUES)}")
        if self.node_value != "static" and self.algorithm != "treestrap-ab":
            raise ValueError(
                f"--node-value {self.node_value} is for treestrap-ab (the table walk), "
                f"not {self.algorithm}"
            )
        frozen_indices(get_feature_set(self.feature_set).names, self.freeze)

    def _validate_network(self) -> None:
        network_sizes(self.model)
        if self.algorithm not in NETWORK_ALGORITHMS:
            raise ValueError(
                f"--model {self.model} learns by Serban's Algorithm 7 over minimax trees "
                f"(--algorithm {NETWORK_ALGORITHM}) or over the alpha-beta's table bounds "
                f"(treestrap-ab), not by {self.algorithm}"
            )
        if self.node_value != "static":
            raise ValueError(f"--node-value {self.node_value} is for linear models")
        if self.feature_set != "bitboard":
            raise ValueError(f"networks read the bitboard inputs, not {self.feature_set!r}")
        if self.objective not in NETWORK_OBJECTIVES:
            raise ValueError(
                f"objective {self.objective!r} is for linear models; networks take "
                f"{', '.join(NETWORK_OBJECTIVES)}"
            )
        if self.optimizer != "sgd":
            raise ValueError("networks take SGD with --momentum, not --optimizer")
        if self.games < 1:
            raise ValueError("games must be positive")
        if self.depth is not None and not 1 <= self.depth <= 20:
            raise ValueError("depth must be in 1..20")
        unbounded = self.depth is None and self.nodes is None and self.clock is None
        if self.algorithm == "treestrap-ab" and unbounded:
            raise ValueError("give a search depth, a node budget or a clock")
        if self.nodes is not None and self.nodes < 1:
            raise ValueError(f"nodes per move must be positive, got {self.nodes}")
        if self.minimax_nodes < 1 or self.minimax_qnodes < 0:
            raise ValueError("minimax nodes must be >= 1 and quiescence nodes >= 0")
        if self.clock is not None and not self.clock > 0:
            raise ValueError(f"the clock must be a positive number of seconds, got {self.clock}")
        if not self.increment >= 0:
            raise ValueError(f"the clock increment must be >= 0 seconds, got {self.increment}")
        if self.checkpoint_every < 1:
            raise ValueError(f"checkpoint every must be >= 1 game, got {self.checkpoint_every}")
        if self.max_plies < 1:
            raise ValueError(f"max plies must be >= 1, got {self.max_plies}")
        if self.step_size is not None and not self.step_size > 0:
            raise ValueError("step size must be positive")
        if self.replay_size < 2:
            raise ValueError(f"replay size must be >= 2 positions, got {self.replay_size}")
        if self.batch_size < 1 or self.tree_nodes < 1 or self.replay_steps < 1:
            raise ValueError("batch size, tree nodes and replay steps must be >= 1")
        if not 0.0 <= self.momentum < 1.0:
            raise ValueError(f"momentum must be in [0, 1), got {self.momentum}")

    def to_json_dict(self) -> dict[str, object]:
        """What ``config.json`` holds: every field, less the network ones in a linear
        run (its file is then byte for byte what it was before networks)."""
        saved = dataclasses.asdict(self)
        if self.model == "linear":
            for name in NETWORK_FIELDS:
                del saved[name]
        return saved


def network_sizes(spec: str) -> list[int]:
    """Layer sizes of a ``--model`` network: "logreg" -> [1], "mlp:20" -> [20, 1],
    "mlp:32,8" -> [32, 8, 1]; ``ValueError`` for anything else."""
    if spec == "logreg":
        return [1]
    if spec.startswith("mlp:"):
        try:
            hidden = [int(h) for h in spec[4:].split(",")]
        except ValueError:
            hidden = []
        if hidden and all(1 <= h <= 4096 for h in hidden):
            return [*hidden, 1]
    raise ValueError(
        f"unknown model {spec!r}: linear, logreg or mlp:H (H hidden units, 1..4096; "
        "mlp:H1,H2 for two hidden layers)"
    )


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
