"""A tournament game of a game without a PGN notation of its own, as PGN: the usual
tags, a ``Variant`` tag, and its moves as the game writes them, so that ``treestrap
rate`` reads it as it reads chess games (the first player is White: ``1-0`` is a
first-player win)."""

from __future__ import annotations

import datetime
from collections.abc import Sequence

from treestrap.games.records import RecordTags


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
    head = "\n".join(f'[{key} "{value}"]' for key, value in pairs)
    return f"{head}\n\n{' '.join(played)} {tags.result}"
