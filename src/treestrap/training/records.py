"""A run's per-game records: ``games.pgn`` and one ``metrics.jsonl`` line per game,
appended and synced as each game ends, and cut back to the saved weights on resume."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import chess.pgn
import numpy as np

from treestrap.evaluation.weights import LinearModel
from treestrap.training.checkpoints import RunState
from treestrap.training.game import GameSummary


def append_record(path: Path, text: str) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())


def truncate_records(run: Path, games_done: int) -> None:
    """Drop PGN games and metric lines newer than the saved weights."""
    metrics = run / "metrics.jsonl"
    if metrics.exists():
        lines = [
            line
            for line in metrics.read_text().splitlines()
            if line.strip() and json.loads(line)["game"] <= games_done
        ]
        metrics.write_text("".join(line + "\n" for line in lines))
    pgn = run / "games.pgn"
    if pgn.exists():
        kept = []
        with open(pgn, encoding="utf-8") as fh:
            while (game := chess.pgn.read_game(fh)) is not None:
                if int(game.headers.get("Round", "0")) <= games_done:
                    kept.append(str(game))
        pgn.write_text("".join(g + "\n\n" for g in kept))


def metrics_row(summary: GameSummary, model: LinearModel, state: RunState) -> dict[str, Any]:
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
    if model.feature_set.name == "meep":
        names = ("pawn", "knight", "bishop", "rook", "queen")
        row["material"] = {n: round(float(v), 3) for n, v in zip(names, w[:5], strict=True)}
    return row
