"""The ratings of a Serban (2014) reproduction: one fit of both gauntlets with the best
RL LogReg fixed at 250 Elo, and every rated checkpoint as a point of its curve."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from treestrap.rating.curve import CurvePoint
from treestrap.rating.ratings import RatingOptions, fit_ratings_settled
from treestrap.rating.results import load_results
from treestrap.rating.table import RatingTable
from treestrap.reproduce.serban2014.budgets import ANCHOR_ELO
from treestrap.reproduce.serban2014.gauntlets import best_rl_logreg, tournament_dir
from treestrap.reproduce.stages import read_json


@dataclass
class SerbanResult:
    """The fit of both tournaments and what the table says of it."""

    table: RatingTable
    reference: str
    points: list[CurvePoint]  # every rated checkpoint: label, games, Elo, interval
    starts: dict[str, Any]
    notes: list[str]

    def point(self, label: str, games: int) -> CurvePoint:
        return next(p for p in self.points if p.label == label and p.games == games)

    def best(self, label: str) -> CurvePoint:
        return max((p for p in self.points if p.label == label), key=lambda p: p.elo)


def rate(out: Path) -> SerbanResult:
    """One fit of both gauntlets with the best RL LogReg fixed at 250 Elo."""
    first = load_results(tournament_dir(out, "7.1"))
    reference = best_rl_logreg(first)
    games = first + load_results(tournament_dir(out, "7.2"))
    table, notes = fit_ratings_settled(games, RatingOptions(anchor=(reference, ANCHOR_ELO)))
    points = []
    for name in table.names:
        label, _, trained = name.partition("@")
        r = table.rating(name)
        points.append(
            CurvePoint(label, int(trained or 0), r.elo, r.lower, r.upper, rated_games=r.games)
        )
    starts = read_json(out / "starts" / "starts.json")
    return SerbanResult(table, reference, points, starts, notes)
