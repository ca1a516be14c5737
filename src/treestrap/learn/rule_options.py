"""Every option of the rules, composed from their declarations: the step size (whose
default is each rule's, :mod:`treestrap.learn.rules`) and the fields of the linear
rules' :class:`~treestrap.learn.linear_hyper.Hyper` and Algorithm 7's
:class:`~treestrap.learn.replay_hyper.ReplayHyper`. The run's option table
(:mod:`treestrap.training.options`) places them among its own. Free of numba.
"""

from __future__ import annotations

from treestrap.learn.linear_hyper import Hyper
from treestrap.learn.replay_hyper import ReplayHyper
from treestrap.learn.rule_option import declared_options
from treestrap.option import LINEAR, NETWORK, Check, Option

#: The rule families: each one's dataclass of options, and the models it learns.
RULE_FAMILIES: tuple[tuple[type, str], ...] = ((Hyper, LINEAR), (ReplayHyper, NETWORK))

STEP_SIZE = Option(
    "step_size",
    float | None,
    None,
    doc="step size; None = the rule's default (the paper's for a linear rule, "
    "Algorithm 7's for a network), 0 = play only",
    flag="--step-size",
    help="default: the paper's value for the algorithm; 0 plays the games and keeps "
    "the weights as they are (positions for distill label)",
    check=Check(lambda v: v >= 0, "step size must be >= 0"),
)

#: Every rule option by name: the step size, then those of the families in order.
RULE_OPTIONS: dict[str, Option] = {
    STEP_SIZE.name: STEP_SIZE,
    **declared_options(RULE_FAMILIES),
}
