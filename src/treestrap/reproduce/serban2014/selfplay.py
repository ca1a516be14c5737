"""Stage 3 of a Serban (2014) reproduction: Algorithm 7 self-play from each supervised
start (the RL LogReg and the RL MLPs), several runs at a time."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from treestrap.reproduce.serban2014.budgets import (
    HIDDEN,
    LOGREG_MOMENTUM,
    LOGREG_STEP,
    MLP_MOMENTUM,
    MLP_STEP,
    RL_LOGREG,
    Budget,
)
from treestrap.reproduce.stages import read_json
from treestrap.reproduce.workers import lines_logged, spawn_pool, train_run, wait_all
from treestrap.training.config import TrainConfig, network_config


def selfplay_runs(out: Path) -> dict[str, tuple[str, Path]]:
    """Self-play runs: label -> (model, start file), from ``starts.json``."""
    record = read_json(out / "starts" / "starts.json")
    runs = {RL_LOGREG: ("logreg", out / "starts" / "sl-logreg.npz")}
    for letter, name in record["letters"].items():
        runs[f"MLP-{letter}"] = (f"mlp:{HIDDEN}", out / "starts" / f"{name}.npz")
    return runs


def run_dir(out: Path, label: str) -> Path:
    return out / "selfplay" / label.lower()


def selfplay_config(
    model: str, init: Path, budget: Budget, seed: int, openings: str | None
) -> TrainConfig:
    """Algorithm 7 over full-tree minimax trees with the soft cross-entropy (Serban's
    best objective for LogReg), from a supervised start: a network run's defaults."""
    logreg = model == "logreg"
    return network_config(
        model,
        init=str(init),
        seed=seed,
        games=budget.games,
        depth=None,  # the tree's node budget decides, as in Serban's searches
        minimax_nodes=budget.minimax_nodes,
        minimax_qnodes=budget.minimax_qnodes,
        max_plies=budget.train_plies,
        checkpoint_every=budget.checkpoint_every,
        openings=openings,
        replay_size=budget.replay_size,
        tree_nodes=budget.tree_nodes,
        batch_size=budget.batch_size,
        step_size=LOGREG_STEP if logreg else MLP_STEP,
        momentum=LOGREG_MOMENTUM if logreg else MLP_MOMENTUM,
    )


def games_trained(run: Path) -> int:
    """Games committed to a run (its weights are the commit point); 0 before any."""
    from treestrap.evaluation.weight_files import load_weights

    weights = run / "weights.npz"
    if not weights.exists():
        return 0
    return int(load_weights(weights).metadata.get("games", 0))


def train_selfplay(
    out: Path,
    budget: Budget,
    seed: int,
    openings: str | None,
    workers: int,
    progress: bool,
    tensorboard: Path | None = None,
) -> str | None:
    """Stage 3: the RL LogReg and RL MLP runs, ``workers`` at a time; with
    ``tensorboard``, each run logs its games in ``tensorboard/RUN`` (its directory's
    name: rl-logreg, mlp-a, ...)."""
    from tqdm import tqdm

    runs = selfplay_runs(out)
    todo = {
        label: spec
        for label, spec in runs.items()
        if games_trained(run_dir(out, label)) < budget.games
    }
    if not todo:
        return None
    total = budget.games * len(runs)
    bar = tqdm(total=total, unit="game", desc="self-play", disable=not progress)
    dirs = [run_dir(out, label) for label in runs]

    def tick() -> None:
        bar.n = min(total, sum(min(budget.games, lines_logged(d / "metrics.jsonl")) for d in dirs))
        bar.refresh()

    try:
        with spawn_pool(workers) as pool:
            jobs = [
                pool.submit(
                    train_run,
                    with_tensorboard(
                        selfplay_config(model, init, budget, seed, openings), tensorboard, label
                    ),
                    run_dir(out, label),
                )
                for label, (model, init) in todo.items()
            ]
            wait_all(jobs, tick)
    finally:
        bar.close()
    draws = sum(_draws(run_dir(out, label)) for label in runs)
    return (
        f"self-play: {len(runs)} runs x {budget.games} games "
        f"({100 * draws / max(1, total):.0f}% drawn)"
    )


def with_tensorboard(config: TrainConfig, tensorboard: Path | None, label: str) -> TrainConfig:
    """``config`` logging to ``tensorboard``'s folder of run ``label``, if given."""
    if tensorboard is None:
        return config
    return dataclasses.replace(config, tensorboard=str(tensorboard / label.lower()))


def _draws(run: Path) -> int:
    from treestrap.evaluation.weight_files import load_weights

    return int(load_weights(run / "weights.npz").metadata.get("run_state", {}).get("draws", 0))
