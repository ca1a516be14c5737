"""Errors that stop a tournament or match: no result is made from what is left.

Light on purpose (no chess, no numba): the command line catches
:class:`TournamentStopped` and prints its one line (``error: ...``, exit status 1).
"""

from __future__ import annotations

import traceback
from pathlib import Path

#: The file in a run directory that keeps the traceback of a player that raised.
ERROR_FILE = "error.txt"


class TournamentStopped(Exception):
    """A tournament or match that cannot give a result; ``str()`` is one line."""


class IncompleteTournament(TournamentStopped):
    """Games were given up (their worker processes died, or the game loop failed,
    too often): ratings from the rest would rest on fewer games than scheduled."""

    def __init__(self, given_up: int, scheduled: int, where: str, remedy: str) -> None:
        super().__init__(given_up, scheduled, where, remedy)
        self.given_up, self.scheduled = given_up, scheduled
        self.where, self.remedy = where, remedy

    def __str__(self) -> str:
        return (
            f"{self.given_up} of {self.scheduled} games {self.where} were given up "
            f"(worker processes died or the game failed {_attempts()} times): no result "
            f"is written from an incomplete tournament; {self.remedy}"
        )


class UnfinishedTournament(TournamentStopped):
    """A stored tournament whose schedule has games not yet played (a run stopped or
    still going): a rating of it would rest on fewer games than scheduled."""

    def __init__(self, where: str, played: int, scheduled: int, remedy: str) -> None:
        super().__init__(where, played, scheduled, remedy)
        self.where, self.played, self.scheduled = where, played, scheduled
        self.remedy = remedy

    def __str__(self) -> str:
        return (
            f"{self.where} holds {self.played} of the {self.scheduled} games of its "
            f"schedule: no rating from an incomplete tournament; {self.remedy}"
        )


#: Breakdowns a game may be in flight for before it is given up (the game pool's
#: retry count; here so that both the pool and this message read it).
MAX_ATTEMPTS = 3


def _attempts() -> int:
    return MAX_ATTEMPTS


class PlayerFailed(TournamentStopped):
    """One of our players (or finishers) failed: an in-process one raised or played
    an illegal move or none, our engine as a UCI subprocess reported an error, crashed
    or played a bad move. A bug to fix, never a game result. ``details`` holds the
    traceback text, made where it was raised (a worker process's traceback does not
    survive the trip back otherwise)."""

    def __init__(self, message: str, details: str) -> None:
        super().__init__(message, details)  # args match __init__: pickles across processes
        self.message, self.details = message, details

    def __str__(self) -> str:
        return self.message

    @classmethod
    def raised(cls, message: str, exc: BaseException) -> PlayerFailed:
        """The error for ``exc`` caught while ``message`` (says who and where)."""
        details = "".join(traceback.format_exception(exc))
        return cls(f"{message}: {describe(exc)}", f"{message}\n\n{details}")

    def saved_in(self, run_dir: Path) -> PlayerFailed:
        """Write the traceback to ``run_dir/error.txt``; the same error naming it."""
        path = Path(run_dir) / ERROR_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.details, encoding="utf-8")
        return PlayerFailed(f"{self.message} (the run stopped; traceback in {path})", self.details)


def describe(exc: BaseException) -> str:
    """``TypeName: message`` (the type alone when the message is empty)."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
