"""Games lost by forfeit, counted by reason from their stored terminations.

:mod:`treestrap.play.game` writes a forfeit's termination as ``forfeit: REASON
(COLOUR, NAME)`` and a loss on time as ``time forfeit``; the reasons' openings are
here, so the writer and the counter agree on them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

TIME_FORFEIT = "time forfeit"
FORFEIT = "forfeit: "
#: The opening of each forfeit reason game.py writes, and its short name in a summary.
REASONS = {
    "illegal move": "illegal move",
    "no move": "no move",
    "engine crashed": "crash",
    "engine hung": "hung",
    "engine error": "engine error",
    "engine failed to start": "failed to start",
}
#: The order of a summary: the commonest worry first.
ORDER = ("time", *REASONS.values(), "other")


def forfeit_reason(termination: str) -> str | None:
    """The short reason of a forfeit's termination (``time``, ``illegal move``...),
    None for a game that was not forfeited."""
    if termination == TIME_FORFEIT:
        return "time"
    if not termination.startswith(FORFEIT):
        return None
    rest = termination.removeprefix(FORFEIT)
    return next((short for start, short in REASONS.items() if rest.startswith(start)), "other")


def count_forfeits(terminations: Iterable[str | None]) -> Counter[str]:
    """Forfeits by short reason."""
    return Counter(r for t in terminations if (r := forfeit_reason(t or "")) is not None)


def format_forfeits(terminations: Iterable[str | None]) -> str:
    """``forfeits: 2 (time 1, illegal move 1)``, or ``forfeits: 0``."""
    counts = count_forfeits(terminations)
    total = sum(counts.values())
    if not total:
        return "forfeits: 0"
    parts = ", ".join(f"{reason} {counts[reason]}" for reason in ORDER if counts[reason])
    return f"forfeits: {total} ({parts})"
