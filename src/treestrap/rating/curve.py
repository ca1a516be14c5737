"""A learning curve's ratings (Veness et al. 2009, Figure 2 and Table 2).

The checkpoints of training runs and the runs' common untrained start, rated in one
BayesElo-model fit with the untrained player fixed at the anchor (250 Elo in the
paper), so that ratings of different runs are comparable; and the paper's Table 2, each
run's best checkpoint. Which checkpoints, and the tournament that rates them, are
:mod:`treestrap.training.curve`'s.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from treestrap.rating.ratings import RatingOptions, fit_ratings_settled
from treestrap.rating.results import GameResult
from treestrap.rating.table import RatingTable

UNTRAINED = "untrained"
#: The untrained player's rating in Veness et al. (2009), Table 2.
PAPER_ANCHOR_ELO = 250.0
#: What the summary's two counts are, printed under it.
COLUMNS_NOTE = (
    "trained: the checkpoint's self-play games; games: the tournament games its rating rests on"
)
#: The update rules' names as the paper prints them.
DISPLAY_NAMES = {
    "td": "TD",
    "td-root": "TD-Root",
    "td-leaf": "TD-Leaf",
    "rootstrap-mm": "RootStrap(minimax)",
    "rootstrap-ab": "RootStrap(alpha-beta)",
    "treestrap-mm": "TreeStrap(minimax)",
    "treestrap-ab": "TreeStrap(alpha-beta)",
}


@dataclass
class CurvePoint:
    label: str
    games: int
    elo: float
    lower: float
    upper: float
    #: the run's CPU seconds up to this checkpoint, learning included (nan: unknown)
    cpu_seconds: float = math.nan
    #: the tournament games its rating rests on
    rated_games: int = 0


@dataclass
class CurveResult:
    table: RatingTable
    points: list[CurvePoint]
    untrained_elo: float
    notes: list[str] = field(default_factory=list)  # parameters the games left open

    def best(self) -> dict[str, CurvePoint]:
        """Each run's best-rated checkpoint (the paper's Table 2 reports these)."""
        best: dict[str, CurvePoint] = {}
        for p in self.points:
            if p.label not in best or p.elo > best[p.label].elo:
                best[p.label] = p
        return best

    def format_summary(
        self,
        paper: dict[str, float] | None = None,
        paper_label: str = "paper",
        extra: dict[str, dict[str, str]] | None = None,
    ) -> str:
        """Table 2 of the paper: best Elo per algorithm with its 95% interval, the
        checkpoint's self-play games (``trained``) and the tournament games its rating
        rests on (``games``); with ``paper``, the paper's figures in a column headed
        ``paper_label``; ``extra``: more columns, header to text by run label
        (:data:`UNTRAINED` for the anchor)."""
        rows = sorted(self.best().values(), key=lambda p: -p.elo)
        columns = extra or {}
        width = max([8, *(len(h) + 2 for h in columns)])
        paper_width = max(8, len(paper_label) + 2)
        head = f"{'Algorithm':<24}{'Elo':>7}  {'95% interval':<16}{'trained':>8}{'games':>7}"
        if paper:
            head += f"{paper_label:>{paper_width}}"
        head += "".join(f"{h:>{width}}" for h in columns)
        lines = [head, "-" * len(head)]
        for p in rows:
            line = (
                f"{DISPLAY_NAMES.get(p.label, p.label):<24}{p.elo:>7.0f}  "
                f"{f'[{p.lower:.0f}, {p.upper:.0f}]':<16}{p.games:>8}{p.rated_games:>7}"
            )
            if paper:
                line += f"{paper.get(p.label, math.nan):>{paper_width}.0f}"
            line += "".join(f"{c.get(p.label, ''):>{width}}" for c in columns.values())
            lines.append(line)
        untrained = self.table.rating(UNTRAINED)
        line = f"{'Untrained':<24}{untrained.elo:>7.0f}  {'(anchor)':<16}{0:>8}{untrained.games:>7}"
        if paper:
            line += f"{PAPER_ANCHOR_ELO:>{paper_width}.0f}"
        line += "".join(f"{c.get(UNTRAINED, ''):>{width}}" for c in columns.values())
        lines.append(line)
        return "\n".join(lines)

    def to_csv(self, path: str | Path) -> None:
        rows = ["algorithm,games,elo,lower95,upper95,cpu_seconds,rated_games"]
        rows += [f"{UNTRAINED},0,{self.untrained_elo:.1f},,,0,{self.table.rating(UNTRAINED).games}"]
        rows += [
            f"{p.label},{p.games},{p.elo:.1f},{p.lower:.1f},{p.upper:.1f},"
            + ("" if math.isnan(p.cpu_seconds) else f"{p.cpu_seconds:.1f}")
            + f",{p.rated_games}"
            for p in self.points
        ]
        Path(path).write_text("\n".join(rows) + "\n", encoding="utf-8")


def rate_curve(
    games: Sequence[GameResult],
    points: Sequence[tuple[str, str, int, float]],
    anchor_elo: float = PAPER_ANCHOR_ELO,
) -> CurveResult:
    """Fit ``games`` with the untrained player fixed at ``anchor_elo``; ``points`` are
    the rated checkpoints as (player name, run label, training games, CPU seconds)."""
    table, notes = fit_ratings_settled(games, RatingOptions(anchor=(UNTRAINED, anchor_elo)))
    rated = []
    for name, label, trained, cpu_seconds in points:
        r = table.rating(name)
        rated.append(CurvePoint(label, trained, r.elo, r.lower, r.upper, cpu_seconds, r.games))
    return CurveResult(table, rated, anchor_elo, notes)
