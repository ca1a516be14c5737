"""Stages 1 and 2 of a Serban (2014) reproduction: the game collection as labelled
positions, and the supervised starting points learned from it (the SL LogReg and the
MLP candidates named A, B, C by falling test accuracy)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from treestrap.reproduce.serban2014.budgets import HIDDEN, LETTERS, Budget
from treestrap.reproduce.stages import read_json, write_json
from treestrap.reproduce.workers import lines_logged, spawn_pool, wait_all


@dataclass(frozen=True)
class Start:
    """A supervised starting point: its directory name, model and training data."""

    name: str  # "sl-logreg", "mlp-1", ...
    model: str  # "logreg" or "mlp"
    fraction: float  # of the training games
    epochs: int

    def describe(self) -> str:
        games = "all" if self.fraction >= 1 else f"{100 * self.fraction:g}% of the"
        return f"{games} training games, at most {self.epochs} epoch(s)"


def starts_of(budget: Budget) -> list[Start]:
    """The SL LogReg and the MLP candidates of ``budget``."""
    sl = Start("sl-logreg", "logreg", 1.0, budget.epochs)
    mlps = [Start(f"mlp-{k}", "mlp", f, e) for k, (f, e) in enumerate(budget.candidates, 1)]
    return [sl, *mlps]


def build_data(out: Path, pgn: str | None, seed: int, workers: int, progress: bool) -> str | None:
    """Stage 1: the dataset (a resumed build goes on by chunks). Returns the stage's
    summary line, or None when it was finished before."""
    from treestrap.supervised.dataset.build import build_dataset
    from treestrap.supervised.dataset.errors import DatasetError
    from treestrap.supervised.dataset.options import BuildOptions
    from treestrap.supervised.dataset.store import BUILD_STATE, MANIFEST

    root = out / "dataset"
    if (root / MANIFEST).exists():
        return None
    if pgn is None:
        raise ValueError(f"{root} is not built yet: give --pgn PGN")
    try:
        report = build_dataset(
            [pgn],
            root,
            BuildOptions(seed=seed),
            jobs=workers,
            resume=(root / BUILD_STATE).exists(),
            progress=progress,
        )
    except DatasetError as exc:
        raise ValueError(str(exc)) from None
    games, splits = report.manifest["games"], report.manifest["splits"]
    counts = ", ".join(f"{splits[s]['positions']:,} {s}" for s in ("train", "validation", "test"))
    return f"dataset: {games['kept']:,} of {games['read']:,} games, positions {counts}"


def _subset_games(data: Any, fraction: float, seed: int) -> Any:
    """``data`` with the training split cut to ``fraction`` of its games (drawn from
    the seed), validation and test as they are."""
    if fraction >= 1.0:
        return data
    train = data.train
    games = np.unique(train.game_id)
    count = max(1, round(fraction * len(games)))
    chosen = np.random.default_rng([seed, 2014]).permutation(games)[:count]
    return dataclasses.replace(data, train=train.subset(np.isin(train.game_id, chosen)))


def supervised_config(start: Start, seed: int) -> Any:
    """The settings of the twic table in docs/supervised.md: batch 100, step 0.01, momentum 0.9,
    mean subtraction, early stopping after 2 epochs without a better validation."""
    from treestrap.supervised.train import TrainConfig as SupervisedConfig

    return SupervisedConfig(
        model=start.model,
        features="bitboard",
        hidden=(HIDDEN,),
        batch_size=100,
        lr=0.01,
        momentum=0.9,
        mean_subtract=True,
        epochs=start.epochs,
        patience=2,
        trials=1,
        seed=seed,
    )


def _make_start(start: Start, out: Path, seed: int) -> dict[str, Any]:
    """Worker: train (or finish training) one starting point and write its network
    file; returns its ``result.json``."""
    from treestrap.supervised.convert import convert
    from treestrap.supervised.data import load_data
    from treestrap.supervised.inputs import get_encoding
    from treestrap.supervised.train import RESULT, RUN_FILE, train_run

    run = out / "supervised" / start.name
    result_path = run / "trial-0" / RESULT
    if not result_path.exists():
        data = load_data(out / "dataset", get_encoding("bitboard"))
        data = _subset_games(data, start.fraction, seed)
        config = supervised_config(start, seed)
        train_run(data, config, run, resume=(run / RUN_FILE).exists())
    network = out / "starts" / f"{start.name}.npz"
    if not network.exists():
        network.parent.mkdir(parents=True, exist_ok=True)
        convert(run, network=True).save(network)
    return read_json(result_path)


def train_starts(out: Path, budget: Budget, seed: int, workers: int, progress: bool) -> str | None:
    """Stage 2: the supervised starting points, their network files, and
    ``starts/starts.json`` naming the MLPs A, B, C by falling test accuracy."""
    from tqdm import tqdm

    ledger = out / "starts" / "starts.json"
    if ledger.exists():
        return None
    starts = starts_of(budget)
    total = sum(s.epochs for s in starts)
    bar = tqdm(total=total, unit="epoch", desc="supervised", disable=not progress)

    def tick() -> None:
        epochs = (
            lines_logged(out / "supervised" / s.name / "trial-0" / "metrics.jsonl") for s in starts
        )
        bar.n = min(total, sum(epochs))
        bar.refresh()

    try:
        with spawn_pool(workers) as pool:
            jobs = [pool.submit(_make_start, s, out, seed) for s in starts]
            results = wait_all(jobs, tick)
    finally:
        bar.close()
    record: dict[str, Any] = {"baseline": _baseline(results[0])}
    for start, result in zip(starts, results, strict=True):
        record[start.name] = {
            "model": start.model,
            "fraction": start.fraction,
            "epochs": start.epochs,
            "best_epoch": result["best_epoch"],
            "test_accuracy": result["test_accuracy"],
            "n_train": result["n_train"],
            "n_test": result["n_test"],
            "network": f"{start.name}.npz",
        }
    mlps = sorted(
        (s.name for s in starts if s.model == "mlp"),
        key=lambda name: -record[name]["test_accuracy"],  # stable: ties keep their order
    )
    record["letters"] = dict(zip(LETTERS, mlps, strict=False))
    write_json(ledger, record)
    parts = [f"SL LogReg {100 * record['sl-logreg']['test_accuracy']:.2f}%"]
    parts += [
        f"MLP {letter} {100 * record[name]['test_accuracy']:.2f}%"
        for letter, name in record["letters"].items()
    ]
    return "supervised: test accuracy " + ", ".join(parts)


def _baseline(result: dict[str, Any]) -> float:
    """The most frequent class's share of the test positions."""
    counts = result.get("class_counts") or [0]
    return max(counts) / max(1, sum(counts))
