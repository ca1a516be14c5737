"""A run's per-game records: ``games.pgn`` (a Connect Four run's ``games.txt``) and one
``metrics.jsonl`` line per game, appended and synced as each game ends, and cut back to
the saved weights on resume.

All are append-only journals whose commit point is ``weights.npz``: a game's
records are written before its weights, so after a kill they may run ahead of the
weights by one game, or end in a torn record. Resuming cuts each file, in place, after
its last complete record of a saved game; nothing is rewritten, so a kill during the
cut (or a full disk) cannot lose the records before it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import numpy as np

from treestrap.training.checkpoints import RunModel, RunState
from treestrap.training.files import append_synced, naming
from treestrap.training.game import GameSummary

#: A game of ``games.pgn`` starts with its Event tag, at the start of the file or after
#: the blank line that ends the game before (python-chess writes Event first).
_GAME_START = re.compile(rb"(?:^|(?<=\n\n))\[Event ")
_ROUND = re.compile(rb'^\[Round "(\d+)"\]$', re.MULTILINE)
#: What ends every game the run appends: the result token, then a blank line.
_GAME_END = b"\n\n"


def append_record(path: Path, text: str) -> None:
    append_synced(path, text)


def truncate_records(run: Path, games_done: int) -> None:
    """Drop PGN games and metric lines newer than the saved weights, and a torn tail."""
    for path, keep in (
        (run / "metrics.jsonl", _metrics_end),
        (run / "games.pgn", _pgn_end),
        (run / "games.txt", _lines_end),
    ):
        if path.exists():
            with naming(path):
                data = path.read_bytes()
                end = keep(data, games_done)
                if end < len(data):
                    os.truncate(path, end)


def _metrics_end(data: bytes, games_done: int) -> int:
    """The byte offset after the last complete line of a game up to ``games_done``."""
    end = 0
    for line in data.splitlines(keepends=True):
        if not line.endswith(b"\n"):
            break  # torn: the write was cut
        if not line.strip():
            end += len(line)
            continue
        try:
            game = json.loads(line)["game"]
        except (ValueError, KeyError, TypeError):
            break
        if not isinstance(game, int) or game > games_done:
            break
        end += len(line)
    return end


def _lines_end(data: bytes, games_done: int) -> int:
    """The byte offset after the last complete line of ``games.txt`` (a game a line,
    its number first) of a game up to ``games_done``."""
    end = 0
    for line in data.splitlines(keepends=True):
        number = line.split(b"\t", 1)[0]
        if not line.endswith(b"\n") or not number.isdigit() or int(number) > games_done:
            break
        end += len(line)
    return end


def _pgn_end(data: bytes, games_done: int) -> int:
    """The byte offset after the last complete game whose round is ``<= games_done``."""
    starts = [m.start() for m in _GAME_START.finditer(data)]
    end = 0
    for start, stop in zip(starts, [*starts[1:], len(data)][: len(starts)], strict=True):
        game = data[start:stop]
        found = _ROUND.search(game)
        if start != end or not game.endswith(_GAME_END) or found is None:
            break  # torn, or not a game this run wrote
        if int(found.group(1)) > games_done:
            break
        end = stop
    return end


def metrics_row(summary: GameSummary, model: RunModel, state: RunState) -> dict[str, Any]:
    w = model.weights
    row: dict[str, Any] = {
        "game": summary.number,
        "result": summary.result,
        "learner_white": summary.learner_white,
        "termination": summary.termination,
        "plies": summary.plies,
        "searches": summary.searches,
        "nodes": summary.nodes,
        "seconds": round(summary.seconds, 3),
        "cpu_seconds": round(summary.cpu_seconds, 3),
        "cpu_total": round(state.cpu_seconds, 3),
        "nps": round(summary.nodes / summary.seconds) if summary.seconds > 0 else 0,
        "mean_abs_delta": summary.mean_abs_delta,
        "weight_norm": float(np.linalg.norm(w)),
        "opening": summary.opening,
        "opponent_elo": state.elo,
    }
    if getattr(model, "feature_set", None) is not None and model.feature_set.name == "meep":
        names = ("pawn", "knight", "bishop", "rook", "queen")
        row["material"] = {n: round(float(v), 3) for n, v in zip(names, w[:5], strict=True)}
    return row
