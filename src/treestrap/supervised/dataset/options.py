"""The options of a dataset build: their command-line forms, their JSON form in the
manifest, and the check that a resumed or extended build asks for the same dataset.

Every option that changes what is stored is here; ``--jobs`` is not (any number of
workers writes the same shards), nor are the input files, which the build identifies by
their SHA-256 instead.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, fields
from typing import Any

from treestrap.supervised.dataset.errors import DatasetError

UNDECIDED_CHOICES = ("drop", "keep")
#: Serban's Stockfish depth for rollouts and for the QSearch benchmark (section 6.2.1).
SERBAN_DEPTH = 14
#: A rollout longer than this many plies is abandoned and the game kept as it was
#: (Serban's safety hatch: 100 moves for each player, footnote 14).
ROLLOUT_MAX_PLIES = 200

#: The command-line flag of each option, for messages.
FLAGS = {
    "min_elo": "--min-elo",
    "event": "--event",
    "time_control": "--time-control",
    "min_plies": "--min-plies",
    "undecided": "--undecided",
    "seed": "--seed",
    "split": "--split",
    "rollout_depth": "--rollout",
    "rollout_max_plies": "the rollout ply limit",
    "score_depth": "--stockfish-score",
}


@dataclass(frozen=True)
class BuildOptions:
    """Everything that decides a dataset's contents besides its games."""

    min_elo: int | None = None
    event: str | None = None
    time_control: str | None = None
    min_plies: int = 0
    #: "drop": games whose result tag is not 1-0, 0-1 or 1/2-1/2 are skipped; "keep":
    #: they are labelled draws (a "*" never becomes a class of its own).
    undecided: str = "drop"
    seed: int = 0
    split: tuple[int, int, int] = (6, 2, 2)
    #: Stockfish depth of rollout completion, None without it.
    rollout_depth: int | None = None
    rollout_max_plies: int = ROLLOUT_MAX_PLIES
    #: Stockfish depth of the stored search score, None without it.
    score_depth: int | None = None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["split"] = list(self.split)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BuildOptions:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise DatasetError(f"unknown build options in the manifest: {', '.join(unknown)}")
        values = dict(data)
        if "split" in values:
            values["split"] = tuple(values["split"])
        return cls(**values)

    def mismatches(self, other: BuildOptions) -> list[str]:
        """One line per option where ``other`` (this build's request) differs."""
        lines = []
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            if mine != theirs:
                lines.append(
                    f"{FLAGS[f.name]}: the dataset has {_show(mine)}, this build asks "
                    f"for {_show(theirs)}"
                )
        return lines

    @property
    def needs_stockfish(self) -> bool:
        return self.rollout_depth is not None or self.score_depth is not None


def _show(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, tuple):
        return ":".join(str(v) for v in value)
    return repr(value) if isinstance(value, str) else str(value)


def parse_split(text: str) -> tuple[int, int, int]:
    """``"6:2:2"`` -> (6, 2, 2): train, validation and test weights, not percentages."""
    parts = text.split(":")
    if len(parts) != 3 or not all(p.strip().isdigit() for p in parts):
        raise DatasetError(f"--split: expected TRAIN:VALIDATION:TEST such as 6:2:2, got {text!r}")
    train, validation, test = (int(p) for p in parts)
    if train == 0 or train + validation + test == 0:
        raise DatasetError(f"--split: the training part must be > 0, got {text!r}")
    return train, validation, test


_DEPTH = re.compile(r"^(?:depth=)?(\d+)$")


def parse_depth(text: str, flag: str) -> int:
    """``"depth=N"`` (or just ``"N"``) -> N >= 1."""
    match = _DEPTH.match(text.strip())
    if not match or int(match[1]) < 1:
        raise DatasetError(f"{flag}: expected depth=N with N >= 1, got {text!r}")
    return int(match[1])


def parse_rollout(text: str) -> int:
    """``"stockfish:depth=N"`` -> N; a bare ``"stockfish"`` is Serban's depth 14."""
    engine, _, rest = text.strip().partition(":")
    if engine != "stockfish":
        raise DatasetError(
            f"--rollout: expected stockfish:depth=N (only Stockfish plays rollouts), got {text!r}"
        )
    return parse_depth(rest, "--rollout") if rest else SERBAN_DEPTH


def parse_int(text: str | int | None, flag: str, minimum: int) -> int | None:
    """A whole number >= ``minimum``, or ``None`` when not given."""
    if text is None or isinstance(text, int):
        value = text
    else:
        try:
            value = int(text)
        except ValueError:
            raise DatasetError(f"{flag}: expected a whole number, got {text!r}") from None
    if value is not None and value < minimum:
        raise DatasetError(f"{flag}: must be >= {minimum}, got {value}")
    return value
