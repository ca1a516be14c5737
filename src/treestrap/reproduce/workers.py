"""Training runs in worker processes, shared by both reproductions: the worker that
starts or continues one run, waiting for a batch of them with a progress tick, and
counting what a run has logged so far."""

from __future__ import annotations

import concurrent.futures as futures
import multiprocessing
from collections.abc import Callable
from pathlib import Path
from typing import Any

from treestrap.training.config import TrainConfig


def train_run(config: TrainConfig, run: Path) -> int:
    """Worker: start or continue one training run; returns its game count."""
    from treestrap.training.run import train

    return train(config, run, resume=(run / "weights.npz").exists()).games


def spawn_pool(workers: int) -> futures.ProcessPoolExecutor:
    """Worker processes that start clean (torch's thread pools do not survive a fork),
    one torch thread each (2 cores, 2 workers)."""
    return futures.ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_one_thread,
    )


def _one_thread() -> None:
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
