"""Serban's outcome-prediction table on one dataset: every model of issue 13 trained over
several trials, then ``treestrap supervised report`` over all runs (test accuracy with
its spread, contingency tables, plots, and Serban's figures beside ours).

    treestrap dataset build reference/games/twic0920.pgn --stockfish-score depth=8 \
        --out data/twic
    python benchmarks/supervised_table.py data/twic --out runs/supervised-twic [--trials 3]

``twic0920.pgn`` is The Week in Chess issue 920, downloaded first (``reference/README.md``
says where).

Runs that finished are kept; an interrupted benchmark continues with the same command
(each run resumes from its last finished epoch). The printed ``positions/s`` is the
training speed of each run's epochs, read from its metrics.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

#: Shared settings (Serban section 6.8: mini-batches of 100, learning rates from
#: 10^-1..10^-3, momentum, mean subtraction; early stopping on the validation split).
COMMON = [
    "--batch-size",
    "100",
    "--lr",
    "0.01",
    "--momentum",
    "0.9",
    "--mean-subtract",
]

#: name -> the model's options: the rows of the issue's report table.
MODELS = {
    "logreg-bitboard": ["--model", "logreg", "--features", "bitboard"],
    "logreg-meep": ["--model", "logreg", "--features", "meep"],
    "mlp-10": ["--model", "mlp", "--hidden", "10", "--features", "bitboard"],
    "mlp-20": ["--model", "mlp", "--hidden", "20", "--features", "bitboard"],
    "convnet-small": [
        "--model",
        "convnet",
        "--conv",
        "5x5,3x3",
        "--maps",
        "5,10",
        "--fc",
        "100",
        "--features",
        "bitboard",
    ],
    "moe-2": ["--model", "moe", "--experts", "2", "--features", "bitboard"],
    "stockfish-score": ["--model", "stockfish", "--features", "stockfish"],
}


def speed(run: Path) -> float:
    """Median training positions per second over the run's epochs."""
    rates = []
    for metrics in run.glob("trial-*/metrics.jsonl"):
        for line in metrics.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if "positions_per_second" in row:
                rates.append(float(row["positions_per_second"]))
    return statistics.median(rates) if rates else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", help="dataset directory (treestrap dataset build)")
    parser.add_argument("--out", required=True, help="directory for the runs and the report")
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--patience", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--models", default=",".join(MODELS), help=f"comma-separated subset of {list(MODELS)}"
    )
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    names = [n for n in args.models.split(",") if n]
    unknown = sorted(set(names) - set(MODELS))
    if unknown:
        print(f"error: unknown model {', '.join(unknown)}", file=sys.stderr)
        return 2
    runs = []
    for name in names:
        run = out / name
        command = [
            "treestrap",
            "supervised",
            "train",
            "--data",
            args.data,
            "--out",
            str(run),
            *MODELS[name],
            *COMMON,
            "--epochs",
            str(args.epochs),
            "--patience",
            str(args.patience),
            "--trials",
            str(args.trials),
            "--threads",
            str(args.threads),
        ]
        if (run / "run.json").exists():
            command.append("--resume")
        started = time.monotonic()
        done = subprocess.run(command, check=False)
        if done.returncode != 0:
            print(f"error: {name} failed (exit {done.returncode})", file=sys.stderr)
            return done.returncode
        print(
            f"{name}: {time.monotonic() - started:.0f} s this call, "
            f"{speed(run):,.0f} training positions/s",
            flush=True,
        )
        runs.append(str(run))
    report = subprocess.run(
        ["treestrap", "supervised", "report", *runs, "--out", str(out / "report")], check=False
    )
    return report.returncode


if __name__ == "__main__":
    sys.exit(main())
