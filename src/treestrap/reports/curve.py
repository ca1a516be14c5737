"""The learning-curve plot: Elo against training games (Veness et al. 2009, Figure 2)."""

from __future__ import annotations

from pathlib import Path

from treestrap.rating.curve import DISPLAY_NAMES, CurveResult


def plot_curve(result: CurveResult, out: str | Path, title: str | None = None) -> None:
    """Elo against training games on a log axis, one line per run, 95% error bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    labels = sorted({p.label for p in result.points})
    for label in labels:
        pts = sorted((p for p in result.points if p.label == label), key=lambda p: p.games)
        xs = [p.games for p in pts]
        ys = [p.elo for p in pts]
        err = [[p.elo - p.lower for p in pts], [p.upper - p.elo for p in pts]]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=DISPLAY_NAMES.get(label, label))
    ax.axhline(result.untrained_elo, color="grey", linestyle="--", label="Untrained")
    ax.set_xscale("log")
    ax.set_xlabel("Number of training games")
    ax.set_ylabel("Rating (Elo)")
    ax.set_title(title or "Rating versus number of training games", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
