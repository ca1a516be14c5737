"""The learning curve of one n-tuple run on Connect Four: the `ntuple` budget's round 0
(TD(lambda) self-play from empty tables, the recipe behind the shipped `ntuple` player,
which averages four such runs), its tables measured as it learns.

Every ``--segment`` seconds of training the run's tables are saved and measured on the
1000 solved reference positions by ``treestrap measure --game connect4``: the share of
best moves at ``--depth`` plies and the share of won or lost positions whose static value
has the right sign, with 95% Wilson intervals, against the CPU hours the run has spent.
The shipped preset is measured the same way, as the curve's reference. Each point is
kept in ``OUT/curve.jsonl`` and the run resumes, so a second call goes on where the
first stopped; ``OUT/curve.png`` is the plot.

    python benchmarks/connect4_ntuple_curve.py --out runs/c4-curve --segment 90
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from treestrap.bootstrap.connect4_budgets import CONNECT4_BUDGETS
from treestrap.bootstrap.connect4_provider import connect4_round0_config
from treestrap.cli import main as treestrap
from treestrap.training.connect4_ntuple_run import WEIGHTS_FILE, saved_games, train_ntuple

REFERENCE = Path(__file__).resolve().parents[1] / "reference/connect4/solved-1000.txt"


def measure(player: str, depth: int, out: Path) -> dict[str, Any]:
    """The best-move and static-sign shares of ``player`` at ``depth`` (kept in ``out``)."""
    if not (out / "measure.json").exists():
        argv = ["measure", "--game", "connect4", f"{player}:depth={depth}", "--games", "0"]
        argv += ["--no-references", "--positions", str(REFERENCE), "--out", str(out)]
        if treestrap([*argv, "--quiet"]) != 0:
            sys.exit(f"measuring {player} failed")
    measured = json.loads((out / "measure.json").read_text())["players"][0]
    return {key: measured[key] for key in ("best_move", "keeps_result", "static_sign")}


def points(out: Path) -> list[dict[str, Any]]:
    path = out / "curve.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def learn(out: Path, seed: int, segment: float, depth: int) -> None:
    """Train in segments, measuring the tables after each, until the budget's games."""
    settings = connect4_round0_config(CONNECT4_BUDGETS["ntuple"], seed)
    run = out / "train"
    while True:
        resume = (run / WEIGHTS_FILE).exists()
        done = saved_games(run) if resume else 0
        if done >= settings.games and any(p["games"] == done for p in points(out)):
            return
        limit = 0.0 if not resume else segment  # the empty tables are the first point
        state = train_ntuple(run, None if resume else settings, resume=resume, time_limit=limit)
        if any(p["games"] == state.games for p in points(out)):
            continue
        tables = out / "points" / f"games-{state.games}.npz"
        tables.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(run / WEIGHTS_FILE, tables)
        shares = measure(str(tables), depth, out / "points" / f"games-{state.games}")
        line = {"games": state.games, "cpu_hours": state.cpu_seconds / 3600, **shares}
        with (out / "curve.jsonl").open("a") as fh:
            fh.write(json.dumps(line) + "\n")
        best = shares["best_move"]
        print(
            f"{state.games:>9} games  {line['cpu_hours']:.3f} CPU h  best move "
            f"{best['share']:.1%} [{best['low']:.1%}, {best['high']:.1%}]",
            flush=True,
        )


def plot(out: Path, depth: int, reference: dict[str, Any]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curve = sorted(points(out), key=lambda p: p["games"])
    hours = [p["cpu_hours"] for p in curve]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for key, label, colour in (
        ("best_move", f"best move at depth {depth}", "tab:blue"),
        ("static_sign", "static value's sign", "tab:green"),
    ):
        shares = [100 * p[key]["share"] for p in curve]
        low = [s - 100 * p[key]["low"] for s, p in zip(shares, curve, strict=True)]
        high = [100 * p[key]["high"] - s for s, p in zip(shares, curve, strict=True)]
        ax.errorbar(hours, shares, yerr=[low, high], marker="o", capsize=3, color=colour)
        ax.plot([], [], marker="o", color=colour, label=f"one run: {label}")
        shipped = 100 * reference[key]["share"]
        ax.axhline(shipped, color=colour, linestyle="--", alpha=0.6)
        ax.plot([], [], color=colour, linestyle="--", label=f"shipped mean of four: {label}")
    ax.axhline(95, color="tab:red", linestyle=":", label="target: 95% best moves at depth 4")
    ax.set_xlabel("CPU hours of TD(lambda) self-play from empty tables")
    ax.set_ylabel("share of the 1000 solved positions (%)")
    ax.set_title("Connect Four n-tuple tables as they learn")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(out / "curve.png", dpi=100)
    plt.close(fig)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0, help="the tuples and the games")
    parser.add_argument("--segment", type=float, default=90.0, help="seconds between points")
    parser.add_argument("--depth", type=int, default=4, help="the measure's search depth")
    args = parser.parse_args()
    if not REFERENCE.is_file():
        sys.exit(f"no reference positions at {REFERENCE}")
    args.out.mkdir(parents=True, exist_ok=True)
    learn(args.out, args.seed, args.segment, args.depth)
    reference = measure("ntuple", args.depth, args.out / "shipped")
    plot(args.out, args.depth, reference)
    print("| games | CPU hours | best move | static sign |")
    print("|---|---|---|---|")
    for p in sorted(points(args.out), key=lambda p: p["games"]):
        b, s = p["best_move"], p["static_sign"]
        print(
            f"| {p['games']:,} | {p['cpu_hours']:.3f} | {b['share']:.1%} "
            f"[{b['low']:.1%}, {b['high']:.1%}] | {s['share']:.1%} |"
        )
    b = reference["best_move"]
    print(
        f"| shipped `ntuple` | | {b['share']:.1%} [{b['low']:.1%}, {b['high']:.1%}] | "
        f"{reference['static_sign']['share']:.1%} |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
