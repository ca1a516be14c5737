"""A budget read back from its JSON: a frozen dataclass whose fields are plain values
or other such dataclasses (the plans of a game's budget), rebuilt field by field."""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Any, TypeVar, get_type_hints

T = TypeVar("T")


def from_json(cls: type[T], data: dict[str, Any]) -> T:
    """``cls`` from ``data`` as ``dataclasses.asdict`` wrote it; a missing field takes
    its default, an unknown one is an error."""
    hints = get_type_hints(cls)
    names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(f"{cls.__name__}: unknown settings {', '.join(unknown)}")
    values = {}
    for name, value in data.items():
        kind = hints[name]
        values[name] = from_json(kind, value) if is_dataclass(kind) else value
    return cls(**values)
