"""A round's self-play data on disk, whatever the game: numbered chunks of games, one
position file each (``data/chunk-NNNN.tspos``), with a summary beside it
(``chunk-NNNN.json``) written before the data file is renamed into place: the data
file's name is the commit point."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass
class ChunkSummary:
    """What one chunk of games left: counts, results and cost (white: the first
    player)."""

    index: int
    games: int
    positions: int
    white_wins: int
    black_wins: int
    draws: int
    plies: int
    nodes: int
    cpu_seconds: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def chunk_path(data_dir: Path, index: int) -> Path:
    return data_dir / f"chunk-{index:04d}.tspos"
