"""What an option of a training run is: its ``TrainConfig`` field (name, type, default,
meaning), its flag of ``treestrap train`` (help, metavar, choices), the model kinds it
is for and the bound its value must keep.

The rules declare theirs (:mod:`treestrap.learn.rule_options`), the run the others
(:mod:`treestrap.training.options`); this module is below both, and free of numba, so
that ``treestrap train --help`` stays instant.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import NoneType, UnionType
from typing import Any, get_args, get_origin

#: The model kinds: the feature set's linear weights, or a network (``--model``).
LINEAR = "linear"
NETWORK = "network"
MODEL_KINDS = (LINEAR, NETWORK)

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
class Option:
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

    @property
    def help_text(self) -> str | None:
        """``help`` with ``{default}`` replaced by the option's default (a float as
        ``:g`` writes it), so that the flag's help says the default it has."""
        if self.help is None:
            return None
        shown = f"{self.default:g}" if isinstance(self.default, float) else str(self.default)
        return self.help.replace("{default}", shown)

    def problem(self, value: Any) -> str | None:
        """The error for ``value``, or None if the option takes it."""
        if self.check is None or (value is None and self.optional):
            return None
        # A check reads ``ok``, not a failing comparison: NaN fails every ``v > 0``.
        return None if self.check.ok(value) else self.check.message.format(value=value)


def member_of(what: str, names: Sequence[str]) -> Check:
    """Membership in ``names``, refused as "unknown WHAT 'x': a, b, c"."""
    return Check(lambda v: v in names, f"unknown {what} {{value!r}}: {', '.join(names)}")
