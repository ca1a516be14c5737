"""A process pool fed from a generator, with a bounded number of tasks in flight.

``Pool.imap_unordered`` would read the whole generator at once (a task handler thread
drains it), holding every game text of a large collection in memory; here at most
``2 * jobs`` tasks wait at a time. Workers ignore Ctrl-C so that only the main process
sees it: it terminates the pool (and the Stockfish processes of the workers, whose
input closes) and re-raises, leaving finished chunks on disk for a resume. On Linux a
worker also ends when the main process is killed outright.
With one job everything runs in the calling process, which is also what tests use.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.util
import os
import queue
import signal
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from treestrap.play.gamepool import die_with_parent

T = TypeVar("T")
R = TypeVar("R")


def _quiet_worker(at_exit: Callable[[], None] | None, parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent)  # a SIGKILL of the command skips the pool's clean-up
    if at_exit is not None:  # e.g. quit the worker's engine when the pool closes
        multiprocessing.util.Finalize(None, at_exit, exitpriority=10)


def run_parallel(
    func: Callable[[T], R],
    tasks: Iterable[T],
    jobs: int,
    at_exit: Callable[[], None] | None = None,
) -> Iterator[R]:
    """``func(task)`` of every task, in the order they finish. An exception raised by
    a task is raised here, after the pool is stopped. ``at_exit`` runs in each worker
    as it shuts down normally (a module-level function, so that it pickles)."""
    if jobs <= 1:
        yield from (func(task) for task in tasks)
        return
    done: queue.Queue[tuple[bool, Any]] = queue.Queue()
    pool = multiprocessing.Pool(jobs, initializer=_quiet_worker, initargs=(at_exit, os.getpid()))
    in_flight = 0
    try:
        for task in tasks:
            pool.apply_async(
                func,
                (task,),
                callback=lambda r: done.put((True, r)),
                error_callback=lambda e: done.put((False, e)),
            )
            in_flight += 1
            while in_flight >= 2 * jobs:
                in_flight -= 1
                yield _unwrap(done.get())
        while in_flight:
            in_flight -= 1
            yield _unwrap(done.get())
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


def _unwrap(item: tuple[bool, Any]) -> Any:
    ok, value = item
    if not ok:
        raise value
    return value
