"""The options that both rule families take (the linear rules' :class:`Hyper` and
Algorithm 7's :class:`ReplayHyper` declare a field of each): the error, the step
schedule, and the nodes TreeStrap(alpha-beta)'s table walk gives and what it compares
their bounds with."""

from __future__ import annotations

from treestrap.learn.rule_option import OptionSpec
from treestrap.option import Check, member_of

#: RootStrap/TreeStrap errors of linear models (:mod:`treestrap.learn.targets`).
OBJECTIVES = ("squared", "cross-entropy", "squashed")

#: Network objectives (Serban 2014, Table 4.1) by their command-line names, each with
#: its name in :mod:`treestrap.learn.objectives_network`; taken only with ``--model``.
NETWORK_OBJECTIVES = {
    "squared": "squared",
    "hard-cross-entropy": "hard-ce",
    "soft-cross-entropy": "soft-ce",
    "reversed-kl": "reverse-kl",
}

#: What TreeStrap(alpha-beta) compares a node's bounds with (:mod:`treestrap.search.tt_walk`).
NODE_VALUES = ("static", "quiescence")

MIN_DEPTH = OptionSpec(
    doc="minimum depth d of the nodes TreeStrap learns from: the table walk leaves out "
    "entries of shallower searches (a network's treestrap-ab takes its nodes from the "
    "same walk)",
    default=1,
    flag="--min-depth",
    help="TreeStrap d (default {default})",
)

OBJECTIVE = OptionSpec(
    doc='RootStrap/TreeStrap error: "squared" (the paper), "cross-entropy" or '
    '"squashed" (values read as win probabilities through KnightCap\'s tanh; '
    "learn/targets.py); a network's, one of Serban's Table 4.1",
    default="squared",
    network_default="soft-cross-entropy",
    flag="--objective",
    choices=tuple(dict.fromkeys([*OBJECTIVES, *NETWORK_OBJECTIVES])),
    help="RootStrap/TreeStrap error: squared (the paper's, default), cross-entropy or "
    "squashed (values read as win probabilities: a mate target pulls like about a "
    "queen, not like 99 pawns). With --model, Serban's Table 4.1: squared, "
    "hard-cross-entropy, soft-cross-entropy (default) or reversed-kl",
)

STEP_DECAY = OptionSpec(
    doc="the step halves after this many games (``tau / (tau + games)``); 0 = fixed; "
    "a network's learning rate follows the same schedule",
    default=0.0,
    flag="--step-decay",
    metavar="GAMES",
    help="the step halves after GAMES games (step * GAMES / (GAMES + games played)); "
    "default {default}: the fixed step",
    # ``not v < 0``, as it has always been compared: NaN is not refused here.
    check=Check(lambda v: not v < 0, "step decay must be >= 0 games"),
)

NODE_VALUE = OptionSpec(
    doc='TreeStrap(alpha-beta): the value each node\'s bounds are compared with: "static", '
    'H(s) (the paper), or "quiescence", Q(s) moved through the gradient at its '
    "principal quiescence leaf (search/quiescence.py: the search evaluates a node by "
    "Q, and H(s) cannot see the captures at hand); for networks the replay set "
    "holds each node's principal quiescence leaf. The run's table walk reads it.",
    default="static",
    flag="--node-value",
    choices=NODE_VALUES,
    help="TreeStrap(alpha-beta): what a node's search bounds correct: static, H(s) "
    "(the paper's, default), or quiescence, the node's quiescence value Q(s) through "
    "its principal quiescence leaf (the value the search itself gives a node)",
    check=member_of("node value", NODE_VALUES),
)
