"""Two-engine matches over UCI, with clocks kept by the runner.

A thin layer over the tournament's machinery: each game is
:func:`treestrap.play.game.play_game` (both engines started afresh, so a crash
costs one game, not the match; clocks, losses on time and forfeits as described
there), played in worker processes by :func:`treestrap.play.gamepool.run_games`.
Every opening is played twice with colours reversed; every game is kept as PGN.
A match with games given up raises :class:`~treestrap.play.errors.IncompleteTournament`
(no score from fewer games than scheduled); one whose in-process player raised,
:class:`~treestrap.play.errors.PlayerFailed`, its traceback in ``error.txt`` beside
the PGN file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from treestrap.play.errors import IncompleteTournament, PlayerFailed
from treestrap.play.forfeits import format_forfeits
from treestrap.play.game import GameRecord, GameRules, GameSetup
from treestrap.play.game import play_game as play_setup
from treestrap.play.gamepool import run_games
from treestrap.play.openings import Opening
from treestrap.play.players import UCI, PlayerSpec, find_engine
from treestrap.play.timecontrol import TimeControl
from treestrap.rating.elo import MatchScore
from treestrap.rating.sprt import count_results

__all__ = [
    "MAX_PLIES",
    "EngineSpec",
    "GameRecord",
    "MatchResult",
    "TimeControl",
    "find_engine",
    "play_game",
    "play_match",
]

#: Longest game before it is adjudicated a draw (plies): beyond any real game here.
MAX_PLIES = 600

#: Stand-ins for the two engines' names when a match is tallied, distinct even when
#: the names are not.
_FIRST, _SECOND = "first", "second"


@dataclass(frozen=True)
class EngineSpec:
    """How to start one player: a UCI command line and options to set."""

    name: str
    command: tuple[str, ...]
    options: tuple[tuple[str, object], ...] = ()

    def player(self) -> PlayerSpec:
        return PlayerSpec(self.name, UCI, command=self.command, options=self.options)


@dataclass
class MatchResult:
    """Results from the first engine's point of view."""

    first: str
    second: str
    games: list[GameRecord] = field(default_factory=list)

    def score(self) -> MatchScore:
        """Wins, draws and losses of the first engine. Games are tallied by which colour
        the first engine had, so two engines under one name still get a score: every
        game then reads as the first engine's with White (no record tells them apart)."""
        played = [
            (_FIRST, _SECOND, g.result) if g.white == self.first else (_SECOND, _FIRST, g.result)
            for g in self.games
        ]
        return MatchScore(*count_results(played, _FIRST, _SECOND))

    def forfeits(self) -> str:
        """``forfeits: N (REASON COUNT, ...)`` of the games played."""
        return format_forfeits(g.termination for g in self.games)

    def time_losses(self, name: str) -> int:
        return sum(
            1
            for g in self.games
            if g.time_loss
            and ((g.white == name and g.result == "0-1") or (g.black == name and g.result == "1-0"))
        )


def _setup(
    white: EngineSpec, black: EngineSpec, opening: Opening, tc: TimeControl, n: int
) -> GameSetup:
    rules = GameRules(max_plies=MAX_PLIES)
    return GameSetup(white.player(), black.player(), opening, tc, rules, round=str(n))


def play_game(
    white: EngineSpec, black: EngineSpec, opening: Opening, tc: TimeControl
) -> GameRecord:
    """One game; the runner's wall clock decides losses on time."""
    return play_setup(_setup(white, black, opening, tc, 1))


def play_match(
    first: EngineSpec,
    second: EngineSpec,
    openings: list[Opening],
    tc: TimeControl,
    workers: int = 2,
    pgn_path: str | Path | None = None,
    progress: bool = True,
) -> MatchResult:
    """Each opening twice with colours reversed; games in ``workers`` processes.
    ``IncompleteTournament`` if games were given up, ``PlayerFailed`` if one of our
    in-process players raised (traceback in ``error.txt`` beside ``pgn_path``, or in
    the working directory)."""
    setups = {}
    for i, opening in enumerate(openings):
        setups[2 * i] = _setup(first, second, opening, tc, 2 * i + 1)
        setups[2 * i + 1] = _setup(second, first, opening, tc, 2 * i + 2)
    result = MatchResult(first.name, second.name)
    pgn_file = open(pgn_path, "a", encoding="utf-8") if pgn_path else None  # noqa: SIM115

    def on_done(_: int, game: GameRecord) -> None:
        result.games.append(game)
        if pgn_file:
            pgn_file.write(game.pgn + "\n\n")
            pgn_file.flush()
        if progress:
            print(
                f"[{len(result.games)}/{len(setups)}] {game.white} - {game.black} "
                f"{game.result} ({game.termination}); {result.score().describe()}",
                flush=True,
            )

    try:
        given_up = run_games(setups, workers, on_done)
    except PlayerFailed as exc:
        raise exc.saved_in(Path(pgn_path).parent if pgn_path else Path()) from None
    finally:
        if pgn_file:
            pgn_file.close()
    if given_up:
        raise IncompleteTournament(len(given_up), len(setups), "of the match", "play it again")
    return result
