"""Ship a training run's final weights as the package's ``learned`` preset (or, with
``--preset learned-net``, a network run's as ``learned-net``).

    python tools/ship_learned.py RUN_DIR --command "treestrap train ..." \
        --note "match: ..." [--commit REV] [--checkpoint GAMES] [--after FIRST_RUN]

writes ``src/treestrap/evaluation/data/learned.npz`` (``learned-net.npz``): the weights with their
provenance in the metadata (the command that reproduces them, games, CPU time, the
commit of the code that trained them, the date, and a free note such as a match
result), which ``treestrap weights show`` prints. ``--after FIRST_RUN`` names the run
whose final weights RUN_DIR started from (``--init``): games and CPU time are then the
two runs' sums, and the start is the first run's. A hybrid network's metadata adds its
linear part's provenance (the ``learned`` preset's games and CPU hours count in).
"""

from __future__ import annotations

import argparse
import datetime
import subprocess
from pathlib import Path

from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.preset_names import LEARNED, SHIPPED_PRESETS
from treestrap.evaluation.presets import SHIPPED_FILES, preset_model
from treestrap.evaluation.weight_files import load_weights
from treestrap.training.curve import cpu_seconds_by_game
from treestrap.training.run import saved_config

DATA = Path(__file__).resolve().parents[1] / "src/treestrap/evaluation/data"


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
    parser.add_argument("--preset", choices=SHIPPED_PRESETS, default=LEARNED)
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
    metadata = {
        "preset": args.preset,
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
    if isinstance(model, NetworkModel):
        metadata["network"] = (
            f"{config.model}, {config.objective}, replay {config.replay_size}, batch "
            f"{config.batch_size}, {config.replay_steps} steps a search, momentum {config.momentum}"
        )
        metadata["step"] = f"sgd {config.step_size or 0.01}"
        metadata["node_values"] = config.node_value  # (--freeze is for linear weights)
        if config.linear_part is not None:
            metadata["init"] = f"random, output layer zero (seed {start.seed})"
        if config.linear_part is not None:
            base = preset_model(config.linear_part).metadata
            metadata["linear_part"] = (
                f"{config.linear_part}: {base.get('games')} games, {base.get('cpu_hours')} "
                f"CPU hours ({base.get('command', 'fixed weights')})"
            )
            metadata["cpu_hours_with_linear_part"] = round(
                cpu / 3600 + float(base.get("cpu_hours", 0.0)), 2
            )
    model.metadata = metadata
    out = DATA / SHIPPED_FILES[args.preset]
    model.save(out)
    print(f"wrote {out.name}: {games} games, {cpu / 3600:.2f} CPU hours, commit {commit}")


if __name__ == "__main__":
    main()
