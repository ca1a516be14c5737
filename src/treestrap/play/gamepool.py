"""Games in parallel worker processes, surviving workers that die.

At most one game per worker is handed out at a time, so when a worker dies (a crash
in compiled code, the out-of-memory killer) the games in flight are exactly the ones
that may have caused it. The pool is restarted and those games are tried again; a
game that was in flight at ``MAX_ATTEMPTS`` breakdowns is given up (and reported),
and the rest go on. Results come back to the calling process, in the order games end.
A game one of our players failed in (:class:`~treestrap.play.errors.PlayerFailed`)
is not tried again: the error leaves the runner and stops the run.

:data:`GameRunner` is the shape of :func:`run_games`; another backend (Ray tasks,
:mod:`treestrap.distributed.ray_games`) offers the same function, and
:func:`games_run_by` makes it the one tournaments use for a block of code.
"""

from __future__ import annotations

import bisect
import concurrent.futures as futures
import contextlib
import ctypes
import os
import signal
import sys
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures.process import BrokenProcessPool
from contextvars import ContextVar

from treestrap.play.errors import MAX_ATTEMPTS, PlayerFailed
from treestrap.play.game import GameRecord, GameSetup, play_game

#: Linux's ``prctl`` option that sends the caller a signal when its parent dies
_PR_SET_PDEATHSIG = 1


def run_games(
    setups: Mapping[int, GameSetup],
    workers: int,
    on_done: Callable[[int, GameRecord], None],
    on_problem: Callable[[str], None] = print,
) -> list[int]:
    """Play every game of ``setups`` (id -> setup), calling ``on_done(id, record)`` in
    this process as each ends. Returns the ids given up, in order."""
    waiting = sorted(setups)
    attempts = dict.fromkeys(waiting, 0)
    given_up: list[int] = []
    while waiting:
        running: dict[futures.Future[GameRecord], int] = {}
        # The platform's default start method; where that is "spawn" or "forkserver",
        # a calling script needs the usual ``if __name__ == "__main__":`` guard.
        pool = futures.ProcessPoolExecutor(
            max_workers=max(1, workers), initializer=die_with_parent, initargs=(os.getpid(),)
        )
        try:
            while waiting or running:
                while waiting and len(running) < max(1, workers):
                    game_id = waiting.pop(0)
                    running[pool.submit(play_game, setups[game_id])] = game_id
                done, _ = futures.wait(running, return_when=futures.FIRST_COMPLETED)
                for future in done:
                    game_id = running.pop(future)
                    try:
                        record = future.result()
                    except BrokenProcessPool:
                        running[future] = game_id  # counted with the others below
                        raise
                    except PlayerFailed:
                        raise  # our own player's bug: no retry makes it a result
                    except Exception as exc:  # a bug in the game loop: skip, go on
                        on_problem(f"game {game_id} failed: {type(exc).__name__}: {exc}")
                        retry_game(game_id, attempts, waiting, given_up, on_problem)
                        continue
                    on_done(game_id, record)
            pool.shutdown(wait=True)
        except BrokenProcessPool:
            on_problem(f"a worker process died; restarting the pool ({len(running)} games hit)")
            for game_id in sorted(running.values()):
                retry_game(game_id, attempts, waiting, given_up, on_problem)
        except BaseException:
            # Leaving on an error (``on_done`` found the disk full): the games in flight
            # are lost anyway, and the interpreter would wait for them before exiting.
            stop_workers(pool)
            raise
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
    return sorted(given_up)


def die_with_parent(parent: int) -> None:
    """A worker's initializer: on Linux, ask for SIGTERM when the parent process dies,
    so a run stopped by SIGTERM or SIGKILL (which skip its clean-up) leaves no worker
    playing on. The kernel ties the request to the thread that started the worker, so
    pools using it are started from a thread that lives as long as they do (every caller
    here: the main thread). On every platform SIGTERM gets its default action back: a
    worker forked inside ``terminate_as_interrupt`` would otherwise take it as Ctrl-C
    and print a traceback each time its pool is stopped (a gate decided early)."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # the parent died before the request was made
        os._exit(1)


def stop_workers(pool: futures.ProcessPoolExecutor) -> None:
    """End a pool's worker processes now, whatever they are doing, and wait for the
    pool's manager thread to see them gone."""
    manager = getattr(pool, "_executor_manager_thread", None)
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14
    if terminate is not None:
        terminate()
    else:
        processes = list((getattr(pool, "_processes", None) or {}).values())
        for process in processes:
            process.terminate()
        for process in processes:
            # A worker deep in a compiled search can outlive SIGTERM (seen under a full
            # test session); SIGKILL cannot be put off.
            process.join(timeout=2.0)
            if process.is_alive():
                process.kill()
    if manager is not None:
        # The manager thread closes its wake-up pipe as it ends; the interpreter's exit
        # hook writes to that pipe without a lock, and if the two meet, exit prints an
        # OSError traceback (Python 3.11, seen under a loaded test session). Once the
        # thread has ended, the hook sees the pipe closed and writes nothing.
        manager.join(timeout=30.0)


def retry_game(
    game_id: int,
    attempts: dict[int, int],
    waiting: list[int],
    given_up: list[int],
    on_problem: Callable[[str], None],
) -> None:
    attempts[game_id] += 1
    if attempts[game_id] >= MAX_ATTEMPTS:
        given_up.append(game_id)
        on_problem(f"game {game_id} given up after {MAX_ATTEMPTS} failed attempts")
    else:
        bisect.insort(waiting, game_id)


#: ``runner(setups, workers, on_done, on_problem) -> ids given up``: :func:`run_games`.
GameRunner = Callable[
    [Mapping[int, GameSetup], int, Callable[[int, GameRecord], None], Callable[[str], None]],
    list[int],
]
_RUNNER: ContextVar[GameRunner] = ContextVar("game_runner", default=run_games)


def current_runner() -> GameRunner:
    """The runner tournaments play their games with (:func:`run_games` by default)."""
    return _RUNNER.get()


@contextlib.contextmanager
def games_run_by(runner: GameRunner) -> Iterator[None]:
    """Tournaments in the block play their games with ``runner``."""
    token = _RUNNER.set(runner)
    try:
        yield
    finally:
        _RUNNER.reset(token)
