"""Ship a training run's final weights as the package's ``learned`` preset.

    python tools/ship_learned.py RUN_DIR --command "treestrap train ..." \
        --note "match: ..." [--commit REV] [--checkpoint GAMES] [--after FIRST_RUN]

writes ``src/treestrap/evaluation/data/learned.npz``: the run's weights with their
provenance in the metadata (the command that reproduces them, games, CPU time, the
commit of the code that trained them, the date, and a free note such as a match
result), which ``treestrap weights show`` prints. ``--after FIRST_RUN`` names the run
whose final weights RUN_DIR started from (``--init``): games and CPU time are then the
two runs' sums, and the start is the first run's.
"""

from __future__ import annotations

import argparse
import datetime
import subprocess
from pathlib import Path

from treestrap.evaluation.presets import LEARNED
from treestrap.evaluation.weight_files import load_weights
from treestrap.evaluation.weights import save_weights
from treestrap.training.curve import cpu_seconds_by_game
from treestrap.training.run import saved_config

OUT = Path(__file__).resolve().parents[1] / "src/treestrap/evaluation/data/learned.npz"


def opponent_name(run: Path, opponent: str) -> str:
    """The training opponent without a machine's path: a weight file by its preset name."""
    if not opponent.endswith(".npz"):
        return opponent
    for base in (Path.cwd(), run.parent.parent):
        path = base / opponent
        if path.exists():
            preset = load_weights(path).metadata.get("preset")
            return f"{preset} preset" if preset else "a weight file"
    return "a weight file"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="training run directory")
    parser.add_argument("--command", required=True, help="the command that made the run")
    parser.add_argument("--note", default="", help="e.g. a match result with its interval")
    parser.add_argument("--commit", default="HEAD", help="commit of the training code")
    parser.add_argument(
        "--checkpoint", type=int, metavar="GAMES", help="ship this checkpoint, not the last"
    )
    parser.add_argument(
        "--after", type=Path, metavar="FIRST_RUN", help="the run this one continued (--init)"
    )
    args = parser.parse_args()
    source = (
        args.run / "checkpoints" / f"game-{args.checkpoint:06d}.npz"
        if args.checkpoint is not None
        else args.run / "weights.npz"
    )
    model = load_weights(source)
    games = int(model.metadata["games"])
    cpu = cpu_seconds_by_game(args.run)[games]
    config = saved_config(args.run, 0)
    start, opponent = config, opponent_name(args.run, config.opponent)
    if args.after is not None:  # a second stage: count the first one in
        start = saved_config(args.after, 0)
        first_games = int(load_weights(args.after / "weights.npz").metadata["games"])
        cpu += cpu_seconds_by_game(args.after)[first_games]
        games += first_games
        opponent = f"self for {first_games} games, then {opponent}"
    commit = subprocess.run(
        ["git", "rev-parse", "--short", args.commit], capture_output=True, text=True, check=True
    ).stdout.strip()
    model.metadata = {
        "preset": LEARNED,
        "algorithm": config.algorithm,
        "games": games,
        "cpu_hours": round(cpu / 3600, 2),
        "command": args.command,
        "commit": commit,
        "date": datetime.date.today().isoformat(),
        "init": f"{start.init} (seed {start.seed}, scale {start.init_scale})",
        "step": f"{start.optimizer} {start.step_size}"
        + (f", decay {start.step_decay:g} games" if start.step_decay else ""),
        "node_values": f"{config.node_value}, target clip {config.target_clip:g}, "
        f"frozen: {', '.join(config.freeze) or 'none'}",
        "opponent": opponent,
        "note": args.note,
    }
    save_weights(model, OUT)
    print(f"wrote {OUT.name}: {games} games, {cpu / 3600:.2f} CPU hours, commit {commit}")


if __name__ == "__main__":
    main()
