"""What a bootstrap run shows of itself: a table of its rounds, a Markdown report, the
curve of the summed gate estimates against CPU hours, and TensorBoard scalars, all drawn
from ``RUN/rounds.jsonl`` (so they are redrawn whole after every round, and on resume).
The measured curve is :mod:`treestrap.bootstrap.measured_curve`.

The run's own figure against round 0 (``elo_vs_round0`` in its files, a name kept for
the files already written) is a sum of gate estimates, not a measurement: each gate is
an SPRT stopped at H1, which overstates the gain, so the sum overstates the chain's.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

REPORT_FILE = "report.md"
CURVE_FILE = "curve.png"
TENSORBOARD_DIR = "tensorboard"

#: The bias of the summed gate estimates, in the words every label of them uses.
GATE_SUM_BIAS = "an SPRT stopped at H1 overstates the gain"

HEADER = (
    "| round | model | games | positions | held-out loss | gate (Elo, 95%) | accepted "
    "| sum of gate estimates vs round 0 | nodes/s | CPU hours |"
)


def _row(r: dict[str, Any]) -> str:
    if r["round"] == 0:
        gate, loss = "-", "-"
    else:
        gate = f"{r['gate_elo']:+.0f} [{r['gate_lower']:+.0f}, {r['gate_upper']:+.0f}]"
        loss = f"{r['held_out_loss']:.4f}"
        if r.get("best_held_out_loss") is not None:
            loss += f" (best {r['best_held_out_loss']:.4f})"
    return (
        f"| {r['round']} | {r['model']} | {r['games']} | {r['positions']} | {loss} | {gate} "
        f"| {'yes' if r['accepted'] else 'no'} | {_summed(r)} | {r.get('nps', 0)} "
        f"| {r['cpu_seconds'] / 3600:.2f} |"
    )


def _summed(r: dict[str, Any]) -> str:
    margin = r.get("elo_margin", 0.0)
    return f"{r['elo_vs_round0']:+.0f}" + (f" +-{margin:.0f}" if margin else "")


def rounds_table(records: list[dict[str, Any]]) -> str:
    """The rounds as a Markdown table."""
    rule = "|" + "---|" * (HEADER.count("|") - 1)
    return "\n".join([HEADER, rule, *(_row(r) for r in records)])


def write_report(run: Path, records: list[dict[str, Any]], settings: dict[str, Any]) -> None:
    """``RUN/report.md``: the command, the budget, the rounds and each gate's test."""
    lines = [
        f"# Bootstrap run {run.name}",
        "",
        f"Command: `{settings['command']}`; budget `{settings['budget']['name']}`, seed "
        f"{settings['seed']}.",
        "",
        "The sum of gate estimates vs round 0 adds up the Elo estimates of the accepted "
        f"rounds' gates (its 95% margin combines theirs as independent errors); {GATE_SUM_BIAS}, "
        "so the sum overstates the chain's: `treestrap curve --bootstrap RUN --out DIR` "
        "measures it in one tournament. The gate column is the candidate against "
        "the best player before it. The held-out loss is the candidate's on the round's last "
        "chunk of games, which its fit does not learn from, and in brackets the best "
        "network's on the same games: from round to round only their difference compares.",
        "",
        rounds_table(records),
        "",
    ]
    if settings.get("start"):
        start = settings["start"]
        record = start["bootstrap"]
        lines.append(
            f"- round 0: started from `{start['from']}` (sha256 {start['sha256'][:16]}), round "
            f"{record.get('round')} of `{record.get('command')}`: its CPU hours and its sum "
            "of gate estimates against that run's round 0 are where this run's begin"
        )
    for change in settings.get("changes", []):
        values = ", ".join(f"{k}={json.dumps(v)}" for k, v in change["set"].items())
        lines.append(f"- from round {change['from_round']}: {values} (`{change['command']}`)")
    lines += [f"- round {r['round']}: {r['sprt']}" for r in records if r["round"] > 0]
    (run / REPORT_FILE).write_text("\n".join(lines) + "\n")


def plot_curve(run: Path, records: list[dict[str, Any]]) -> None:
    """``RUN/curve.png``: the sum of gate estimates against round 0 over the CPU hours
    spent, accepted rounds filled, rejected ones hollow (not a measurement: the measured
    curve is :func:`measure_chain`'s)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    hours = [r["cpu_seconds"] / 3600 for r in records]
    best = [r["elo_vs_round0"] for r in records]
    ax.step(hours, best, where="post", color="tab:blue", label="best player (sum of gates)")
    for r, x in zip(records, hours, strict=True):
        if r["round"] == 0:  # round 0's player (a run started --from a file: its figures)
            ax.plot(x, best[0], marker="s", color="tab:blue")
            ax.annotate("0", (x, best[0]), textcoords="offset points", xytext=(4, 4))
            continue
        y = best[r["round"] - 1] + r["gate_elo"] if not r["accepted"] else r["elo_vs_round0"]
        ax.errorbar(
            x,
            y,
            yerr=[[r["gate_elo"] - r["gate_lower"]], [r["gate_upper"] - r["gate_elo"]]],
            marker="o",
            capsize=3,
            color="tab:blue",
            markerfacecolor="tab:blue" if r["accepted"] else "white",
        )
        ax.annotate(str(r["round"]), (x, y), textcoords="offset points", xytext=(4, 4))
    ax.set_xlabel("CPU hours from random weights")
    ax.set_ylabel("sum of gate estimates against round 0 (Elo)")
    ax.set_title(f"treestrap bootstrap {run.name}: not measured, {GATE_SUM_BIAS}", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(run / CURVE_FILE, dpi=100)
    plt.close(fig)


def log_scalars(run: Path, records: list[dict[str, Any]]) -> bool:
    """TensorBoard scalars of every round (step: the round), rewritten whole; False
    when the tensorboard package is not installed."""
    if importlib.util.find_spec("tensorboard") is None:
        return False
    from treestrap.training.tensorboard_log import EventLog

    events = EventLog(run / TENSORBOARD_DIR)
    try:
        events.restart()
        for r in records:
            scalars = {
                "bootstrap/elo_vs_round0": float(r["elo_vs_round0"]),
                "bootstrap/cpu_hours": r["cpu_seconds"] / 3600,
                "bootstrap/positions": float(r["positions"]),
                "bootstrap/nodes_per_second": float(r.get("nps", 0)),
            }
            if r["round"] > 0:
                scalars["bootstrap/held_out_loss"] = float(r["held_out_loss"])
                if r.get("best_held_out_loss") is not None:
                    gain = r["best_held_out_loss"] - r["held_out_loss"]
                    scalars["bootstrap/held_out_gain_over_best"] = float(gain)
                scalars["bootstrap/gate_elo"] = float(r["gate_elo"])
            events.write(r["round"], scalars)
    finally:
        events.close()
    return True
