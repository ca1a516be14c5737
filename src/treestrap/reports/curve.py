"""The learning-curve plot: Elo against training games (Veness et al. 2009, Figure 2)
and, beside it, against the CPU time the training took."""

from __future__ import annotations

import math
from pathlib import Path

from treestrap.rating.curve import DISPLAY_NAMES, CurvePoint, CurveResult


def _draw(ax, result: CurveResult, x_of, xlabel: str) -> None:  # type: ignore[no-untyped-def]
    for label in sorted({p.label for p in result.points}):
        pts = sorted((p for p in result.points if p.label == label), key=lambda p: p.games)
        pts = [p for p in pts if x_of(p) > 0]
        err = [[p.elo - p.lower for p in pts], [p.upper - p.elo for p in pts]]
        ax.errorbar(
            [x_of(p) for p in pts],
            [p.elo for p in pts],
            yerr=err,
            marker="o",
            capsize=3,
            label=DISPLAY_NAMES.get(label, label),
        )
    ax.axhline(result.untrained_elo, color="grey", linestyle="--", label="Untrained")
    ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.grid(True, which="both", alpha=0.3)


def _cpu_minutes(point: CurvePoint) -> float:
    return point.cpu_seconds / 60.0


def plot_curve(result: CurveResult, out: str | Path, title: str | None = None) -> None:
    """Elo against training games and against CPU minutes, log axes, one line per
    run, 95% error bars (the CPU panel only where the runs recorded their time)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    timed = any(not math.isnan(p.cpu_seconds) and p.cpu_seconds > 0 for p in result.points)
    fig, axes = plt.subplots(1, 2 if timed else 1, figsize=(13 if timed else 8, 5), squeeze=False)
    games_ax = axes[0][0]
    _draw(games_ax, result, lambda p: p.games, "Number of training games")
    games_ax.set_ylabel("Rating (Elo)")
    games_ax.legend()
    if timed:
        cpu_ax = axes[0][1]
        _draw(cpu_ax, result, _cpu_minutes, "Training CPU time (minutes, learning included)")
        cpu_ax.sharey(games_ax)
    fig.suptitle(title or "Rating versus training", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
