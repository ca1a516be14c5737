"""Which games a dataset keeps, decided from the PGN tags before the moves are parsed.

Serban kept only games where both players were rated above 2000 (section 6.4): strong
players blunder less, so a position's eventual winner is less of a coin toss. The same
filter here is ``--min-elo``; a game without a rating for both players fails it, since
nothing says they were strong. ``--event`` and ``--time-control`` are regular
expressions searched in the tags (Serban's first experiments used only standard time
controls). The filter that needs the moves, ``--min-plies``, is applied by
:mod:`.game` after parsing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

#: Skip reasons of the tag filters, as counted in the manifest.
MIN_ELO, EVENT, TIME_CONTROL = "min_elo", "event", "time_control"


@dataclass(frozen=True)
class GameFilter:
    """The tag filters of a build; ``None`` switches one off."""

    min_elo: int | None = None
    event: str | None = None  # regular expression searched in the Event tag
    time_control: str | None = None  # ... and in the TimeControl tag ("" when absent)

    def __post_init__(self) -> None:
        for name, pattern in (("--event", self.event), ("--time-control", self.time_control)):
            if pattern is not None:
                try:
                    re.compile(pattern)
                except re.error as exc:
                    raise ValueError(f"{name}: bad regular expression {pattern!r}: {exc}") from None

    def reject(self, headers: Mapping[str, str]) -> str | None:
        """The reason the game's tags fail the filters, or ``None`` if they pass."""
        if self.min_elo is not None and not (
            _elo(headers.get("WhiteElo")) >= self.min_elo
            and _elo(headers.get("BlackElo")) >= self.min_elo
        ):
            return MIN_ELO
        if self.event is not None and not re.search(self.event, headers.get("Event", "")):
            return EVENT
        if self.time_control is not None and not re.search(
            self.time_control, headers.get("TimeControl", "")
        ):
            return TIME_CONTROL
        return None


def _elo(text: str | None) -> int:
    """A rating tag as a number; missing or "?" counts as unrated (-1)."""
    text = (text or "").strip()
    return int(text) if text.isdigit() else -1
