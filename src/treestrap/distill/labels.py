"""Distillation's labels: the positions of PGN files (the project's own training and
match games), each scored by a teacher engine's tournament search at a fixed depth (so
the targets hold more than the teacher's static value), with the results of the games
that reached them (:mod:`treestrap.distill.fit` fits a network to them).

Labelling is the costly step (milliseconds a position), so it writes chunks of a fixed
size into a directory and skips the chunks already there: an interrupted run resumes,
and several processes can share the work by ``shard`` and ``shards``.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import numpy as np

from treestrap.distill.game_sources import (
    ALL_FILTER,
    OWN_FILTER,
    PlayerFilter,
    game_file_record,
    kept_games,
    player_filter,
)
from treestrap.evaluation.feature_sets.bitboard import BITBOARD_SIZE, SIDE_TO_MOVE
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.provenance import named_parent
from treestrap.evaluation.weights import LinearModel

#: Scores beyond this (mates, decided positions) are clipped: their probability is
#: 0.9999 either way, and a mate's distance means nothing to a static evaluation.
SCORE_CLIP = 1600.0
#: Positions per chunk file.
CHUNK = 20_000
#: The share of rows that a fit holds out.
HELD_OUT = 0.05


#: White's score of a game by its PGN result; other results ("*") score nothing.
WHITE_SCORE = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def _game_walk(
    paths: Iterable[str | Path], first_ply: int, keep: PlayerFilter | None = None
) -> Iterator[tuple[str, str]]:
    """(EPD, the game's result) of every unfinished position of the games of ``paths``
    (those ``keep`` lets through) from ply ``first_ply`` on, in file order, repeats
    included."""
    keep = keep or player_filter(ALL_FILTER)
    for path in paths:
        for game in kept_games(path, keep):
            result = game.headers.get("Result", "*")
            board = game.board()
            for ply, move in enumerate(game.mainline_moves(), start=1):
                board.push(move)
                if ply >= first_ply and not board.is_game_over(claim_draw=False):
                    yield board.epd(), result


def _mean_results(
    paths: Iterable[str | Path], first_ply: int, keep: PlayerFilter | None = None
) -> dict[str, float]:
    """White's mean score over the games that reached each distinct position (from ply
    ``first_ply`` on, finished positions left out), keyed in file order; NaN where no
    game with a result reached it. One pass gives both the positions and the results."""
    total: dict[str, float] = {}
    count: dict[str, int] = {}
    for epd, result in _game_walk(paths, first_ply, keep):
        total.setdefault(epd, 0.0)
        count.setdefault(epd, 0)
        if result in WHITE_SCORE:
            total[epd] += WHITE_SCORE[result]
            count[epd] += 1
    return {e: total[e] / count[e] if count[e] else math.nan for e in total}


def game_positions(paths: Iterable[str | Path], first_ply: int = 8) -> list[str]:
    """The distinct positions (EPD: board, side, castling, en passant) of the games of
    ``paths`` from ply ``first_ply`` on, in file order; finished positions left out."""
    return list(dict.fromkeys(epd for epd, _ in _game_walk(paths, first_ply)))


def position_results(
    paths: Iterable[str | Path],
    epds: list[str],
    first_ply: int = 8,
    keep: PlayerFilter | None = None,
) -> np.ndarray:
    """White's mean score in the games of ``paths`` (those ``keep`` lets through) that
    reached each of ``epds`` (from ply ``first_ply`` on); NaN where no game with a
    result reached it."""
    means = _mean_results(paths, first_ply, keep)
    return np.array([means.get(e, math.nan) for e in epds])


def board_row(board: chess.Board) -> np.ndarray:
    """The 769 ``bitboard`` inputs of ``board`` (0/1 bytes): ``piece * 64 + square``
    with white pawn .. king as 0 .. 5 and black's as 6 .. 11, then white to move."""
    row = np.zeros(BITBOARD_SIZE, dtype=np.uint8)
    for square, piece in board.piece_map().items():
        kind = piece.piece_type - 1 + (0 if piece.color == chess.WHITE else 6)
        row[kind * 64 + square] = 1
    if board.turn == chess.WHITE:
        row[SIDE_TO_MOVE] = 1
    return row


@dataclass
class Labels:
    """Positions' input rows (packed 8 to a byte), their scores for white (cp) and
    their lines in the directory's positions file."""

    packed: np.ndarray
    white_cp: np.ndarray
    index: np.ndarray
    #: How many of the last rows a fit holds out (None: its ``held_out`` share).
    held_out_count: int | None = None
    #: White's mean score in the games that reached each position (None: not known).
    white_result: np.ndarray | None = None

    @property
    def rows(self) -> np.ndarray:
        return np.unpackbits(self.packed, axis=1, count=BITBOARD_SIZE)

    def subset(self, keep: np.ndarray) -> Labels:
        result = None if self.white_result is None else self.white_result[keep]
        return Labels(self.packed[keep], self.white_cp[keep], self.index[keep], None, result)


def _chunks(n: int, size: int) -> Iterator[tuple[int, int, int]]:
    for index, start in enumerate(range(0, n, size)):
        yield index, start, min(n, start + size)


def named_model(name: str) -> LinearModel | NetworkModel:
    """A preset by name, or a weight file."""
    from treestrap.evaluation.preset_names import PRESET_NAMES
    from treestrap.evaluation.presets import preset_model
    from treestrap.evaluation.weight_files import load_weights

    return preset_model(name) if name in PRESET_NAMES else load_weights(name)


def label_positions(
    epds: list[str],
    out_dir: str | Path,
    depth: int,
    weights: str = "learned",
    shard: int = 0,
    shards: int = 1,
    chunk: int | None = None,
) -> None:
    """Score ``epds`` with the tournament search of ``weights`` (a preset or file) to
    ``depth`` and write chunk ``i`` (positions ``i * chunk`` on, ``chunk`` default
    :data:`CHUNK`) as ``chunk-i.npz`` in ``out_dir``; this process takes the chunks
    ``i % shards == shard`` not yet written."""
    from treestrap.core.notation import parse_fen
    from treestrap.engine.engine import Engine
    from treestrap.search.timeman import SearchLimits

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model = named_model(weights)
    engine = Engine(model.evaluator(), hash_mb=16)
    for index, start, end in _chunks(len(epds), chunk or CHUNK):
        path = out / f"chunk-{index:04d}.npz"
        if index % shards != shard or path.exists():
            continue
        cpu_start = time.process_time()
        rows = np.zeros((end - start, BITBOARD_SIZE), dtype=np.uint8)
        cp = np.zeros(end - start)
        for i, epd in enumerate(epds[start:end]):
            board = chess.Board(epd + " 0 1")
            rows[i] = board_row(board)
            score = engine.go(parse_fen(board.fen()), SearchLimits(depth=depth)).score
            score = max(-SCORE_CLIP, min(SCORE_CLIP, score))
            cp[i] = score if board.turn == chess.WHITE else -score
        tmp = out / f"chunk-{index:04d}.tmp.npz"
        cpu = np.array(time.process_time() - cpu_start)  # the network's provenance adds it up
        packed = np.packbits(rows, axis=1)
        np.savez(tmp, packed=packed, white_cp=cp, index=np.arange(start, end), cpu_seconds=cpu)
        tmp.replace(path)


POSITIONS_FILE = "positions.epd"
SETTINGS_FILE = "labels.json"
#: White's mean game score per line of the positions file.
RESULTS_FILE = "results.npy"


def prepare(
    out_dir: str | Path,
    games: list[str],
    depth: int,
    teacher: str,
    seed: int = 0,
    players: str = OWN_FILTER,
) -> list[str]:
    """The positions of a labelling directory, shuffled by ``seed`` (so every chunk is
    a sample of all games): written with the settings on the first call, read back
    on later ones, which must ask for the same teacher, depth and player filter
    (:mod:`treestrap.distill.game_sources`). The games' results for the positions are
    written beside them (also into a directory made before they were)."""
    out = Path(out_dir)
    settings_path = out / SETTINGS_FILE
    settings: dict[str, Any] = {"teacher": teacher, "depth": depth}
    keep = player_filter(players)
    if settings_path.exists():
        saved = json.loads(settings_path.read_text())
        if {k: saved.get(k) for k in settings} != settings:
            raise ValueError(
                f"{out} holds labels of teacher {saved.get('teacher')!r} at depth "
                f"{saved.get('depth')}, not {teacher!r} at depth {depth}"
            )
        # A directory labelled before the filter existed took every game.
        if "players" in saved and saved["players"] != players:
            raise ValueError(
                f"{out} holds labels of the games of players {saved['players']!r}, not {players!r}"
            )
        epds = (out / POSITIONS_FILE).read_text().split("\n")
        if not (out / RESULTS_FILE).exists():
            np.save(out / RESULTS_FILE, position_results(games, epds, keep=keep))
        return epds
    sources = [game_file_record(g, keep) for g in games]
    means = _mean_results(games, first_ply=8, keep=keep)
    if not means:
        raise ValueError(f"the games hold no positions to label (players {players})")
    epds = list(means)
    order = np.random.default_rng(seed).permutation(len(epds))
    epds = [epds[i] for i in order]
    out.mkdir(parents=True, exist_ok=True)
    (out / POSITIONS_FILE).write_text("\n".join(epds))
    np.save(out / RESULTS_FILE, np.array([means[e] for e in epds]))
    settings.update(
        players=players,
        teacher_parent=named_parent("teacher", teacher, named_model(teacher)),
        games=sources,
        positions=len(epds),
        seed=seed,
        chunk=CHUNK,
    )
    settings_path.write_text(json.dumps(settings, indent=1) + "\n")
    return epds


def label_cpu_seconds(out_dir: str | Path) -> float:
    """The CPU seconds the labelling of ``out_dir``'s chunks took (chunks written before
    they recorded it count nothing)."""
    total = 0.0
    for path in Path(out_dir).glob("chunk-[0-9]*[0-9].npz"):
        with np.load(path) as chunk:
            if "cpu_seconds" in chunk.files:
                total += float(chunk["cpu_seconds"])
    return total


def label_settings(out_dir: str | Path) -> dict[str, Any]:
    """The settings :func:`prepare` recorded (empty for a directory without them)."""
    path = Path(out_dir) / SETTINGS_FILE
    return json.loads(path.read_text()) if path.exists() else {}


def chunk_count(n: int, chunk: int) -> int:
    return (n + chunk - 1) // chunk


def labelled_chunks(out_dir: str | Path) -> int:
    return len(list(Path(out_dir).glob("chunk-[0-9]*[0-9].npz")))


def load_labels(out_dir: str | Path) -> Labels:
    """Every chunk of ``out_dir`` together."""
    files = sorted(Path(out_dir).glob("chunk-[0-9]*[0-9].npz"))
    if not files:
        raise FileNotFoundError(f"{out_dir}: no labelled chunks")
    parts = [np.load(f) for f in files]
    index = np.concatenate([p["index"] for p in parts])
    results = Path(out_dir) / RESULTS_FILE
    return Labels(
        np.concatenate([p["packed"] for p in parts]),
        np.concatenate([p["white_cp"] for p in parts]),
        index,
        white_result=np.load(results)[index] if results.exists() else None,
    )


def join_labels(
    parts: list[Labels], held_out: float = HELD_OUT, bases: list[np.ndarray] | None = None
) -> tuple[Labels, np.ndarray | None]:
    """Several labelling directories' labels as one, for :func:`fit_network`: the
    training rows of every part first, then every part's last ``held_out`` rows, so
    each part keeps its own held-out rows (one part comes back unchanged). ``bases``
    (each part's linear scores, or None) are reordered the same way."""
    cuts = training_cuts(parts, held_out)

    def join(arrays: list[np.ndarray]) -> np.ndarray:
        return join_rows(arrays, cuts)

    known = all(p.white_result is not None for p in parts)
    labels = Labels(
        join([p.packed for p in parts]),
        join([p.white_cp for p in parts]),
        join([p.index for p in parts]),
        held_out_count=sum(len(p.white_cp) - c for p, c in zip(parts, cuts, strict=True)),
        white_result=join([p.white_result for p in parts]) if known else None,  # type: ignore[misc]
    )
    return labels, None if bases is None else join(bases)


def held_out_rows(n: int, held_out: float = HELD_OUT) -> int:
    """How many of ``n`` rows :func:`fit_network` holds out."""
    return max(1, int(n * held_out))


def training_cuts(parts: list[Labels], held_out: float = HELD_OUT) -> list[int]:
    """Each part's count of training rows (the rest it holds out)."""
    return [len(p.white_cp) - held_out_rows(len(p.white_cp), held_out) for p in parts]


def join_rows(arrays: list[np.ndarray], cuts: list[int]) -> np.ndarray:
    """Each part's rows before its cut (its training rows), then each part's rows from
    its cut on: the order of :func:`join_labels`."""
    order = [(k, slice(None, c)) for k, c in enumerate(cuts)]
    order += [(k, slice(c, None)) for k, c in enumerate(cuts)]
    return np.concatenate([arrays[k][s] for k, s in order])


def joined_positions(
    directories: list[str | Path], parts: list[Labels], held_out: float = HELD_OUT
) -> list[str]:
    """The EPDs of ``parts`` (the labels of ``directories``) in the order of
    :func:`join_labels`."""
    cuts = training_cuts(parts, held_out)
    epds = [
        np.array(positions_of(d, p.index), dtype=object)
        for d, p in zip(directories, parts, strict=True)
    ]
    return list(join_rows(epds, cuts))


def positions_of(out_dir: str | Path, index: np.ndarray) -> list[str]:
    """The EPDs of lines ``index`` of a labelling directory's positions file."""
    epds = (Path(out_dir) / POSITIONS_FILE).read_text().split("\n")
    return [epds[i] for i in index]
