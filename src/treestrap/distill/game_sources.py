"""Which games a distillation takes its positions from, and the record of them.

``distill label`` reads PGN files; a player filter decides which games count (by the
White and Black tags), and each file is recorded with its SHA-256 and its games by
pairing, kept and left out, so the network's provenance shows who played them. A PGN
file inside a training run (beside its ``weights.npz``) also names that run's weights,
whose own chain says how the players of those games were made.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import chess.pgn

from treestrap.evaluation.preset_names import PRESET_NAMES
from treestrap.evaluation.provenance import (
    LEARNER,
    file_sha256,
    games_are_self_play,
    model_parent,
)
from treestrap.evaluation.weight_file_format import read_weight_file

#: A player filter: whether a game of White and Black is kept.
PlayerFilter = Callable[[str, str], bool]

SELF_PLAY_FILTER, OWN_FILTER, ALL_FILTER = "self-play", "own", "all"
#: Our own players: a training run's learner and the presets.
OWN_PLAYERS = frozenset({LEARNER, *PRESET_NAMES})
FILTER_HELP = (
    "which games count: 'own' (default: both players are ours, a training run's "
    "learner or a preset), 'self-play' (a training run's games against itself), 'all', "
    "or NAME,NAME,... (both players among these PGN names)"
)


def pairing(white: str, black: str) -> str:
    return f"{white} vs {black}"


def player_filter(spec: str) -> PlayerFilter:
    """The filter a ``--players`` value names; ``ValueError`` for an empty list."""
    if spec == ALL_FILTER:
        return lambda white, black: True
    if spec == SELF_PLAY_FILTER:
        return lambda white, black: white == black == LEARNER
    names = OWN_PLAYERS if spec == OWN_FILTER else frozenset(filter(None, spec.split(",")))
    if not names:
        raise ValueError(f"--players {spec!r} names no player")
    return lambda white, black: white in names and black in names


def _headers(path: str | Path) -> Iterable[chess.pgn.Headers]:
    with open(path, encoding="utf-8", errors="replace") as handle:
        while (headers := chess.pgn.read_headers(handle)) is not None:
            yield headers


def game_file_record(path: str | Path, keep: PlayerFilter) -> dict[str, Any]:
    """A PGN file's record: path as given, SHA-256, games by pairing kept and left out,
    and the training run's weights beside it, if any."""
    kept: Counter[str] = Counter()
    dropped: Counter[str] = Counter()
    for headers in _headers(path):
        white, black = headers.get("White", "?"), headers.get("Black", "?")
        (kept if keep(white, black) else dropped)[pairing(white, black)] += 1
    record: dict[str, Any] = {
        "path": str(path),
        "sha256": file_sha256(path),
        "kept": dict(kept.most_common()),
        "dropped": dict(dropped.most_common()),
    }
    run_weights = Path(path).parent / "weights.npz"
    if run_weights.is_file():  # a training run's games: its weights played them
        meta, weights = read_weight_file(run_weights)
        metadata = meta.get("metadata", {})
        record["players"] = model_parent(f"players of {path}", str(run_weights), weights, metadata)
    record["self_play_only"] = bool(
        games_are_self_play(record["kept"]) and record.get("players", {}).get("self_play_only")
    )
    return record


def kept_games(path: str | Path, keep: PlayerFilter) -> Iterable[chess.pgn.Game]:
    """The games of a PGN file that ``keep`` lets through, in file order."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            if keep(game.headers.get("White", "?"), game.headers.get("Black", "?")):
                yield game
