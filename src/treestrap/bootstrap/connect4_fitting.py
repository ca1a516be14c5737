"""A Connect Four round's candidate: linear weights fitted to the run's self-play data
(:mod:`treestrap.distill.connect4_fit`), saved with the provenance that ties it to the
player whose games it learned from.

The data files are grouped by the weight file that played them (their header's
SHA-256): each player's points per logit are fitted to its own games' results. The fit
checkpoints every epoch into the round's ``fit`` folder and resumes from there; the
candidate's file is written last, with ``fit/summary.json`` before it, so a round that
finds both has its candidate.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from treestrap.bootstrap.candidate_record import FitOutcome, fit_round_candidate
from treestrap.bootstrap.connect4_budgets import Connect4Budget
from treestrap.distill.connect4_fit import (
    Connect4EpochReport,
    Connect4FitSettings,
    LabelledRecords,
    fit_connect4_linear,
    labelled,
    player_scale,
)
from treestrap.distill.connect4_records import CONNECT4_RECORD_NAME
from treestrap.distill.position_file import read_header, read_records
from treestrap.games.connect4_model import Connect4Model, load_connect4_model


def _by_player(files: list[Path]) -> dict[str, np.ndarray]:
    """The records of ``files``, grouped by the SHA-256 of the player that played them."""
    groups: dict[str, list[np.ndarray]] = {}
    for path in files:
        player = str(read_header(path, CONNECT4_RECORD_NAME)[0].get("player_sha256"))
        groups.setdefault(player, []).append(np.array(read_records(path, CONNECT4_RECORD_NAME)))
    return {player: np.concatenate(parts) for player, parts in groups.items()}


def labelled_data(
    train_files: list[Path], held_out: list[Path], settings: Connect4FitSettings
) -> tuple[LabelledRecords, LabelledRecords, dict[str, float]]:
    """The training and held-out records with their targets, and each player's points
    per logit (fitted on its training records; on its held-out ones if it has none)."""
    train = _by_player(train_files)
    test = _by_player(held_out)
    scales = {player: player_scale(records) for player, records in train.items()}
    for player, records in test.items():
        scales.setdefault(player, player_scale(records))
    train_data = labelled([(r, scales[p]) for p, r in train.items()], settings)
    test_settings = replace(settings, mirror=False)
    test_data = labelled([(r, scales[p]) for p, r in test.items()], test_settings)
    return train_data, test_data, scales


def fit_connect4_candidate(
    candidate: Path,
    train_files: list[Path],
    held_out: list[Path],
    budget: Connect4Budget,
    best_path: Path,
    games: int,
    state_dir: Path,
    progress: bool = True,
) -> dict[str, Any]:
    """Fit (or finish fitting, or read back) the round's candidate; what the round's
    record keeps of the fit."""
    settings = budget.fit.settings()

    def show(report: Connect4EpochReport) -> None:
        if progress:
            print(
                f"epoch {report.epoch}: train loss {report.train_loss:.4f}, held-out loss "
                f"{report.held_out_loss:.4f}, held-out sign {report.held_out_sign:.3f}"
            )

    def fit() -> FitOutcome:
        train, test, scales = labelled_data(train_files, held_out, settings)
        weights, reports = fit_connect4_linear(train, test, settings, state_dir, on_epoch=show)
        last = reports[-1]
        per_logit = {p[:12]: round(k, 2) for p, k in scales.items()}
        return FitOutcome(
            model=Connect4Model(weights, {}),
            positions=int(sum(len(read_records(f, CONNECT4_RECORD_NAME)) for f in train_files)),
            fit={
                "epochs": len(reports),
                "held_out_loss": last.held_out_loss,
                "player_points_per_logit": per_logit,
            },
            figures={
                "held_out_loss": round(last.held_out_loss, 5),
                "held_out_sign": round(last.held_out_sign, 4),
                "scales": per_logit,
            },
            epochs=[vars(r) for r in reports],
        )

    best = load_connect4_model(best_path)
    return fit_round_candidate(candidate, state_dir, best_path, best, games, budget.name, fit)
