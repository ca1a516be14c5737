"""What every game's record of a game in play offers the training loop
(:mod:`treestrap.training.game`): the position, the moves made through it, its length
and its text in the game's own format (chess: PGN; Connect Four: a line of columns)."""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol


class RecordTags(NamedTuple):
    """What a finished game's record says beside its moves."""

    number: int
    result: str  # "1-0", "0-1" or "1/2-1/2": the first player's view
    termination: str
    first: str  # the first player's name (White)
    second: str
    event: str
    #: the CPU time both players spent choosing, where the game's record keeps it (the
    #: in-process games of :mod:`treestrap.play.contract_tournament`)
    cpu_seconds: float | None = None


class GameRecord(Protocol):
    """A game being played: its position and its record, kept in step."""

    #: the position, mutated in place by :meth:`play`
    pos: Any
    #: what a summary calls the game's opening (its name, or its moves)
    opening: str
    #: what an external engine reads of the game (chess: the python-chess board; None
    #: for a game without external engines)
    engine_view: Any

    def plies(self) -> int:
        """Plies played in the game so far, its opening's included."""
        ...

    def play(self, move: int) -> None:
        """Record ``move`` and make it."""
        ...

    def text(self, tags: RecordTags) -> str:
        """The finished game in the game's record format."""
        ...
