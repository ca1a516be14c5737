"""The options of a training run, each declared once: its field of
:class:`~treestrap.training.config.TrainConfig` (name, type, default, meaning), its flag
of ``treestrap train`` (help, metavar, choices), the model kinds it is for and the bound
its value must keep (:class:`~treestrap.option.Option`). The run's own options (game,
search, clock, opponent, model, files) are declared here; the rules' options by their
rule families (:data:`~treestrap.learn.rule_options.RULE_OPTIONS`), and only placed here.

:mod:`treestrap.training.config` makes ``TrainConfig`` and its checks from this table,
and :mod:`treestrap.commands.train` its parser; the table is free of numba, so that
``treestrap train --help`` stays instant.
"""

from __future__ import annotations

from typing import Any

from treestrap.evaluation.feature_sets import FEATURE_SET_NAMES
from treestrap.games.registry import DEFAULT_GAME, game_names
from treestrap.learn.rule_options import RULE_OPTIONS
from treestrap.learn.rules import ALGORITHM_NAMES, NETWORK_ALGORITHM
from treestrap.option import NETWORK, SAME_FOR_NETWORKS, Check, Option


def _rule(*names: str) -> tuple[Option, ...]:
    """The rule options ``names`` (:data:`~treestrap.learn.rule_options.RULE_OPTIONS`:
    each declared by its rule family), placed here in the order of ``config.json``."""
    return tuple(RULE_OPTIONS[name] for name in names)


#: Every option, in the order of ``TrainConfig``'s fields (and of ``config.json``).
#: The built-in games, for messages (a test may register more).
GAMES = ", ".join(game_names())

TRAIN_OPTIONS: tuple[Option, ...] = (
    Option(
        "game",
        str,
        DEFAULT_GAME,
        doc="the game played and learned (games/): chess, or connect4 (linear weights "
        "over the Connect Four features, or with --model a network over its 84 + 1 "
        "bitboard inputs; self-play from seeded random openings). A chess "
        "run's config.json leaves it out (the file as it was before there were games).",
        flag="--game",
        metavar="GAME",
        help="a registered game: chess (default) or connect4 (self-play from random 2-4 "
        "ply openings, linear weights over the Connect Four features or a --model "
        "network over its bitboard inputs: docs/connect4.md)",
        # the table of games, read when the value is checked (a test registers its own)
        check=Check(lambda v: v in game_names(), f"unknown game {{value!r}}: {GAMES}"),
    ),
    Option(
        "algorithm",
        str,
        "treestrap-ab",
        doc="the update rule (learn/rules.py); networks learn by Serban's Algorithm 7 "
        "over minimax trees or the alpha-beta's table bounds",
        network_default=NETWORK_ALGORITHM,
        flag="--algorithm",
        choices=ALGORITHM_NAMES,
    ),
    Option(
        "games",
        int,
        20,
        flag="--games",
        help="games to play in total (default 20)",
        check=Check(lambda v: v >= 1, "games must be positive"),
    ),
    Option(
        "feature_set",
        str,
        "meep",
        doc="what the linear model weighs; networks read the bitboard inputs",
        network_default="bitboard",
        flag="--feature-set",
        choices=FEATURE_SET_NAMES,
    ),
    Option(
        "init",
        str,
        "random",
        doc='initial weights: "random" (small, seeded), "hand-set", or a weight file',
        flag="--init",
        help="'random' (default), 'hand-set' or a weight file",
    ),
    Option(
        "seed",
        int,
        0,
        flag="--seed",
        help="seed of the random weights and openings",
    ),
    Option(
        "init_scale",
        float,
        1.0,  # treestrap.evaluation.presets.RANDOM_SCALE (training/config.py checks)
        flag="--init-scale",
        help="random initial weights are uniform in [-SCALE, SCALE] (default 1); a "
        "network's in [-SCALE/sqrt(fan-in), SCALE/sqrt(fan-in)]",
    ),
    *_rule("step_size", "lam", "min_depth"),
    Option(
        "depth",
        int | None,
        3,
        doc="alpha-beta search: fixed depth, or (if depth is None) a node budget per move",
        flag="--depth",
        help="fixed alpha-beta search depth (default 3)",
        check=Check(lambda v: 1 <= v <= 20, "depth must be in 1..20"),
    ),
    Option(
        "nodes",
        int | None,
        None,
        flag="--nodes",
        help="node budget per move instead of a depth",
        check=Check(lambda v: v >= 1, "nodes per move must be positive, got {value}"),
    ),
    Option(
        "clock",
        float | None,
        None,
        doc="Fischer clock per player (seconds); sets a node budget per move from measured "
        "speed, and learning time is charged to the clock. None = no clock.",
        flag="--clock",
        help="Fischer clock base in seconds",
        check=Check(lambda v: v > 0, "the clock must be a positive number of seconds, got {value}"),
    ),
    Option(
        "increment",
        float,
        0.0,
        flag="--increment",
        help="Fischer increment in seconds",
        check=Check(lambda v: v >= 0, "the clock increment must be >= 0 seconds, got {value}"),
    ),
    Option(
        "minimax_nodes",
        int,
        5000,
        doc="full-tree minimax budgets (Serban 2014): tree nodes, quiescence nodes per leaf",
        flag="--minimax-nodes",
        help="minimax tree node budget (default 5000)",
    ),
    Option(
        "minimax_qnodes",
        int,
        500,
        flag="--minimax-qnodes",
        help="minimax quiescence nodes per leaf (default 500)",
    ),
    Option(
        "opponent",
        str,
        "self",
        doc='"self", "stockfish", "stockfish:ELO", "uci:COMMAND" or a weight file',
        flag="--opponent",
        help="'self' (default), a preset ('hand-set', 'learned'), 'stockfish[:ELO]', "
        "'uci:CMD' or a weight file",
    ),
    Option("opponent_depth", int, 3, flag="--opponent-depth"),
    Option(
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
    Option(
        "ladder",
        bool,
        False,
        doc="raise/lower the opponent's UCI_Elo by ladder_step after a window of games",
        flag="--ladder",
        help="raise/lower the opponent's UCI_Elo with the learner's score",
    ),
    Option("ladder_window", int, 10),
    Option("ladder_step", int, 50),
    Option(
        "openings",
        str | None,
        None,
        doc='None/"builtin", or a .tsv/.pgn/.epd file of opening lines',
        flag="--openings",
        help="opening lines: .tsv/.pgn/.epd (default: built-in)",
    ),
    Option(
        "max_plies",
        int,
        300,
        flag="--max-plies",
        check=Check(lambda v: v >= 1, "max plies must be >= 1, got {value}"),
    ),
    Option(
        "checkpoint_every",
        int,
        10,
        flag="--checkpoint-every",
        check=Check(lambda v: v >= 1, "checkpoint every must be >= 1 game, got {value}"),
    ),
    Option(
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
    Option(
        "tt_bits",
        int,
        18,
        flag="--tt-bits",
        help="log2 of the table's entries",
    ),
    *_rule(
        "squash",
        "predicted_only",
        "use_outcome",
        "freeze",
        "optimizer",
        "normalise_step",
        "objective",
        "step_decay",
        "quiet_only",
        "node_value",
        "target_clip",
    ),
    Option(
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
    Option(
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
    *_rule(
        "replay_size",
        "batch_size",
        "tree_nodes",
        "momentum",
        "weight_decay",
        "teacher_every",
        "replay_steps",
    ),
)

OPTIONS_BY_NAME: dict[str, Option] = {o.name: o for o in TRAIN_OPTIONS}

#: The options ``config.json`` leaves out: where a run reports (a resumed run takes them
#: from its own command line).
UNSAVED_OPTIONS = tuple(o for o in TRAIN_OPTIONS if not o.saved)

#: The options of networks alone (``--model`` and Algorithm 7's), in field order.
NETWORK_OPTIONS = tuple(o for o in TRAIN_OPTIONS if o.kinds == (NETWORK,))

#: What a network run is unless told otherwise (``--model`` runs, ``network_config``).
NETWORK_DEFAULTS: dict[str, Any] = {
    o.name: o.network_default for o in TRAIN_OPTIONS if o.network_default is not SAME_FOR_NETWORKS
}
