"""A bootstrap run's budget and its JSON form: :class:`RunBudget`, the fields every
game's budget has (each game's budget adds its own self-play, fit and gate plans), and
:func:`from_json`, which rebuilds a frozen dataclass whose fields are plain values or
other such dataclasses field by field."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, is_dataclass
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


B = TypeVar("B", bound="RunBudget")


@dataclass(frozen=True)
class RunBudget:
    """What every game's bootstrap budget fixes: its name, round 0 (TreeStrap self-play
    from random linear weights: games and search depth) and the rounds after it. A
    game's budget subclasses it with its ``selfplay``, ``fit`` and ``gate`` plans."""

    name: str
    round0_games: int
    round0_depth: int
    rounds: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls: type[B], data: dict[str, Any]) -> B:
        return from_json(cls, data)
