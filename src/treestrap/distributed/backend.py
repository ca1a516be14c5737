"""The interface between the learner and wherever its actors run.

A backend hosts ``count`` actor slots. The learner hands a slot a :class:`Job` with
:meth:`Backend.submit` and collects finished games with :meth:`Backend.wait`; a slot
whose actor died (killed, crashed, its machine gone) comes back as ``None`` and is
started again with :meth:`Backend.restart`. Byte counts are of the pickled messages,
which is what crosses a process boundary or the network.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from treestrap.distributed.messages import Job, Played
from treestrap.training.config import TrainConfig

#: A finished slot: its game, or None when its actor died with the game unfinished.
Outcome = tuple[int, Played | None]


class ActorFailed(RuntimeError):
    """An actor raised while playing (a bug, or an opponent that would not start):
    restarting it would fail the same way, so the run stops with its traceback."""


@dataclass
class Traffic:
    """Bytes and messages between the learner and its actors."""

    jobs: int = 0
    job_bytes: int = 0
    games: int = 0
    game_bytes: int = 0


class Backend(Protocol):
    name: str
    count: int
    restarts: int
    traffic: Traffic

    def start(self, config: TrainConfig) -> None: ...

    def submit(self, slot: int, job: Job) -> None: ...

    def wait(self) -> list[Outcome]: ...

    def restart(self, slot: int) -> None: ...

    def pids(self) -> list[int]: ...

    def close(self) -> None: ...
