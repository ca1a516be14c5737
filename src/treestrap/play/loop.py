"""The one game loop: whose turn it is, a move asked for, checked and made, until the
game ends.

Every game between players runs here, whatever the game and whoever plays:

- in-process players of any game through its contract (:mod:`treestrap.play.contract_game`);
- engines under clocks, with adjudication and forfeits (:mod:`treestrap.play.game`), and
  the reference engine that finishes a game too long for the rules.

What differs between them is filled in by the caller through four hooks:

- the **table** (:class:`Table`): the position as the loop asks it: is the game over,
  whose turn, is a move legal, make it;
- the **movers**, one per side (:class:`Mover`): each returns a :class:`Turn`, a move or
  the ending it caused instead (a forfeit, a flag fall, a resignation); an engine's
  clock and watchdog live in its mover;
- the **referee**: an ending the game's rules do not know (adjudication by scores),
  asked before every move with the moves so far;
- the **limit**: a ply count at which the loop returns ``None`` and the caller decides
  (a draw, or a reference engine that plays on).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

#: A game's result, for the first player (chess's white), as PGN writes it.
FIRST_WINS, SECOND_WINS, DRAWN = "1-0", "0-1", "1/2-1/2"


class Ending(NamedTuple):
    """How a game ended: ``FIRST_WINS``, ``SECOND_WINS`` or ``DRAWN``, and why."""

    result: str
    termination: str
    time_loss: bool = False


@dataclass(frozen=True)
class Turn:
    """What a mover did with its turn: a ``move`` (checked by the table before it is
    made), or the ``ending`` it caused instead. ``score`` is the mover's own view of
    the position (for a referee), ``note`` what the record keeps beside the move."""

    move: Any = None
    ending: Ending | None = None
    score: float | None = None
    note: str = ""


class Table(Protocol):
    """The position of one game, as the loop asks it."""

    def ending(self) -> Ending | None:
        """How the game ended by its rules, or None while it goes on."""

    def side(self) -> Any:
        """Whose turn it is: the key of its mover."""

    def plies(self) -> int:
        """Plies made from the game's start (an opening's included)."""

    def refusal(self, move: Any) -> str | None:
        """Why ``move`` cannot be made now (None when it is legal)."""

    def make(self, move: Any) -> None: ...


class Mover(Protocol):
    """One side of a game."""

    def turn(self, table: Table) -> Turn: ...

    def refused(self, why: str) -> Ending:
        """The ending when this side's move was refused by the table; or raise, where
        an illegal move is a bug and not a loss."""


#: ``(side, score)`` of every move made, for the referee.
History = list[tuple[Any, float | None]]
Referee = Callable[[History, int], Ending | None]


def play_out(
    table: Table,
    movers: Sequence[Mover] | dict[Any, Mover],
    max_plies: int | None = None,
    referee: Referee | None = None,
    turns: list[Turn] | None = None,
) -> Ending | None:
    """Play from ``table``'s position until the game ends (its ending) or reaches
    ``max_plies`` plies (None). Every turn that made a move is appended to ``turns``."""
    history: History = []
    while True:
        ending = table.ending()
        if ending is not None:
            return ending
        if referee is not None:
            verdict = referee(history, table.plies())
            if verdict is not None:
                return verdict
        if max_plies is not None and table.plies() >= max_plies:
            return None
        side = table.side()
        mover = movers[side]
        turn = mover.turn(table)
        if turn.ending is not None:
            return turn.ending
        why = table.refusal(turn.move)
        if why is not None:
            return mover.refused(why)
        table.make(turn.move)
        history.append((side, turn.score))
        if turns is not None:
            turns.append(turn)
