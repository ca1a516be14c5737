"""The settings of Serban's Algorithm 7 (2014, chapter 7), the rule of network runs,
each declared once: its meaning, default, flag of ``treestrap train`` and bound (see
:mod:`treestrap.learn.rule_option`). Free of numba, for ``treestrap train --help``.
"""

from __future__ import annotations

from dataclasses import dataclass

from treestrap.learn.rule_option import option, set_by_run
from treestrap.learn.rules import NETWORK_STEP_SIZE
from treestrap.learn.shared_options import (
    MIN_DEPTH,
    NETWORK_OBJECTIVES,
    NODE_VALUE,
    OBJECTIVE,
    STEP_DECAY,
)
from treestrap.option import NETWORK, Check

_COUNTS_OF_REPLAY = Check(lambda v: v >= 1, "batch size, tree nodes and replay steps must be >= 1")


@dataclass
class ReplayHyper:
    """Algorithm 7's settings: the replay set, its mini-batches and their SGD."""

    step_size: float = set_by_run(
        "the learning rate of the mini-batch SGD: ``--step-size``, or Algorithm 7's "
        "default (learn/rules.py)",
        NETWORK_STEP_SIZE,
    )
    replay_size: int = option(
        100_000,
        "positions kept in the replay set (N; each tree node enters twice, as searched "
        "and colour-flipped or mirrored; old entries are overwritten)",
        flag="--replay-size",
        metavar="N",
        help="positions kept in the replay set (default {default}; each node enters "
        "twice, as searched and colour-flipped)",
        at_least_one=True,
        check=Check(lambda v: v >= 2, "replay size must be >= 2 positions, got {value}"),
    )
    batch_size: int = option(
        64,
        "mini-batch size (M)",
        flag="--batch-size",
        metavar="M",
        help="mini-batch size (default {default})",
        at_least_one=True,
        check=_COUNTS_OF_REPLAY,
    )
    tree_nodes: int = option(
        500,
        "tree nodes added to the replay set per search, by increasing depth (K)",
        flag="--tree-nodes",
        metavar="K",
        help="nodes of each search tree added to the replay set, by increasing depth "
        "(default {default})",
        at_least_one=True,
        check=_COUNTS_OF_REPLAY,
    )
    replay_steps: int = option(
        1,
        "mini-batch steps after each search",
        flag="--replay-steps",
        metavar="S",
        help="mini-batch steps after each search (default {default})",
        at_least_one=True,
        check=_COUNTS_OF_REPLAY,
    )
    min_depth: int = MIN_DEPTH.field(NETWORK)
    objective: str = OBJECTIVE.field(NETWORK)
    momentum: float = option(
        0.9,
        "Nesterov momentum of the mini-batch SGD (0 = plain SGD)",
        flag="--momentum",
        help="Nesterov momentum (default {default}; 0: plain SGD)",
        check=Check(lambda v: 0.0 <= v < 1.0, "momentum must be in [0, 1), got {value}"),
    )
    weight_decay: float = option(
        0.0,
        "L2 weight decay of the mini-batch SGD. It pulls every parameter towards 0, so a "
        "hybrid's network towards adding nothing to its fixed linear part (whose score it "
        "then only corrects where the replay set keeps asking)",
        flag="--weight-decay",
        metavar="L2",
        help="L2 weight decay of the network's SGD (default {default})",
        check=Check(lambda v: 0.0 <= v < 1.0, "weight decay must be in [0, 1), got {value}"),
    )
    step_decay: float = STEP_DECAY.field(NETWORK)
    seed: int = set_by_run("the seed of the mini-batch draws: the run's ``--seed``", 0)
    node_value: str = NODE_VALUE.field(NETWORK)
    teacher_every: int = option(
        0,
        "games between copies of the network into the searches. 0 copies it after every "
        "search; G > 0 keeps the searches on a frozen copy (a teacher, as DQN's target "
        "network) for G games, so the targets do not drift with each step",
        flag="--teacher-every",
        metavar="G",
        help="the searches take the newest network every G games (default {default}: "
        "after every search)",
        check=Check(lambda v: v >= 0, "teacher every must be >= 0 games, got {value}"),
    )

    @property
    def loss(self) -> str:
        """The objective's name in :mod:`treestrap.learn.objectives_network`."""
        return NETWORK_OBJECTIVES[self.objective]

    @property
    def leaves(self) -> bool:
        """Samples are the nodes' principal quiescence leaves (``--node-value quiescence``)."""
        return self.node_value == "quiescence"
