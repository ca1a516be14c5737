"""Elo against a reference player by training CPU hours: issue 26's "CPU hours per Elo
on a curve" for the network runs.

Each candidate is a finished match directory of ``treestrap tournament`` (its
``results.sqlite``) in which the candidate played the reference, with the CPU hours
its weights took to train (everything they were trained from included, as
``treestrap weights show`` reports them). The reference sits at 0 Elo at its own CPU
hours. Prints a table and draws Elo with 95% intervals against CPU hours.

Run from the repository root with the project's virtual environment active::

    python benchmarks/network_budget_curve.py --reference learned --reference-hours 3.0 \\
        t1000:3.52:runs/m1 d4:5.75:runs/m-d4 --out docs/network-budget.png

A fourth part names the candidate's series (default ``network``): each series is a line
of its own, so runs of different methods are not joined.

A match whose schedule still has games to play (stopped, or still running) is refused
(exit 1) unless ``--partial`` is given; the first line then says how many of the
scheduled games the table rests on.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from treestrap.play.errors import UnfinishedTournament
from treestrap.play.tournament_store import check_rated, rests_on
from treestrap.rating.elo import MatchScore
from treestrap.rating.results import load_results
from treestrap.rating.sprt import count_results


@dataclass(frozen=True)
class Candidate:
    name: str  # the candidate's player name in its match
    cpu_hours: float
    match_dir: Path
    series: str = "network"  # how it was trained: one line of the plot per series


def parse_candidate(text: str) -> Candidate:
    """``NAME:CPU_HOURS:MATCH_DIR[:SERIES]``."""
    parts = text.split(":", 3)
    if len(parts) not in (3, 4):
        raise argparse.ArgumentTypeError(
            f"expected NAME:CPU_HOURS:MATCH_DIR[:SERIES], got {text!r}"
        )
    name, hours, where = parts[:3]
    series = parts[3] if len(parts) == 4 else "network"
    try:
        cpu_hours = float(hours)
    except ValueError:
        raise argparse.ArgumentTypeError(f"CPU hours must be a number, got {hours!r}") from None
    return Candidate(name, cpu_hours, Path(where), series)


def score_against(candidate: Candidate, reference: str) -> MatchScore:
    """The candidate's wins, draws and losses against ``reference`` in its match."""
    games = load_results(candidate.match_dir)
    return MatchScore(*count_results(games, candidate.name, reference))


def plot(
    rows: list[tuple[Candidate, MatchScore]],
    reference: str,
    ref_hours: float,
    out: Path,
    title: str,
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    for series in dict.fromkeys(c.series for c, _ in rows):
        part = [(c, s) for c, s in rows if c.series == series]
        xs = [c.cpu_hours for c, _ in part]
        elos = [s.elo for _, s in part]
        lows = [s.elo - s.elo_interval()[0] for _, s in part]
        highs = [s.elo_interval()[1] - s.elo for _, s in part]
        ax.errorbar(xs, elos, yerr=[lows, highs], marker="o", capsize=4, label=series)
        for (c, s), x, y in zip(part, xs, elos, strict=True):
            ax.annotate(
                f"{c.name} ({s.games} games)",
                (x, y),
                textcoords="offset points",
                xytext=(6, 6),
                fontsize=8,
            )
    ax.plot(
        [ref_hours],
        [0.0],
        marker="s",
        color="black",
        linestyle="none",
        label=f"{reference} (linear)",
    )
    ax.axhline(0.0, color="grey", linestyle="--", linewidth=1)
    ax.set_xlabel("training CPU hours (everything the weights were trained from)")
    ax.set_ylabel(f"Elo against {reference} (95% interval)")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "candidates",
        nargs="+",
        type=parse_candidate,
        metavar="NAME:CPU_HOURS:MATCH_DIR[:SERIES]",
    )
    parser.add_argument("--reference", default="learned", help="the player all are scored against")
    parser.add_argument(
        "--reference-hours",
        type=float,
        default=3.0,
        help="the reference's training CPU hours (its point at 0 Elo)",
    )
    parser.add_argument("--out", type=Path, help="PNG to draw (none: the table only)")
    parser.add_argument("--title", default="Network Elo against training CPU hours, 10s+0.1s")
    parser.add_argument(
        "--partial",
        action="store_true",
        help="score matches whose schedules still have games to play (default: refuse them)",
    )
    args = parser.parse_args(argv)
    try:
        incomplete = check_rated([c.match_dir for c in args.candidates], args.partial)
    except UnfinishedTournament as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    rows = []
    for c in args.candidates:
        try:
            score = score_against(c, args.reference)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        if score.games == 0:
            print(
                f"error: no games of {c.name} against {args.reference} in {c.match_dir}",
                file=sys.stderr,
            )
            return 2
        rows.append((c, score))
    if incomplete:  # --partial: say first what the table rests on
        print(rests_on(sum(s.games for _, s in rows), incomplete))
    print(f"| candidate | CPU hours | against {args.reference} |")
    print("|---|---|---|")
    for c, s in sorted(rows, key=lambda r: r[0].cpu_hours):
        low, high = s.elo_interval()
        print(
            f"| {c.name} | {c.cpu_hours:.2f} | +{s.wins} ={s.draws} -{s.losses}, "
            f"{s.elo:+.0f} [{low:+.0f}, {high:+.0f}] |"
        )
    if args.out:
        plot(
            sorted(rows, key=lambda r: r[0].cpu_hours),
            args.reference,
            args.reference_hours,
            args.out,
            args.title,
        )
        print(f"plot: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
