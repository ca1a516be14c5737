"""The work of one worker: a chunk of consecutive games of one file -> shard files.

A chunk is the unit of resumption. Its shards are written first and its ``.json``
record last, each atomically, so a record on disk means the whole chunk is there and a
chunk without one is simply done again.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess
import chess.engine
import numpy as np

from treestrap.supervised.dataset.encode import encode_line
from treestrap.supervised.dataset.filters import GameFilter
from treestrap.supervised.dataset.game import (
    TRUNCATED,
    UNSUPPORTED_POSITION,
    ParsedGame,
    parse_game,
)
from treestrap.supervised.dataset.labels import CLASS_NB
from treestrap.supervised.dataset.options import BuildOptions
from treestrap.supervised.dataset.rollout import finished_on_board, roll_out
from treestrap.supervised.dataset.scoring import white_score
from treestrap.supervised.dataset.split import SPLIT_NAMES, TEST, assign_split, game_key
from treestrap.supervised.dataset.stockfish import open_stockfish
from treestrap.supervised.dataset.store import SHARDS, shard_path, write_json, write_shard

#: Games per chunk: a few seconds of work without Stockfish, so an interrupted build
#: loses little while a large collection still makes few files ...
GAMES_PER_CHUNK = 100
#: ... and with Stockfish, whose rollouts and scores at Serban's depth 14 cost seconds
#: per game, fewer, so that a chunk still takes minutes rather than an hour.
GAMES_PER_ENGINE_CHUNK = 10

_engine: chess.engine.SimpleEngine | None = None


def engine() -> chess.engine.SimpleEngine:
    """This process's Stockfish, started on first use."""
    global _engine
    if _engine is None:
        _engine = open_stockfish()
    return _engine


def close_engine() -> None:
    global _engine
    if _engine is not None:
        _engine.quit()
        _engine = None


@dataclass(frozen=True)
class ChunkTask:
    """What a worker needs to do one chunk (picklable)."""

    chunk_id: str
    data_dir: str
    games: list[tuple[str, bool]]  # (PGN text, intact) of each game
    first_game_id: int
    held_out_test: bool  # the games come from --test-pgn: all of them are test positions
    training_has_test: bool  # a --test-pgn exists, so these games go to train/validation
    options: BuildOptions


@dataclass
class _Columns:
    """Arrays of one split, accumulated game by game."""

    parts: dict[str, list[np.ndarray]] = field(default_factory=dict)
    games: int = 0

    def add(self, **arrays: np.ndarray) -> None:
        for key, value in arrays.items():
            self.parts.setdefault(key, []).append(value)

    def arrays(self) -> dict[str, np.ndarray]:
        return {key: np.concatenate(values) for key, values in self.parts.items()}


def process_chunk(task: ChunkTask) -> dict[str, Any]:
    """Parse, complete, encode and store the chunk's games; returns its record."""
    started = time.perf_counter()
    opts = task.options
    game_filter = GameFilter(opts.min_elo, opts.event, opts.time_control)
    skipped: Counter[str] = Counter()
    columns = [_Columns() for _ in SPLIT_NAMES]
    rolled_out = aborted = appended = 0
    for offset, (text, intact) in enumerate(task.games):
        parsed = parse_game(text, game_filter, opts.min_plies, opts.undecided) if intact else None
        if not isinstance(parsed, ParsedGame):
            skipped[parsed or TRUNCATED] += 1
            continue
        extra: list[str] = []
        label = parsed.label
        game_tag = (task.chunk_id, offset)  # a new game for Stockfish: its hash is cleared
        if opts.rollout_depth is not None and not finished_on_board(parsed.final):
            moves, result = roll_out(
                parsed.final, engine(), opts.rollout_depth, opts.rollout_max_plies, game_tag
            )
            if result is None:
                aborted += 1
            else:
                rolled_out += 1
                extra = [m.uci() for m in moves]
                label = result
        try:
            line = encode_line(parsed.start_fen, parsed.moves_uci + extra)
        except ValueError:
            skipped[UNSUPPORTED_POSITION] += 1
            continue
        n, original = len(line), len(parsed.moves_uci) + 1
        appended += n - original
        if task.held_out_test:
            split = TEST
        else:
            key = game_key(parsed.start_fen, parsed.moves_uci)
            split = assign_split(key, opts.seed, opts.split, task.training_has_test)
        arrays = {
            "bits": line.bits,
            "meep_idx": line.meep_idx,
            "meep_val": line.meep_val,
            "meep_count": line.meep_count,
            "white_to_move": line.white_to_move,
            "ply": np.arange(n, dtype=np.int16),
            "result": np.full(n, label, dtype=np.int8),
            "pgn_result": np.full(n, parsed.label, dtype=np.int8),
            "game_id": np.full(n, task.first_game_id + offset, dtype=np.int32),
            "rollout": np.arange(n) >= original,
        }
        if opts.score_depth is not None:
            arrays["sf_score"] = _scores(parsed, extra, opts.score_depth, game_tag)
        columns[split].add(**arrays)
        columns[split].games += 1
    stored = [col.arrays() if col.games else None for col in columns]
    root = Path(task.data_dir)
    for name, arrays in zip(SPLIT_NAMES, stored, strict=True):
        if arrays is not None:
            write_shard(shard_path(root, task.chunk_id, name), arrays)
    record = _record(task, skipped, columns, stored, rolled_out, aborted, appended)
    record["seconds"] = round(time.perf_counter() - started, 3)
    write_json(root / SHARDS / f"{task.chunk_id}.json", record)
    return record


def _scores(parsed: ParsedGame, extra: list[str], depth: int, game_tag: object) -> np.ndarray:
    """Stockfish's score for White of every position of the game, rollout included."""
    board = chess.Board(parsed.start_fen)
    scores = [white_score(engine(), board, depth, game_tag)]
    for uci in parsed.moves_uci + extra:
        board.push_uci(uci)
        scores.append(white_score(engine(), board, depth, game_tag))
    return np.asarray(scores, dtype=np.float32)


def _record(
    task: ChunkTask,
    skipped: Counter[str],
    columns: list[_Columns],
    stored: list[dict[str, np.ndarray] | None],
    rolled_out: int,
    aborted: int,
    appended: int,
) -> dict[str, Any]:
    """The chunk's counts, which the manifest adds up."""
    splits = {}
    for name, col, data in zip(SPLIT_NAMES, columns, stored, strict=True):
        if data is None:
            splits[name] = _split_counts(np.zeros(0, np.int8), np.zeros(0, np.int8), 0)
            continue
        original = ~data["rollout"]
        splits[name] = _split_counts(data["result"], data["pgn_result"][original], col.games)
    return {
        "chunk": task.chunk_id,
        "games_read": len(task.games),
        "games_kept": sum(col.games for col in columns),
        "skipped": dict(sorted(skipped.items())),
        "rolled_out": rolled_out,
        "rollout_aborted": aborted,
        "rollout_positions": appended,
        "splits": splits,
    }


def _split_counts(labels: np.ndarray, pgn_labels: np.ndarray, games: int) -> dict[str, Any]:
    return {
        "games": games,
        "positions": len(labels),
        "classes": np.bincount(labels, minlength=CLASS_NB).tolist(),
        "positions_without_rollout": len(pgn_labels),
        "classes_without_rollout": np.bincount(pgn_labels, minlength=CLASS_NB).tolist(),
    }
