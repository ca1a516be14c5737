"""A round's self-play chunks spread over worker processes or a Ray cluster.

Each chunk is independent (its games are numbered, its openings seeded by them), so
the chunks not yet on disk are handed out as tasks: to this process for one actor, to
a pool of processes for ``--actors N``, or to Ray tasks for ``--backend ray``. A chunk
lands as one renamed file, whatever ran it, so a kill loses only chunks in flight:
their temporaries are removed when the round is played again, and worker processes die
with the run's process, however it was stopped.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from treestrap.bootstrap.chunks import ChunkSummary, chunk_path
from treestrap.play.gamepool import die_with_parent, stop_workers

#: ``(player, settings, data_dir, index)``: one chunk played (or read back), a game's
#: module-level function (:attr:`~treestrap.bootstrap.provider.BootstrapProvider.play_chunk`)
ChunkPlayer = Callable[[Path, Any, Path, int], ChunkSummary]


def missing_chunks(settings: Any, data_dir: Path) -> list[int]:
    """Indices of the chunks not yet written."""
    return [i for i in range(settings.chunks()) if not chunk_path(data_dir, i).exists()]


def play_round(
    player: Path,
    settings: Any,
    data_dir: Path,
    actors: int = 1,
    backend: str = "local",
    address: str | None = None,
    deadline: float | None = None,
    progress: bool = True,
    play: ChunkPlayer | None = None,
) -> list[ChunkSummary]:
    """Play every chunk not yet on disk with ``play`` (the default game's recorder when
    None), none started after ``deadline`` (a ``time.monotonic`` value); the summaries
    of all chunks written so far."""
    from tqdm import tqdm

    if play is None:
        from treestrap.bootstrap.provider import bootstrap_provider
        from treestrap.games.registry import DEFAULT_GAME

        play = bootstrap_provider(DEFAULT_GAME).play_chunk
    play_chunk = play

    data_dir.mkdir(parents=True, exist_ok=True)
    remove_chunk_temporaries(data_dir)
    todo = missing_chunks(settings, data_dir)
    bar = tqdm(
        total=settings.chunks(),
        initial=settings.chunks() - len(todo),
        unit="chunk",
        desc=f"self-play ({settings.chunk} games a chunk)",
        disable=not progress,
    )

    def late() -> bool:
        return deadline is not None and time.monotonic() >= deadline

    try:
        if backend == "ray":
            _play_ray(play_chunk, player, settings, data_dir, todo, address, bar.update, late)
        elif actors <= 1:
            for index in todo:
                if late():
                    break
                play_chunk(player, settings, data_dir, index)
                bar.update()
        else:
            _play_pool(play_chunk, player, settings, data_dir, todo, actors, bar.update, late)
    finally:
        bar.close()
    return [
        play_chunk(player, settings, data_dir, i)  # reads the summary back
        for i in range(settings.chunks())
        if chunk_path(data_dir, i).exists()
    ]


def remove_chunk_temporaries(data_dir: Path) -> None:
    """Delete the half-written chunks a killed round left (``chunk-NNNN.tspos.PID.tmp``);
    a round is played by one run at a time, so nothing else writes them."""
    for stray in data_dir.glob("chunk-*.tmp"):
        stray.unlink(missing_ok=True)


def worker_pool(actors: int) -> concurrent.futures.ProcessPoolExecutor:
    """``actors`` fresh worker processes that die with this one."""
    # spawn: the parent may hold torch's threads, which a forked child must not inherit
    context = multiprocessing.get_context("spawn")
    return concurrent.futures.ProcessPoolExecutor(
        actors, mp_context=context, initializer=die_with_parent, initargs=(os.getpid(),)
    )


def _play_pool(
    play_chunk: ChunkPlayer,
    player: Path,
    settings: Any,
    data_dir: Path,
    todo: list[int],
    actors: int,
    done: Callable[[], object],
    late: Callable[[], bool],
) -> None:
    pool = worker_pool(actors)
    try:
        pending = set()
        queue = list(todo)
        while queue or pending:
            while queue and len(pending) < actors and not late():
                pending.add(pool.submit(play_chunk, player, settings, data_dir, queue.pop(0)))
            if not pending:
                break
            finished, pending = concurrent.futures.wait(
                pending, return_when=concurrent.futures.FIRST_COMPLETED
            )
            for future in finished:
                future.result()  # a worker's error stops the round with its traceback
                done()
    except BaseException:
        # An interrupt or a worker's error: the chunks in flight are lost anyway, and
        # leaving the pool normally would wait for them to finish.
        stop_workers(pool)
        raise
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _play_ray(
    play_chunk: ChunkPlayer,
    player: Path,
    settings: Any,
    data_dir: Path,
    todo: list[int],
    address: str | None,
    done: Callable[[], object],
    late: Callable[[], bool],
) -> None:
    from treestrap.distributed.ray_support import ray_session

    with ray_session(address) as ray:
        task = ray.remote(play_chunk)
        pending = [task.remote(player, settings, data_dir, i) for i in todo]
        while pending:
            finished, pending = ray.wait(pending, num_returns=1)
            ray.get(finished)
            done()
            if late():
                for ref in pending:
                    ray.cancel(ref)
                break
