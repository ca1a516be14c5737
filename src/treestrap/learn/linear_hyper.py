"""The hyperparameters of the linear rules (TD, TD-Root, TD-Leaf, RootStrap, TreeStrap),
each declared once: its meaning, default, flag of ``treestrap train`` and bound (see
:mod:`treestrap.learn.rule_option`). Each rule uses those that apply to it. Free of
numba, for ``treestrap train --help``.
"""

from __future__ import annotations

from dataclasses import dataclass

from treestrap.learn.rule_option import option, set_by_run
from treestrap.learn.shared_options import MIN_DEPTH, NODE_VALUE, OBJECTIVE, STEP_DECAY
from treestrap.option import Check, member_of

#: Ways of applying updates (:mod:`treestrap.learn.optimizer` has the classes).
OPTIMIZERS = ("sgd", "adagrad", "adam")

#: Searches clip heuristic values to +-this (``treestrap.search.value.VALUE_CLIP``,
#: written out here because that module needs numba; training/config.py checks that
#: the two agree).
SEARCH_VALUE_CLIP = 9900.0


@dataclass
class Hyper:
    """Hyperparameters shared by the linear update rules (each uses what applies)."""

    step_size: float = set_by_run(
        "the step: ``--step-size``, or the rule's default (learn/registry.py)"
    )
    lam: float = option(
        0.7,
        "TD(lambda)'s lambda: 0 moves towards the next value, 1 towards the outcome",
        flag="--lambda",
        help="TD lambda (default {default})",
        check=Check(lambda v: 0.0 <= v <= 1.0, "lambda must be in [0, 1]"),
    )
    min_depth: int = MIN_DEPTH.field()
    squash: bool = option(
        True,
        "TD and TD-Leaf: values and errors through KnightCap's tanh (learn/temporal.py)",
    )
    predicted_only: bool = option(
        True, "KnightCap: zero positive temporal differences unless the reply was predicted"
    )
    use_outcome: bool = option(
        True, "KnightCap: learn towards the game outcome (+1/0/-1) at the end of the game"
    )
    # A field whose list default each instance copies (OptionSpec.field).
    freeze: list[str] = option(  # noqa: RUF009
        ["tempo"],
        "feature-name prefixes whose weights keep their initial values. Tempo by "
        "default: learned from search trees it grows to the average one-ply gain of "
        "their (often tactical) nodes, several pawns, and then acts as a stand-pat bonus "
        "that keeps quiescence from capturing (measured: +407 Elo at 1000 games).",
        flag="--freeze",
        metavar="PREFIX",
        help="keep the weights of features named PREFIX... at their initial values "
        "(repeatable; default: tempo; 'none' learns every weight)",
    )
    frozen: tuple[int, ...] = set_by_run(
        "the indices of the weights that never change: the features ``freeze`` names",
        (),
    )
    optimizer: str = option(
        "sgd",
        'how each update is applied: "sgd" (the paper\'s fixed step), "adagrad" or '
        '"adam" (per-feature adaptive steps; ``step_size`` is then a change in weight '
        "units)",
        flag="--optimizer",
        choices=OPTIMIZERS,
        help="how updates are applied: sgd (the paper's fixed step, default), adagrad or "
        "adam (per-feature adaptive steps; --step-size is then a change in weight units, "
        "default 1)",
        check=member_of("optimizer", OPTIMIZERS),
    )
    normalise_step: bool = option(
        False,
        "TreeStrap: divide the summed tree update by the number of nodes in it, so that "
        "one search moves the weights by the same amount whatever the tree's size",
        flag="--normalise-step",
        help="TreeStrap: divide each search's update by the number of nodes in its tree",
    )
    objective: str = OBJECTIVE.field()
    step_decay: float = STEP_DECAY.field()
    quiet_only: bool = option(
        False,
        "TreeStrap: learn only from quiet nodes (search/quiet.py), not from those where "
        "a capture, promotion or check decides the value at once",
        flag="--quiet-only",
        help="TreeStrap: learn only from quiet nodes (not in check, no capture or "
        "promotion that wins at once): a linear evaluation cannot see a tactic, and "
        "fitting one teaches it a bonus for the side to move",
    )
    node_value: str = NODE_VALUE.field()
    target_clip: float = option(
        SEARCH_VALUE_CLIP,
        "TreeStrap: search bounds are clipped to +-this before they become targets "
        "(the paper: 9900, the heuristic range; a smaller clip keeps a found mate from "
        "pulling a linear evaluation towards 99 pawns; learn/targets.py)",
        flag="--target-clip",
        metavar="CP",
        help="TreeStrap: clip search bounds to +-CP before they become targets (default "
        "{default}, the paper's heuristic range; a few pawns keeps found mates from "
        "inflating the material weights)",
        check=Check(
            lambda v: 0 < v <= SEARCH_VALUE_CLIP,
            f"target clip must be in (0, {SEARCH_VALUE_CLIP:g}], got {{value}}",
        ),
    )
