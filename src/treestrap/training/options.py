"""The options of a training run, each declared once: its field of
:class:`~treestrap.training.config.TrainConfig` (name, type, default, meaning), its flag
of ``treestrap train`` (help, metavar, choices), the model kinds it is for and the bound
its value must keep.

:mod:`treestrap.training.config` makes ``TrainConfig`` and its checks from this table,
and :mod:`treestrap.commands.train` its parser; the table is free of numba, so that
``treestrap train --help`` stays instant.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import NoneType, UnionType
from typing import Any, get_args, get_origin

from treestrap.evaluation.feature_sets import FEATURE_SET_NAMES
from treestrap.games.registry import DEFAULT_GAME, game_names
from treestrap.learn.names import (
    ALGORITHM_NAMES,
    NETWORK_ALGORITHM,
    NETWORK_OBJECTIVES,
    NODE_VALUES,
    OBJECTIVES,
    OPTIMIZERS,
)

#: The model kinds: the feature set's linear weights, or a network (``--model``).
LINEAR = "linear"
NETWORK = "network"
MODEL_KINDS = (LINEAR, NETWORK)

#: Searches clip heuristic values to +-this (``treestrap.search.value.VALUE_CLIP``,
#: written out here because that module needs numba; training/config.py checks that
#: the two agree).
SEARCH_VALUE_CLIP = 9900.0

#: The ``network_default`` of an option whose network default is its ``default``.
SAME_FOR_NETWORKS: Any = object()


def model_kind(model: str) -> str:
    """The kind of a ``model`` value: "linear" is the linear model, anything else a network."""
    return LINEAR if model == "linear" else NETWORK


@dataclass(frozen=True)
class Check:
    """A bound on one option's value: ``ok(value)``, or ``message`` (``str.format`` with
    ``value``) is the error. An option that may be None is not checked when it is."""

    ok: Callable[[Any], bool]
    message: str


@dataclass(frozen=True)
class TrainOption:
    """One option of a training run: a ``TrainConfig`` field and, if it has a ``flag``,
    an option of ``treestrap train`` that sets it (argparse's dest is ``name``)."""

    name: str
    type: Any  # the field's type, e.g. ``int | None``
    default: Any
    #: what the option means, and why it is as it is (for readers of the code)
    doc: str = ""
    #: the model kinds the option is for; the others ignore it, and a linear run's
    #: ``config.json`` leaves out the options of networks alone
    kinds: tuple[str, ...] = MODEL_KINDS
    #: a network run's default, where it is not ``default``
    network_default: Any = SAME_FOR_NETWORKS
    flag: str | None = None  # None: a field no flag sets (presets and code do)
    help: str | None = None
    metavar: str | None = None
    choices: Sequence[str] | None = None
    #: the command line refuses a count below 1 at once, as a usage error
    at_least_one: bool = False
    check: Check | None = None
    #: recorded in ``config.json``; False for an option that says where the run reports,
    #: not what it computes (a resumed run then takes it from its command line)
    saved: bool = True

    @property
    def optional(self) -> bool:
        """Whether None is a value of the option (unset: no depth, no clock)."""
        return get_origin(self.type) is UnionType and NoneType in get_args(self.type)

    @property
    def value_type(self) -> type:
        """The type of a given value: int for ``int | None``, list for ``list[str]``."""
        origin = get_origin(self.type)
        if origin is UnionType:
            (given,) = (t for t in get_args(self.type) if t is not NoneType)
            return given
        return origin or self.type

    def problem(self, value: Any) -> str | None:
        """The error for ``value``, or None if the option takes it."""
        if self.check is None or (value is None and self.optional):
            return None
        # A check reads ``ok``, not a failing comparison: NaN fails every ``v > 0``.
        return None if self.check.ok(value) else self.check.message.format(value=value)


def _unknown(what: str, names: Sequence[str]) -> Check:
    """Membership in ``names``, refused as "unknown WHAT 'x': a, b, c"."""
    return Check(lambda v: v in names, f"unknown {what} {{value!r}}: {', '.join(names)}")


_COUNTS_OF_REPLAY = Check(lambda v: v >= 1, "batch size, tree nodes and replay steps must be >= 1")

#: Every option, in the order of ``TrainConfig``'s fields (and of ``config.json``).
TRAIN_OPTIONS: tuple[TrainOption, ...] = (
    TrainOption(
        "game",
        str,
        DEFAULT_GAME,
        doc="the game played and learned (games/): chess, or connect4 (linear weights "
        "over the Connect Four features, or with --model a network over its 84 + 1 "
        "bitboard inputs; self-play from seeded random openings). A chess "
        "run's config.json leaves it out (the file as it was before there were games).",
        flag="--game",
        choices=game_names(),
        help="chess (default) or connect4: self-play from random 2-4 ply openings, "
        "linear weights over the Connect Four features or a --model network over its "
        "bitboard inputs (docs/connect4.md)",
        # the table of games, read when the value is checked (a test registers its own)
        check=Check(lambda v: v in game_names(), "unknown game {value!r}"),
    ),
    TrainOption(
        "algorithm",
        str,
        "treestrap-ab",
        doc="the update rule (learn/names.py); networks learn by Serban's Algorithm 7 "
        "over minimax trees or the alpha-beta's table bounds",
        network_default=NETWORK_ALGORITHM,
        flag="--algorithm",
        choices=ALGORITHM_NAMES,
    ),
    TrainOption(
        "games",
        int,
        20,
        flag="--games",
        help="games to play in total (default 20)",
        check=Check(lambda v: v >= 1, "games must be positive"),
    ),
    TrainOption(
        "feature_set",
        str,
        "meep",
        doc="what the linear model weighs; networks read the bitboard inputs",
        network_default="bitboard",
        flag="--feature-set",
        choices=FEATURE_SET_NAMES,
    ),
    TrainOption(
        "init",
        str,
        "random",
        doc='initial weights: "random" (small, seeded), "hand-set", or a weight file',
        flag="--init",
        help="'random' (default), 'hand-set' or a weight file",
    ),
    TrainOption(
        "seed",
        int,
        0,
        flag="--seed",
        help="seed of the random weights and openings",
    ),
    TrainOption(
        "init_scale",
        float,
        1.0,  # treestrap.evaluation.presets.RANDOM_SCALE (training/config.py checks)
        flag="--init-scale",
        help="random initial weights are uniform in [-SCALE, SCALE] (default 1); a "
        "network's in [-SCALE/sqrt(fan-in), SCALE/sqrt(fan-in)]",
    ),
    TrainOption(
        "step_size",
        float | None,
        None,
        doc="step size; None = the paper's value for the algorithm, 0 = play only",
        flag="--step-size",
        help="default: the paper's value for the algorithm; 0 plays the games and keeps "
        "the weights as they are (positions for distill label)",
        check=Check(lambda v: v >= 0, "step size must be >= 0"),
    ),
    TrainOption(
        "lam",
        float,
        0.7,
        kinds=(LINEAR,),
        flag="--lambda",
        help="TD lambda (default 0.7)",
        check=Check(lambda v: 0.0 <= v <= 1.0, "lambda must be in [0, 1]"),
    ),
    TrainOption(
        "min_depth",
        int,
        1,
        doc="minimum depth d of the nodes TreeStrap learns from",
        flag="--min-depth",
        help="TreeStrap d (default 1)",
    ),
    TrainOption(
        "depth",
        int | None,
        3,
        doc="alpha-beta search: fixed depth, or (if depth is None) a node budget per move",
        flag="--depth",
        help="fixed alpha-beta search depth (default 3)",
        check=Check(lambda v: 1 <= v <= 20, "depth must be in 1..20"),
    ),
    TrainOption(
        "nodes",
        int | None,
        None,
        flag="--nodes",
        help="node budget per move instead of a depth",
        check=Check(lambda v: v >= 1, "nodes per move must be positive, got {value}"),
    ),
    TrainOption(
        "clock",
        float | None,
        None,
        doc="Fischer clock per player (seconds); sets a node budget per move from measured "
        "speed, and learning time is charged to the clock. None = no clock.",
        flag="--clock",
        help="Fischer clock base in seconds",
        check=Check(lambda v: v > 0, "the clock must be a positive number of seconds, got {value}"),
    ),
    TrainOption(
        "increment",
        float,
        0.0,
        flag="--increment",
        help="Fischer increment in seconds",
        check=Check(lambda v: v >= 0, "the clock increment must be >= 0 seconds, got {value}"),
    ),
    TrainOption(
        "minimax_nodes",
        int,
        5000,
        doc="full-tree minimax budgets (Serban 2014): tree nodes, quiescence nodes per leaf",
        flag="--minimax-nodes",
        help="minimax tree node budget (default 5000)",
    ),
    TrainOption(
        "minimax_qnodes",
        int,
        500,
        flag="--minimax-qnodes",
        help="minimax quiescence nodes per leaf (default 500)",
    ),
    TrainOption(
        "opponent",
        str,
        "self",
        doc='"self", "stockfish", "stockfish:ELO", "uci:COMMAND" or a weight file',
        flag="--opponent",
        help="'self' (default), a preset ('hand-set', 'learned'), 'stockfish[:ELO]', "
        "'uci:CMD' or a weight file",
    ),
    TrainOption("opponent_depth", int, 3, flag="--opponent-depth"),
    TrainOption(
        "opponent_after",
        int,
        0,
        doc="games of self-play before the opponent takes over (0: the opponent from the "
        "first game). A partner late in a run moved the strong run's weights further "
        "than more self-play did (docs/learning.md).",
        flag="--opponent-after",
        metavar="GAMES",
        help="play the first GAMES games against itself, then against --opponent "
        "(default 0; 8265 in --preset strong)",
        check=Check(lambda v: v >= 0, "opponent after must be >= 0 games, got {value}"),
    ),
    TrainOption(
        "ladder",
        bool,
        False,
        doc="raise/lower the opponent's UCI_Elo by ladder_step after a window of games",
        flag="--ladder",
        help="raise/lower the opponent's UCI_Elo with the learner's score",
    ),
    TrainOption("ladder_window", int, 10),
    TrainOption("ladder_step", int, 50),
    TrainOption(
        "openings",
        str | None,
        None,
        doc='None/"builtin", or a .tsv/.pgn/.epd file of opening lines',
        flag="--openings",
        help="opening lines: .tsv/.pgn/.epd (default: built-in)",
    ),
    TrainOption(
        "max_plies",
        int,
        300,
        flag="--max-plies",
        check=Check(lambda v: v >= 1, "max plies must be >= 1, got {value}"),
    ),
    TrainOption(
        "checkpoint_every",
        int,
        10,
        flag="--checkpoint-every",
        check=Check(lambda v: v >= 1, "checkpoint every must be >= 1 game, got {value}"),
    ),
    TrainOption(
        "tensorboard",
        str | None,
        None,
        doc="a TensorBoard log directory that each game's metrics also go to, as scalars "
        "at step = game number (training/tensorboard_log.py). Where the run reports, not "
        "what it computes: config.json leaves it out, and --resume takes it anew.",
        flag="--tensorboard",
        metavar="DIR",
        help="also log each game's metrics (errors, step size, speed, weight norm, piece "
        "values) as TensorBoard scalars in DIR, one step per game (needs the tensorboard "
        "package: pip install 'treestrap[tensorboard]'); with --resume, carries on the log",
        saved=False,
    ),
    TrainOption(
        "tt_bits",
        int,
        18,
        flag="--tt-bits",
        help="log2 of the table's entries",
    ),
    TrainOption("squash", bool, True, kinds=(LINEAR,)),
    TrainOption("predicted_only", bool, True, kinds=(LINEAR,)),
    TrainOption("use_outcome", bool, True, kinds=(LINEAR,)),
    TrainOption(
        "freeze",
        list[str],
        ["tempo"],  # each TrainConfig gets a copy
        doc="feature-name prefixes whose weights keep their initial values. Tempo by "
        "default: learned from search trees it grows to the average one-ply gain of "
        "their (often tactical) nodes, several pawns, and then acts as a stand-pat bonus "
        "that keeps quiescence from capturing (measured: +407 Elo at 1000 games).",
        kinds=(LINEAR,),
        flag="--freeze",
        metavar="PREFIX",
        help="keep the weights of features named PREFIX... at their initial values "
        "(repeatable; default: tempo; 'none' learns every weight)",
    ),
    TrainOption(
        "optimizer",
        str,
        "sgd",
        doc='how each update is applied: "sgd" (the paper\'s fixed step), "adagrad" or '
        '"adam" (per-feature adaptive steps; ``step_size`` is then a change in weight '
        "units)",
        kinds=(LINEAR,),
        flag="--optimizer",
        choices=OPTIMIZERS,
        help="how updates are applied: sgd (the paper's fixed step, default), adagrad or "
        "adam (per-feature adaptive steps; --step-size is then a change in weight units, "
        "default 1)",
        check=_unknown("optimizer", OPTIMIZERS),
    ),
    TrainOption(
        "normalise_step",
        bool,
        False,
        doc="TreeStrap: divide each search's summed update by the number of nodes in it",
        kinds=(LINEAR,),
        flag="--normalise-step",
        help="TreeStrap: divide each search's update by the number of nodes in its tree",
    ),
    TrainOption(
        "objective",
        str,
        "squared",
        doc='RootStrap/TreeStrap error: "squared" (the paper), "cross-entropy" or '
        '"squashed" (values read as win probabilities through KnightCap\'s tanh; '
        "learn/targets.py); a network's, one of Serban's Table 4.1",
        network_default="soft-cross-entropy",
        flag="--objective",
        choices=tuple(dict.fromkeys([*OBJECTIVES, *NETWORK_OBJECTIVES])),
        help="RootStrap/TreeStrap error: squared (the paper's, default), cross-entropy or "
        "squashed (values read as win probabilities: a mate target pulls like about a "
        "queen, not like 99 pawns). With --model, Serban's Table 4.1: squared, "
        "hard-cross-entropy, soft-cross-entropy (default) or reversed-kl",
    ),
    TrainOption(
        "step_decay",
        float,
        0.0,
        doc="the step halves after this many games (``tau / (tau + games)``); 0 = fixed; "
        "a network's learning rate follows the same schedule",
        flag="--step-decay",
        metavar="GAMES",
        help="the step halves after GAMES games (step * GAMES / (GAMES + games played)); "
        "default 0: the fixed step",
        # ``not v < 0``, as it has always been compared: NaN is not refused here.
        check=Check(lambda v: not v < 0, "step decay must be >= 0 games"),
    ),
    TrainOption(
        "quiet_only",
        bool,
        False,
        doc="TreeStrap: learn only from quiet nodes (search/quiet.py), not from those where "
        "a capture, promotion or check decides the value at once",
        kinds=(LINEAR,),
        flag="--quiet-only",
        help="TreeStrap: learn only from quiet nodes (not in check, no capture or "
        "promotion that wins at once): a linear evaluation cannot see a tactic, and "
        "fitting one teaches it a bonus for the side to move",
    ),
    TrainOption(
        "node_value",
        str,
        "static",
        doc='TreeStrap(alpha-beta): the value each node\'s bounds are compared with: "static", '
        'H(s) (the paper), or "quiescence", Q(s) moved through the gradient at its '
        "principal quiescence leaf (search/quiescence.py: the search evaluates a node by "
        "Q, and H(s) cannot see the captures at hand); for networks the replay set "
        "holds each node's principal quiescence leaf",
        flag="--node-value",
        choices=NODE_VALUES,
        help="TreeStrap(alpha-beta): what a node's search bounds correct: static, H(s) "
        "(the paper's, default), or quiescence, the node's quiescence value Q(s) through "
        "its principal quiescence leaf (the value the search itself gives a node)",
        check=_unknown("node value", NODE_VALUES),
    ),
    TrainOption(
        "target_clip",
        float,
        SEARCH_VALUE_CLIP,
        doc="TreeStrap: search bounds are clipped to +-this before they become targets "
        "(the paper: 9900, the heuristic range; learn/targets.py)",
        kinds=(LINEAR,),
        flag="--target-clip",
        metavar="CP",
        help="TreeStrap: clip search bounds to +-CP before they become targets (default "
        "9900, the paper's heuristic range; a few pawns keeps found mates from "
        "inflating the material weights)",
        check=Check(
            lambda v: 0 < v <= SEARCH_VALUE_CLIP,
            f"target clip must be in (0, {SEARCH_VALUE_CLIP:g}], got {{value}}",
        ),
    ),
    TrainOption(
        "model",
        str,
        "linear",
        doc='"linear" (the feature set\'s weights, learned by ``algorithm``) or a network on '
        "the bitboard inputs learned by Serban's Algorithm 7 over full-tree minimax "
        'trees (treestrap-mm) or the alpha-beta\'s table bounds (treestrap-ab): "logreg" '
        'or "mlp:H" (tanh hidden sizes, "mlp:H1,H2" for two layers) or "crelu:H" (clipped-ReLU '
        "hidden units, NNUE's, cheaper to evaluate)",
        kinds=(NETWORK,),
        flag="--model",
        help="'linear' (default), 'logreg', 'mlp:H' (H hidden tanh units) or 'crelu:H' "
        "(H clipped-ReLU units)",
    ),
    TrainOption(
        "linear_part",
        str | None,
        None,
        doc="a hybrid network: fixed linear weights (a preset name or a linear weight "
        "file) whose score the network's is added to; the network starts adding nothing "
        "and learns what they miss",
        kinds=(NETWORK,),
        flag="--linear-part",
        metavar="WEIGHTS",
        help="a hybrid: add the network to these fixed linear weights ('learned', "
        "'hand-set' or a weight file); its output layer starts at zero",
    ),
    TrainOption(
        "replay_size",
        int,
        100_000,
        doc="Algorithm 7: positions kept in the replay set (N; each tree node enters twice, "
        "as searched and colour-flipped)",
        kinds=(NETWORK,),
        flag="--replay-size",
        metavar="N",
        help="positions kept in the replay set (default 100000; each node enters twice, "
        "as searched and colour-flipped)",
        at_least_one=True,
        check=Check(lambda v: v >= 2, "replay size must be >= 2 positions, got {value}"),
    ),
    TrainOption(
        "batch_size",
        int,
        64,
        doc="Algorithm 7: mini-batch size (M)",
        kinds=(NETWORK,),
        flag="--batch-size",
        metavar="M",
        help="mini-batch size (default 64)",
        at_least_one=True,
        check=_COUNTS_OF_REPLAY,
    ),
    TrainOption(
        "tree_nodes",
        int,
        500,
        doc="Algorithm 7: tree nodes added per search by increasing depth (K)",
        kinds=(NETWORK,),
        flag="--tree-nodes",
        metavar="K",
        help="nodes of each search tree added to the replay set, by increasing depth (default 500)",
        at_least_one=True,
        check=_COUNTS_OF_REPLAY,
    ),
    TrainOption(
        "momentum",
        float,
        0.9,
        doc="Algorithm 7: Nesterov momentum (0 = plain SGD)",
        kinds=(NETWORK,),
        flag="--momentum",
        help="Nesterov momentum (default 0.9; 0: plain SGD)",
        check=Check(lambda v: 0.0 <= v < 1.0, "momentum must be in [0, 1), got {value}"),
    ),
    TrainOption(
        "weight_decay",
        float,
        0.0,
        doc="Algorithm 7: L2 weight decay of the mini-batch SGD. It pulls every parameter "
        "towards 0, so a hybrid's network towards adding nothing to its fixed linear part "
        "(whose score it then only corrects where the replay set keeps asking)",
        kinds=(NETWORK,),
        flag="--weight-decay",
        metavar="L2",
        help="L2 weight decay of the network's SGD (default 0)",
        check=Check(lambda v: 0.0 <= v < 1.0, "weight decay must be in [0, 1), got {value}"),
    ),
    TrainOption(
        "teacher_every",
        int,
        0,
        doc="Algorithm 7: games between copies of the network into the searches. 0 copies "
        "it after every search; G > 0 keeps the searches on a frozen copy (a teacher, as "
        "DQN's target network) for G games, so the targets do not drift with each step",
        kinds=(NETWORK,),
        flag="--teacher-every",
        metavar="G",
        help="the searches take the newest network every G games (default 0: after every search)",
        check=Check(lambda v: v >= 0, "teacher every must be >= 0 games, got {value}"),
    ),
    TrainOption(
        "replay_steps",
        int,
        1,
        doc="Algorithm 7: mini-batch steps after each search",
        kinds=(NETWORK,),
        flag="--replay-steps",
        metavar="S",
        help="mini-batch steps after each search (default 1)",
        at_least_one=True,
        check=_COUNTS_OF_REPLAY,
    ),
)

OPTIONS_BY_NAME: dict[str, TrainOption] = {o.name: o for o in TRAIN_OPTIONS}

#: The options ``config.json`` leaves out: where a run reports (a resumed run takes them
#: from its own command line).
UNSAVED_OPTIONS = tuple(o for o in TRAIN_OPTIONS if not o.saved)

#: The options of networks alone (``--model`` and Algorithm 7's), in field order.
NETWORK_OPTIONS = tuple(o for o in TRAIN_OPTIONS if o.kinds == (NETWORK,))

#: What a network run is unless told otherwise (``--model`` runs, ``network_config``).
NETWORK_DEFAULTS: dict[str, Any] = {
    o.name: o.network_default for o in TRAIN_OPTIONS if o.network_default is not SAME_FOR_NETWORKS
}
