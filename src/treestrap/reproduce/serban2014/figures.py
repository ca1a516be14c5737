"""Figures 7.1 and 7.2 of a Serban (2014) reproduction: Elo against training games."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from treestrap.reproduce.serban2014.budgets import ANCHOR_ELO, RL_LOGREG, SL_LOGREG
from treestrap.reproduce.serban2014.ratings import SerbanResult


def plot_figure(
    result: SerbanResult, labels: list[str], path: Path, title: str, start_name: str | None
) -> None:
    """Elo against training games, one line per run with 95% error bars, the best RL
    LogReg's 250 as a dashed line; ``start_name`` plots that player at 0 games."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    most = max(p.games for p in result.points)
    for k, label in enumerate(labels):
        # Lines side by side, a little apart, so that their error bars stay readable.
        dodge = (k - (len(labels) - 1) / 2) * 0.012 * most
        pts = sorted((p for p in result.points if p.label == label), key=lambda p: p.games)
        if start_name is not None:
            start = next(p for p in result.points if p.label == start_name)
            pts = [dataclasses.replace(start, games=0), *pts]
        ax.errorbar(
            [p.games + dodge for p in pts],
            [p.elo for p in pts],
            yerr=[[p.elo - p.lower for p in pts], [p.upper - p.elo for p in pts]],
            marker="o",
            capsize=3,
            label=label.replace("-", " ") + (f" (0 games: {start_name})" if start_name else ""),
        )
    ax.axhline(
        ANCHOR_ELO, color="grey", linestyle="--", label=f"best RL LogReg ({result.reference})"
    )
    ax.set_xlabel("Number of training games")
    ax.set_ylabel("Rating (Elo)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    # The temporary name keeps its .png: savefig picks the format from it.
    tmp = path.with_name(path.stem + ".tmp.png")
    fig.savefig(tmp, dpi=120)
    plt.close(fig)
    os.replace(tmp, path)


def plot_figures(result: SerbanResult, out: Path) -> None:
    """``fig7_1.png`` (the RL LogReg from the SL LogReg on) and ``fig7_2.png`` (the RL
    MLPs from their supervised starts on)."""
    plot_figure(
        result,
        [RL_LOGREG],
        out / "fig7_1.png",
        "Figure 7.1: RL LogReg (soft cross-entropy) against training games",
        SL_LOGREG,
    )
    mlps = [f"MLP-{letter}" for letter in result.starts["letters"]]
    plot_figure(
        result,
        mlps,
        out / "fig7_2.png",
        "Figure 7.2: RL MLPs against training games (0 games: the supervised start)",
        None,
    )
