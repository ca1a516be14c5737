"""A round's self-play data on disk, whatever the game: numbered chunks of games, one
position file each (``data/chunk-NNNN.tspos``), with a summary beside it
(``chunk-NNNN.json``) written before the data file is renamed into place: the data
file's name is the commit point."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from treestrap.distill.position_file import PositionWriter, record_count
from treestrap.evaluation.provenance import file_sha256
from treestrap.play.loop import DRAWN, FIRST_WINS, SECOND_WINS

# One game of a chunk, by its number: its records (results filled in), its result for
# the first player (FIRST_WINS, ...), its plies and the nodes searched.
GamePlayer = Callable[[int], tuple[np.ndarray, str, int, int]]


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


def chunk_files(data_dir: Path) -> list[Path]:
    """Every chunk of a finished round, in order (however many its budget made)."""
    return sorted(data_dir.glob("chunk-*.tspos"))


def chunk_games(index: int, chunk: int, games: int) -> tuple[int, int]:
    """The first and last game number of chunk ``index`` (numbers start at 1)."""
    first = index * chunk + 1
    return first, min(games, first + chunk - 1)


def results_by_side(sides: list[int], first_score: int) -> list[int]:
    """Each record's result for its side to move (side 0: the first player), from the
    first player's +1, 0 or -1."""
    return [first_score if side == 0 else -first_score for side in sides]


def play_chunk_file(
    data_dir: Path,
    index: int,
    model_path: Path,
    settings: Any,
    record: str,
    make_player: Callable[[], GamePlayer],
) -> ChunkSummary:
    """Chunk ``index`` of a round played by the weight file ``model_path`` with the
    self-play ``settings`` (a dataclass with ``games`` and ``chunk``): read back when it
    is on disk, else its games played by the player ``make_player`` loads (its loading
    counted in the chunk's CPU time), the data written to a temporary file under a
    header naming the player, the summary written, and the file renamed into place."""
    path = chunk_path(data_dir, index)
    summary_path = path.with_suffix(".json")
    if path.exists() and summary_path.exists():
        return ChunkSummary(**json.loads(summary_path.read_text()))
    cpu = time.process_time()
    play_one = make_player()
    first, last = chunk_games(index, settings.chunk, settings.games)
    header = {
        "player": str(model_path.name),
        "player_sha256": file_sha256(model_path),
        "settings": asdict(settings),
    }
    counts = {FIRST_WINS: 0, SECOND_WINS: 0, DRAWN: 0}
    plies = nodes = 0
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    with PositionWriter(tmp, {**header, "games": [first, last]}, record) as writer:
        for number in range(first, last + 1):
            records, result, game_plies, game_nodes = play_one(number)
            writer.write(records)
            counts[result] += 1
            plies += game_plies
            nodes += game_nodes
    summary = ChunkSummary(
        index,
        last - first + 1,
        record_count(tmp, record),
        counts[FIRST_WINS],
        counts[SECOND_WINS],
        counts[DRAWN],
        plies,
        nodes,
        round(time.process_time() - cpu, 2),
    )
    # The summary first, the data file last: the file's name is the commit point.
    summary_path.write_text(json.dumps(summary.to_json()) + "\n")
    os.replace(tmp, path)
    return summary
