"""Ship a training run's final weights as the package's ``learned`` preset.

    python tools/ship_learned.py RUN_DIR --command "treestrap train ..." \
        --note "match: ..." [--commit REV]

writes ``src/treestrap/evaluation/data/learned.npz``: the run's weights with their
provenance in the metadata (the command that reproduces them, games, CPU time, the
commit of the code that trained them, the date, and a free note such as a match
result), which ``treestrap weights show`` prints.
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
from pathlib import Path

from treestrap.evaluation.presets import LEARNED
from treestrap.evaluation.weights import load_weights, save_weights
from treestrap.training.curve import cpu_seconds_by_game

OUT = Path(__file__).resolve().parents[1] / "src/treestrap/evaluation/data/learned.npz"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="training run directory")
    parser.add_argument("--command", required=True, help="the command that made the run")
    parser.add_argument("--note", default="", help="e.g. a match result with its interval")
    parser.add_argument("--commit", default="HEAD", help="commit of the training code")
    args = parser.parse_args()
    model = load_weights(args.run / "weights.npz")
    games = int(model.metadata["games"])
    cpu = cpu_seconds_by_game(args.run)[games]
    commit = subprocess.run(
        ["git", "rev-parse", "--short", args.commit], capture_output=True, text=True, check=True
    ).stdout.strip()
    config = json.loads((args.run / "config.json").read_text())
    model.metadata = {
        "preset": LEARNED,
        "algorithm": config["algorithm"],
        "games": games,
        "cpu_hours": round(cpu / 3600, 2),
        "command": args.command,
        "commit": commit,
        "date": datetime.date.today().isoformat(),
        "init": f"{config['init']} (seed {config['seed']}, scale {config['init_scale']})",
        "step": f"{config.get('optimizer', 'sgd')} {config['step_size']}",
        "note": args.note,
    }
    save_weights(model, OUT)
    print(f"wrote {OUT.name}: {games} games, {cpu / 3600:.2f} CPU hours, commit {commit}")


if __name__ == "__main__":
    main()
