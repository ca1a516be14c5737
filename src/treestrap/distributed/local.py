"""Actors in local processes, one pipe each.

Processes start by ``spawn``, a start method the ``multiprocessing`` documentation calls
safe for a parent with threads, and each asks to die with the learner that started it:
a learner killed outright (SIGKILL skips its clean-up) takes its actors with it at once,
not after the games they are playing. (A fork server would outlive the learner: every
process it forks keeps it alive.) Each actor has its own pipe and nothing is shared,
so an actor killed at any instant cannot leave a lock held or a queue torn: its pipe
reads as closed, its job is dropped and a new process takes its slot.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import pickle
import signal
import traceback
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess

from treestrap.distributed.backend import ActorFailed, Outcome, Traffic
from treestrap.distributed.messages import Job, Played
from treestrap.play.gamepool import die_with_parent
from treestrap.training.config import TrainConfig

#: Seconds an actor gets to leave on its own at the end of a run before SIGKILL.
STOP_GRACE = 2.0


def _actor_main(conn: Connection, config: TrainConfig, learner: int) -> None:
    """An actor process: play jobs until the pipe closes or a None job arrives."""
    # Ctrl-C reaches the whole process group: the learner alone handles it and stops us.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A killed learner closes our pipe, but a game in play would first run to its end.
    die_with_parent(learner)
    from treestrap.distributed.actor import Actor

    actor = Actor(config)
    try:
        while True:
            try:
                job = pickle.loads(conn.recv_bytes())
            except EOFError:
                return
            if job is None:
                return
            try:
                reply: tuple[str, object] = ("ok", actor.play(job))
            except Exception:
                reply = ("error", traceback.format_exc())
            conn.send_bytes(pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL))
    finally:
        actor.close()


class LocalBackend:
    """``count`` actor processes on this machine."""

    name = "local"

    def __init__(self, count: int) -> None:
        self.count = count
        self.restarts = 0
        self.traffic = Traffic()
        self._context = mp.get_context("spawn")
        self._config: TrainConfig | None = None
        self._procs: list[BaseProcess | None] = [None] * count
        self._conns: list[Connection | None] = [None] * count
        self._busy: set[int] = set()

    def start(self, config: TrainConfig) -> None:
        self._config = config
        for slot in range(self.count):
            self._spawn(slot)

    def _spawn(self, slot: int) -> None:
        parent, child = self._context.Pipe(duplex=True)
        proc = self._context.Process(
            target=_actor_main,
            args=(child, self._config, os.getpid()),
            name=f"treestrap-actor-{slot}",
        )
        proc.daemon = True  # never outlive the learner
        proc.start()
        child.close()
        self._procs[slot], self._conns[slot] = proc, parent

    def submit(self, slot: int, job: Job) -> None:
        data = pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL)
        conn = self._conns[slot]
        assert conn is not None
        self.traffic.jobs += 1
        self.traffic.job_bytes += len(data)
        self._busy.add(slot)
        # It may have died between games: then wait() finds its pipe closed.
        with contextlib.suppress(OSError):
            conn.send_bytes(data)

    def wait(self) -> list[Outcome]:
        by_conn = {self._conns[s]: s for s in self._busy}
        ready = wait(list(by_conn))  # type: ignore[arg-type]
        outcomes: list[Outcome] = []
        for conn in ready:
            slot = by_conn[conn]  # type: ignore[index]
            self._busy.discard(slot)
            try:
                data = conn.recv_bytes()  # type: ignore[union-attr]
            except (EOFError, OSError):
                outcomes.append((slot, None))
                continue
            kind, payload = pickle.loads(data)
            if kind == "error":
                raise ActorFailed(f"actor {slot} failed:\n{payload}")
            assert isinstance(payload, Played)
            self.traffic.games += 1
            self.traffic.game_bytes += len(data)
            outcomes.append((slot, payload))
        return outcomes

    def restart(self, slot: int) -> None:
        self._stop(slot, grace=0.0)
        self.restarts += 1
        self._spawn(slot)

    def pids(self) -> list[int]:
        return [p.pid or 0 if p is not None else 0 for p in self._procs]

    def _stop(self, slot: int, grace: float) -> None:
        proc, conn = self._procs[slot], self._conns[slot]
        if conn is not None:
            if grace > 0:
                with contextlib.suppress(OSError):
                    conn.send_bytes(pickle.dumps(None))
            conn.close()
        if proc is not None:
            proc.join(timeout=grace)
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=5.0)
        self._procs[slot] = self._conns[slot] = None
        self._busy.discard(slot)

    def close(self) -> None:
        for slot in range(self.count):
            busy = slot in self._busy
            self._stop(slot, grace=0.0 if busy else STOP_GRACE)
