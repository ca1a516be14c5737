"""Training runs in worker processes, shared by the reproductions: the worker that
starts or continues one run, waiting for a batch of them with a progress tick,
counting what a run has logged so far, and training a set of runs side by side."""

from __future__ import annotations

import concurrent.futures as futures
import multiprocessing
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from treestrap.play.gamepool import die_with_parent
from treestrap.training.config import TrainConfig


def train_run(config: TrainConfig, run: Path) -> int:
    """Worker: start or continue one training run; returns its game count."""
    from treestrap.training.run import train

    return train(config, run, resume=(run / "weights.npz").exists()).games


def spawn_pool(workers: int) -> futures.ProcessPoolExecutor:
    """Worker processes that start clean (torch's thread pools do not survive a fork),
    one torch thread each (2 cores, 2 workers), and end with this one."""
    return futures.ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_start_worker,
        initargs=(os.getpid(),),
    )


def _start_worker(parent: int) -> None:
    die_with_parent(parent)
    import torch

    torch.set_num_threads(1)


def wait_all(
    jobs: list[futures.Future[Any]], tick: Callable[[], None], poll: float = 1.0
) -> list[Any]:
    """Wait for every job, calling ``tick`` between polls; the first failure is raised
    (a failed run stops the reproduction with its error)."""
    pending = set(jobs)
    while pending:
        done, pending = futures.wait(pending, timeout=poll)
        for job in done:
            job.result()
        tick()
    return [job.result() for job in jobs]


def lines_logged(path: Path) -> int:
    """Lines of a metrics log (one a game or an epoch); 0 before it exists."""
    try:
        with open(path, "rb") as fh:
            return sum(1 for _ in fh)
    except OSError:
        return 0


def _games_done(runs: list[Path]) -> int:
    return sum(lines_logged(run / "metrics.jsonl") for run in runs)


def train_runs(
    out: Path,
    configs: dict[str, TrainConfig],
    workers: int,
    slowest: str = "",
    progress: bool = True,
    backend: str = "local",
    address: str | None = None,
) -> list[Path]:
    """Train (or finish training) each config in ``out/train/NAME``: on the local
    backend ``workers`` runs at a time, one process each, ``slowest`` first; on Ray
    one run after another, each with ``workers`` actors on the cluster."""
    from tqdm import tqdm

    runs = [out / "train" / name for name in configs]
    total = sum(config.games for config in configs.values())
    bar = tqdm(total=total, unit="game", desc="training", disable=not progress)
    if backend == "ray":
        from treestrap.distributed.learner import train_distributed

        bar.n = min(total, _games_done(runs))
        for config, run in zip(configs.values(), runs, strict=True):
            train_distributed(
                config,
                str(run),
                actors=workers,
                backend="ray",
                address=address,
                resume=(run / "weights.npz").exists(),
                on_game=lambda summary, state: bar.update(1),
            )
        bar.close()
        return runs
    with futures.ProcessPoolExecutor(
        max_workers=workers, initializer=die_with_parent, initargs=(os.getpid(),)
    ) as pool:
        # The slowest run first (TreeStrap(minimax)'s full trees), so that the others
        # share the second worker meanwhile.
        order = sorted(zip(configs, runs, strict=True), key=lambda nr: nr[0] != slowest)
        jobs = [pool.submit(train_run, configs[name], run) for name, run in order]

        def tick() -> None:
            bar.n = min(total, _games_done(runs))
            bar.refresh()

        wait_all(jobs, tick)
    bar.close()
    return runs
