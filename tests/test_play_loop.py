"""The one game loop (treestrap.play.loop): its hooks on a counting game, where the
side to move adds 1 or 2 to a total and whoever reaches 10 wins."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from treestrap.play.loop import Ending, History, Turn, play_out


@dataclass
class Counting:
    """A table: the total, the moves made, 10 or more ends the game (the last mover won)."""

    total: int = 0
    made: list[int] = field(default_factory=list)

    def ending(self) -> Ending | None:
        if self.total < 10:
            return None
        return Ending("1-0" if len(self.made) % 2 == 1 else "0-1", "reached 10")

    def side(self) -> int:
        return len(self.made) % 2

    def plies(self) -> int:
        return len(self.made)

    def refusal(self, move: int) -> str | None:
        return None if move in (1, 2) else f"illegal move {move}"

    def make(self, move: int) -> None:
        self.total += move
        self.made.append(move)


class Steady:
    """Always the same move; a refused move loses."""

    def __init__(self, move: int, score: float | None = None, loses_at: int = -1) -> None:
        self.move, self.score, self.loses_at = move, score, loses_at

    def turn(self, table: Counting) -> Turn:
        if table.plies() == self.loses_at:
            return Turn(ending=Ending("0-1", "resigned"))
        return Turn(self.move, score=self.score, note=f"+{self.move}")

    def refused(self, why: str) -> Ending:
        return Ending("forfeit", why)


def test_the_game_ends_by_its_rules_and_keeps_every_turn() -> None:
    table, turns = Counting(), []
    ending = play_out(table, (Steady(2), Steady(1)), turns=turns)
    assert ending == Ending("1-0", "reached 10")  # 2+1+2+1+2+1+2 = 11 after 7 plies
    assert table.made == [2, 1, 2, 1, 2, 1, 2]
    assert [t.note for t in turns] == ["+2", "+1"] * 3 + ["+2"]


def test_the_limit_returns_none_before_the_next_move() -> None:
    table = Counting()
    assert play_out(table, (Steady(1), Steady(1)), max_plies=4) is None
    assert table.plies() == 4


def test_a_refused_move_ends_the_game_as_its_mover_says() -> None:
    table = Counting()
    assert play_out(table, (Steady(1), Steady(3)))[:2] == ("forfeit", "illegal move 3")
    assert table.made == [1]


def test_a_mover_may_end_the_game_instead_of_moving() -> None:
    table = Counting()
    assert play_out(table, {0: Steady(1, loses_at=2), 1: Steady(1)}).termination == "resigned"
    assert table.made == [1, 1]


def test_the_referee_sees_each_side_and_score_before_every_move() -> None:
    seen: list[tuple[int, History]] = []

    def referee(history: History, plies: int) -> Ending | None:
        seen.append((plies, list(history)))
        return Ending("1/2-1/2", "agreed") if plies == 3 else None

    table = Counting()
    assert play_out(table, (Steady(1, 0.5), Steady(2, -0.5)), referee=referee).result == "1/2-1/2"
    assert seen[-1] == (3, [(0, 0.5), (1, -0.5), (0, 0.5)])
    assert [plies for plies, _ in seen] == [0, 1, 2, 3]


def test_a_mover_that_raises_on_refusal_stops_the_loop() -> None:
    class Strict(Steady):
        def refused(self, why: str) -> Ending:
            raise ValueError(why)

    with pytest.raises(ValueError, match="illegal move 5"):
        play_out(Counting(), (Strict(5), Strict(1)))
