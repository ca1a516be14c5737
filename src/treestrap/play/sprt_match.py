"""A two-player match under a pentanomial SPRT: pairs counted as their games end.

The schedule gives both games of an opening the same round, so a pair is complete when
the second game of its round is stored, whichever of the two ended first (games run
side by side finish in any order). After each complete pair the test is updated;
:class:`MatchDecided` carries the decision out of the game loop, which stops the games
still running.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from treestrap.play.results_db import ResultsDB
from treestrap.rating.gsprt import Gsprt, GsprtResult, parse_gsprt
from treestrap.rating.pairs import pentanomial, points


class MatchDecided(Exception):
    """The SPRT accepted a hypothesis: no further game is needed."""

    def __init__(self, result: GsprtResult) -> None:
        super().__init__(result.decision)
        self.result = result


class SprtWatch:
    """Pentanomial counts of ``player`` against its one opponent, game by game.

    ``rounds[i]`` is the round (the opening) of game id ``i`` in the schedule."""

    def __init__(self, test: Gsprt, player: str, rounds: Sequence[str]) -> None:
        self.test = test
        self.player = player
        self.rounds = list(rounds)
        self._first_game: dict[str, float] = {}  # round -> points of its first stored game
        self._pair_scores: list[float] = []
        self.result = test.result([0] * 5)

    @property
    def pairs(self) -> int:
        return len(self._pair_scores)

    @property
    def decided(self) -> bool:
        return self.result.decision != "continue"

    def add(self, game_id: int, white: str, result: str) -> GsprtResult | None:
        """Count one stored game; the test's new state if it completed a pair."""
        score = points(result, white == self.player)
        if score is None:
            return None
        round_ = self.rounds[game_id]
        first = self._first_game.pop(round_, None)
        if first is None:
            self._first_game[round_] = score
            return None
        self._pair_scores.append(first + score)
        self.result = self.test.result(pentanomial(self._pair_scores))
        return self.result

    def line(self) -> str:
        """The progress line printed after each pair."""
        return f"SPRT {self.pairs} pairs: {self.result.describe()}"

    def summary(self) -> str:
        """The closing line: the test, where it stands, and the decision."""
        verdict = {
            "H1": f"H1 accepted: {self.player} is stronger by about elo1 or more",
            "H0": f"H0 accepted: {self.player} is not stronger than elo0",
            "continue": "undecided (the game limit came first)",
        }[self.result.decision]
        return (
            f"SPRT {self.test.describe()}, pentanomial, after {self.pairs} pairs: "
            f"{self.result.describe()} -> {verdict}"
        )


def check_sprt(sprt: str | None, players: int) -> None:
    """``ValueError`` for an SPRT text that does not parse, or one given to a tournament
    of other than two players."""
    if sprt is None:
        return
    parse_gsprt(sprt)
    if players != 2:
        raise ValueError(f"an SPRT tests one player against one other, got {players} players")


def resumed_watch(
    sprt: str | None, player: str, rounds: Sequence[str], stored_in: Path | None
) -> SprtWatch | None:
    """The match's SPRT of ``player`` (None without one), having counted the games
    ``stored_in`` already holds (a pair counts once both its games are stored, in any
    order)."""
    if sprt is None:
        return None
    watch = SprtWatch(parse_gsprt(sprt), player, rounds)
    if stored_in is not None:
        with ResultsDB.open(stored_in) as db:
            stored = db.games()
        for game in stored:
            watch.add(game.id, game.white, game.result)
    return watch
