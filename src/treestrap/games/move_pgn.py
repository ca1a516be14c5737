"""A tournament game of a game without a PGN notation of its own, as PGN: the usual
tags, a ``Variant`` tag, and its moves as the game writes them, so that ``treestrap
rate`` reads it as it reads chess games (the first player is White: ``1-0`` is a
first-player win). A ``CPUSeconds`` tag keeps the players' CPU time where it was
measured, so a stopped match that goes on still knows what its earlier games cost."""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence

from treestrap.games.records import RecordTags

CPU_TAG = "CPUSeconds"
_CPU = re.compile(rf'^\[{CPU_TAG} "([0-9.]+)"\]$', re.MULTILINE)


def move_pgn(variant: str, tags: RecordTags, opening: Sequence[str], moves: Sequence[str]) -> str:
    """The game as PGN: ``opening`` joined is its ``Opening`` tag, and every move, the
    opening's first, follows the tags (``tags.number`` is the round)."""
    played = [*opening, *moves]
    date = datetime.datetime.now(datetime.UTC).strftime("%Y.%m.%d")
    pairs = [
        ("Event", tags.event),
        ("Site", "treestrap"),
        ("Date", date),
        ("Round", str(tags.number)),
        ("White", tags.first),
        ("Black", tags.second),
        ("Result", tags.result),
        ("Variant", variant),
        ("Opening", "".join(opening)),
        ("PlyCount", str(len(played))),
    ]
    if tags.cpu_seconds is not None:
        pairs.append((CPU_TAG, f"{tags.cpu_seconds:.3f}"))
    head = "\n".join(f'[{key} "{value}"]' for key, value in pairs)
    return f"{head}\n\n{' '.join(played)} {tags.result}"


def recorded_cpu_seconds(pgn: str) -> float:
    """The CPU time a game's ``CPUSeconds`` tag keeps (0 for a game without one)."""
    found = _CPU.search(pgn)
    return float(found.group(1)) if found else 0.0
