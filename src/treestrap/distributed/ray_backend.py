"""Actors as Ray actors, on whatever machines the cluster has.

Each slot is one Ray actor (one CPU) that hosts an :class:`~.actor.Actor`. Jobs and
games travel as Ray calls and their return values. An actor whose process or node dies
makes its call raise ``RayActorError``: the learner drops that game and the slot gets a
new actor. Ray's own restarts are off, so the learner alone decides what is replayed.
"""

from __future__ import annotations

import contextlib
import os
import pickle
from typing import Any

from treestrap.distributed.actor import Actor
from treestrap.distributed.backend import ActorFailed, Outcome, Traffic
from treestrap.distributed.messages import Job, Played
from treestrap.distributed.ray_support import ray_session
from treestrap.training.config import TrainConfig


class ActorHost:
    """The Ray actor class (wrapped by ``ray.remote`` when the backend starts)."""

    def __init__(self, config: TrainConfig) -> None:
        self.actor = Actor(config)

    def pid(self) -> int:
        return os.getpid()

    def play(self, job: Job) -> Played:
        return self.actor.play(job)


class RayBackend:
    """``count`` Ray actors on the cluster at ``address`` (a local one if None)."""

    name = "ray"

    def __init__(self, count: int, address: str | None = None, num_cpus: int | None = None):
        self.count = count
        self.restarts = 0
        self.traffic = Traffic()
        self._address = address
        self._num_cpus = num_cpus
        self._session: contextlib.ExitStack | None = None
        self._ray: Any = None
        self._remote: Any = None
        self._config: TrainConfig | None = None
        self._actors: list[Any] = [None] * count
        self._pids: list[int] = [0] * count
        self._calls: dict[Any, int] = {}

    def start(self, config: TrainConfig) -> None:
        self._session = contextlib.ExitStack()
        self._ray = self._session.enter_context(ray_session(self._address, self._num_cpus))
        self._remote = self._ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0)(ActorHost)
        self._config = config
        for slot in range(self.count):
            self._spawn(slot)

    def _spawn(self, slot: int) -> None:
        actor = self._remote.remote(self._config)
        self._actors[slot] = actor
        self._pids[slot] = int(self._ray.get(actor.pid.remote()))

    def submit(self, slot: int, job: Job) -> None:
        self.traffic.jobs += 1
        self.traffic.job_bytes += len(pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL))
        self._calls[self._actors[slot].play.remote(job)] = slot

    def wait(self) -> list[Outcome]:
        ray = self._ray
        from ray.exceptions import RayActorError, RayTaskError

        ready, _ = ray.wait(list(self._calls), num_returns=1)
        outcomes: list[Outcome] = []
        for ref in ready:
            slot = self._calls.pop(ref)
            try:
                played = ray.get(ref)
            except RayActorError:
                outcomes.append((slot, None))
                continue
            except RayTaskError as exc:
                raise ActorFailed(f"actor {slot} failed:\n{exc}") from None
            self.traffic.games += 1
            self.traffic.game_bytes += len(pickle.dumps(played, protocol=pickle.HIGHEST_PROTOCOL))
            outcomes.append((slot, played))
        return outcomes

    def restart(self, slot: int) -> None:
        with contextlib.suppress(Exception):
            self._ray.kill(self._actors[slot], no_restart=True)
        self.restarts += 1
        self._spawn(slot)

    def pids(self) -> list[int]:
        return list(self._pids)

    def close(self) -> None:
        if self._ray is not None:
            for actor in self._actors:
                if actor is not None:
                    with contextlib.suppress(Exception):
                        self._ray.kill(actor, no_restart=True)
        self._actors = [None] * self.count
        self._calls.clear()
        if self._session is not None:
            self._session.close()
            self._session = None
