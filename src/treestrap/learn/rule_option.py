"""How a rule declares a hyperparameter that a run sets: as a field of its family's
dataclass (:class:`~treestrap.learn.linear_hyper.Hyper` for the linear rules,
:class:`~treestrap.learn.replay_hyper.ReplayHyper` for Algorithm 7) whose metadata holds
the option's meaning, default, flag and bound, so that each is written once.

:func:`declared_options` reads them back as the run's :class:`~treestrap.option.Option`
rows: the name is the field's, the type its annotation's, and the model kinds those of
the families that have the field. Free of numba, for ``treestrap train --help``.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from treestrap.option import LINEAR, NETWORK, SAME_FOR_NETWORKS, Check, Option

#: The field metadata keys: every field's meaning, and an option's declaration.
DOC = "doc"
OPTION = "option"


@dataclass(frozen=True)
class OptionSpec:
    """An option as a rule family declares it (see :class:`~treestrap.option.Option`
    for each setting); the field that holds it gives the name and type."""

    doc: str
    default: Any
    network_default: Any = SAME_FOR_NETWORKS
    flag: str | None = None
    help: str | None = None
    metavar: str | None = None
    choices: Sequence[str] | None = None
    at_least_one: bool = False
    check: Check | None = None

    def field(self, kind: str = LINEAR) -> Any:
        """The dataclass field of this option in a family of ``kind``: the option's
        default there (a list is copied for each instance), the spec in its metadata."""
        default = self.default
        if kind == NETWORK and self.network_default is not SAME_FOR_NETWORKS:
            default = self.network_default
        metadata = {DOC: self.doc, OPTION: self}
        if isinstance(default, list):
            copy = functools.partial(list, default)
            return dataclasses.field(default_factory=copy, metadata=metadata)
        return dataclasses.field(default=default, metadata=metadata)


def option(default: Any, doc: str, **settings: Any) -> Any:
    """The field of an option that one family declares (``settings``: those of
    :class:`OptionSpec`)."""
    return OptionSpec(doc, default, **settings).field()


def set_by_run(doc: str, default: Any = dataclasses.MISSING) -> Any:
    """The field of a value the run works out, not an option of its own (the step of
    the rule, the indices of frozen weights)."""
    return dataclasses.field(default=default, metadata={DOC: doc})


def field_docs(family: type) -> dict[str, str]:
    """Each field of a family's dataclass with its meaning ("" where it has none)."""
    return {f.name: f.metadata.get(DOC, "") for f in dataclasses.fields(family)}


def declared_options(families: Sequence[tuple[type, str]]) -> dict[str, Option]:
    """The options that the ``(dataclass, model kind)`` families declare, by name in
    the order first declared; an option two families share is one spec, for both
    kinds."""
    specs: dict[str, tuple[Any, OptionSpec]] = {}
    kinds: dict[str, list[str]] = {}
    for family, kind in families:
        hints = typing.get_type_hints(family)
        for f in dataclasses.fields(family):
            spec = f.metadata.get(OPTION)
            if spec is None:
                continue
            if specs.setdefault(f.name, (hints[f.name], spec))[1] is not spec:
                raise TypeError(f"{family.__name__}.{f.name}: two options of one name")
            kinds.setdefault(f.name, []).append(kind)
    return {
        name: Option(
            name,
            type_,
            spec.default,
            doc=spec.doc,
            kinds=tuple(kinds[name]),
            network_default=spec.network_default,
            flag=spec.flag,
            help=spec.help,
            metavar=spec.metavar,
            choices=spec.choices,
            at_least_one=spec.at_least_one,
            check=spec.check,
        )
        for name, (type_, spec) in specs.items()
    }
