"""``treestrap supervised report``: test accuracy over trials, contingency tables,
accuracy against move number and against epoch, and all runs beside Serban's figures.

Read from the run directories only (``run.json``, ``trial-K/result.json`` and
``metrics.jsonl``): a report never needs the dataset. Unfinished trials are left out and
said so. Standard deviations are over trials (``ddof = 1``; 0 for a single trial).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from treestrap.supervised.errors import SupervisedError
from treestrap.supervised.train import METRICS, RESULT, read_run

CLASS_LABELS = ("white wins", "draw", "black wins")
#: Moves with fewer test positions than this are left off the by-move plot: the few
#: very long games would otherwise end it in noise.
MIN_POSITIONS_PER_MOVE = 10

#: Serban (2014) test accuracies, chapter 6, with where they are in the thesis.
SERBAN_FIGURES: tuple[tuple[str, str], ...] = (
    ("most frequent class (his whole dataset)", "40.95%"),
    ("LogReg bitboard (Table 6.8)", "57.34%"),
    ("LogReg meep (Table 6.9)", "64.48%"),
    ("LogReg bitboard+meep (Table 6.10)", "64.65%"),
    ("MLP 10 hidden (Figures 6.4, 6.9)", "~60-61%"),
    ("MLP 2 hidden layers (Table 6.13)", "57.6-59.8%"),
    ("ConvNet 5x5->3x3->100-200 (Table 6.14, 10 trials each)", "62.1-63.3%"),
    ("mixture of experts (Figure 6.14)", "below LogReg"),
    ("LogReg Stockfish score (Table 6.12)", "67.00%"),
)


def serban_figure(config: dict[str, Any]) -> str:
    """Serban's figure for the same model and features, or ``-`` where he has none."""
    model, features = config.get("model"), config.get("features")
    if model == "logreg":
        return {"bitboard": "57.34%", "meep": "64.48%", "bitboard+meep": "64.65%"}.get(
            str(features), "-"
        )
    if features != "bitboard":
        return "67.00%" if model == "stockfish" else "-"
    if model == "mlp":
        return "~60-61%" if len(config.get("hidden", [])) == 1 else "57.6-59.8%"
    if model == "convnet":
        return "62.1-63.3%" if len(config.get("kernels", [])) == 2 else "-"
    if model == "moe":
        return "below LogReg"
    return "-"


@dataclass
class RunSummary:
    name: str
    record: dict[str, Any]
    results: list[dict[str, Any]] = field(default_factory=list)
    histories: list[list[dict[str, Any]]] = field(default_factory=list)
    unfinished: list[str] = field(default_factory=list)

    @property
    def accuracies(self) -> np.ndarray:
        return np.array([r["test_accuracy"] for r in self.results], dtype=np.float64)

    @property
    def mean(self) -> float:
        return float(self.accuracies.mean())

    @property
    def sd(self) -> float:
        a = self.accuracies
        return float(a.std(ddof=1)) if len(a) > 1 else 0.0

    def line(self) -> str:
        n = len(self.results)
        trials = "trial" if n == 1 else "trials"
        accuracy = f"{100 * self.mean:.2f}% +- {100 * self.sd:.2f}"
        return f"{self.name} test accuracy {accuracy} ({n} {trials})"

    def confusion(self) -> np.ndarray:
        """The contingency table summed over trials: rows true, columns predicted."""
        return np.sum([np.array(r["confusion"], dtype=np.int64) for r in self.results], axis=0)

    def baseline(self) -> float:
        """Accuracy of always predicting the most frequent class of this run's test split."""
        counts = np.array(self.results[0]["class_counts"], dtype=np.float64)
        return float(counts.max() / counts.sum()) if counts.sum() else 0.0


def _read_history(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def load_run(run_dir: str | Path) -> RunSummary:
    run_dir = Path(run_dir)
    record = read_run(run_dir)
    summary = RunSummary(str(record.get("name") or run_dir.name), record)
    for trial in sorted(run_dir.glob("trial-*"), key=lambda p: (len(p.name), p.name)):
        try:
            summary.histories.append(_read_history(trial / METRICS))
            result = json.loads((trial / RESULT).read_text())
        except FileNotFoundError:
            summary.unfinished.append(trial.name)
            continue
        except (OSError, ValueError) as exc:
            raise SupervisedError(f"{trial}: unreadable trial ({exc})") from None
        summary.results.append(result)
    return summary


def contingency_text(confusion: np.ndarray) -> str:
    width = max(10, len(str(int(confusion.max()))) + 2)
    head = "true \\ predicted".ljust(18) + "".join(c.rjust(width + 2) for c in CLASS_LABELS)
    rows = [head]
    for label, row in zip(CLASS_LABELS, confusion, strict=True):
        rows.append(label.ljust(18) + "".join(str(int(v)).rjust(width + 2) for v in row))
    return "\n".join(rows)


def comparison_table(runs: list[RunSummary]) -> str:
    """All runs with Serban's figure for the same model, then his figures and our baselines."""
    rows = [("run", "model", "features", "test accuracy", "trials", "Serban")]
    for run in runs:
        config = run.record.get("config", {})
        rows.append(
            (
                run.name,
                str(run.record.get("model", config.get("model"))),
                str(config.get("features"))
                + ("" if config.get("rollout", True) else " (no rollout)"),
                f"{100 * run.mean:.2f}% +- {100 * run.sd:.2f}",
                str(len(run.results)),
                serban_figure(config),
            )
        )
    seen: set[tuple[str, bool]] = set()
    for run in runs:
        key = (
            str(run.record.get("dataset", {}).get("manifest_hash")),
            bool(run.record.get("config", {}).get("rollout", True)),
        )
        if key in seen:
            continue
        seen.add(key)
        rows.append(
            (
                f"most frequent class of our test split ({run.name})",
                "-",
                "-",
                f"{100 * run.baseline():.2f}%",
                "-",
                "40.95%",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines += ["", "Serban (2014), chapter 6:"]
    lines += [f"  {name}: {figure}" for name, figure in SERBAN_FIGURES]
    return "\n".join(lines)


def accuracy_by_move(run: RunSummary) -> tuple[np.ndarray, np.ndarray]:
    """Move numbers and the test accuracy at each (all trials pooled); move ``m`` holds
    plies ``2m - 2`` and ``2m - 1`` (ply 0 is the game's first position). Moves with
    fewer than :data:`MIN_POSITIONS_PER_MOVE` positions are left out."""
    length = max(len(r["by_ply"]["total"]) for r in run.results)
    correct = np.zeros(length)
    total = np.zeros(length)
    for r in run.results:
        c, t = r["by_ply"]["correct"], r["by_ply"]["total"]
        correct[: len(c)] += c
        total[: len(t)] += t
    moves = (length + 1) // 2
    pad = 2 * moves - length
    correct = np.pad(correct, (0, pad)).reshape(moves, 2).sum(1)
    total = np.pad(total, (0, pad)).reshape(moves, 2).sum(1)
    keep = total >= MIN_POSITIONS_PER_MOVE
    return np.arange(1, moves + 1)[keep], correct[keep] / total[keep]


def plot(runs: list[RunSummary], out: Path) -> list[Path]:
    """``accuracy-by-move.png`` and ``accuracy-by-epoch.png`` (validation mean +- sd over
    trials, training accuracy dashed), one line per run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    written = []
    fig, ax = plt.subplots(figsize=(8, 5))
    for run in runs:
        moves, accuracy = accuracy_by_move(run)
        ax.plot(moves, 100 * accuracy, label=run.name)
    written.append(
        _save(
            fig,
            ax,
            "move number",
            "test accuracy (%)",
            "Accuracy against move number (all trials pooled)",
            out / "accuracy-by-move.png",
        )
    )

    fig, ax = plt.subplots(figsize=(8, 5))
    for run in runs:
        histories = [h for h in run.histories if h]
        if not histories:
            continue
        epochs = max(len(h) for h in histories)
        val = np.full((len(histories), epochs), np.nan)
        train = np.full((len(histories), epochs), np.nan)
        for i, h in enumerate(histories):
            val[i, : len(h)] = [r["validation_accuracy"] for r in h]
            train[i, : len(h)] = [r["train_accuracy"] for r in h]
        x = np.arange(1, epochs + 1)
        mean = np.nanmean(val, axis=0)
        sd = np.nan_to_num(np.nanstd(val, axis=0))
        (line,) = ax.plot(x, 100 * mean, marker="o", label=f"{run.name} validation")
        ax.fill_between(x, 100 * (mean - sd), 100 * (mean + sd), color=line.get_color(), alpha=0.2)
        ax.plot(
            x,
            100 * np.nanmean(train, axis=0),
            ls="--",
            color=line.get_color(),
            label=f"{run.name} training",
        )
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    written.append(
        _save(
            fig,
            ax,
            "epoch",
            "accuracy (%)",
            "Accuracy against epoch (mean +- sd over trials)",
            out / "accuracy-by-epoch.png",
        )
    )
    return written


def _save(fig: Any, ax: Any, xlabel: str, ylabel: str, title: str, path: Path) -> Path:
    """Label, grid and legend a plot, write it to ``path`` and close it."""
    import matplotlib.pyplot as plt

    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def report(run_dirs: list[str | Path], out: str | Path) -> tuple[str, list[Path]]:
    """The report's text (also written to ``out/report.txt``) and the files written."""
    runs = [load_run(d) for d in run_dirs]
    finished = [r for r in runs if r.results]
    if not finished:
        raise SupervisedError("no finished trial in " + ", ".join(map(str, run_dirs)))
    parts = []
    for run in runs:
        if not run.results:
            parts.append(f"{run.name}: no finished trial ({', '.join(run.unfinished) or 'none'})")
            continue
        text = [run.line()]
        if run.unfinished:
            text.append(f"  (unfinished, left out: {', '.join(run.unfinished)})")
        text.append(contingency_text(run.confusion()))
        parts.append("\n".join(text))
    parts.append(comparison_table(finished))
    text = "\n\n".join(parts) + "\n"
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.txt").write_text(text)
    written = [out / "report.txt", *plot(finished, out)]
    return text, written
