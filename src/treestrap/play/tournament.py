"""Engine tournaments: a round robin or a gauntlet, each opening played with both colours.

The schedule (:mod:`treestrap.play.schedule`) is a pure function of the config: for
each of ``games_per_pair / 2`` openings (picked from the book with the seed), every pair
plays it twice with colours reversed. A game's id is its index in that schedule, so a
resumed run plays exactly the ids missing from ``results.sqlite``
(:mod:`treestrap.play.tournament_store`).

Games run in worker processes (:mod:`treestrap.play.gamepool`), or wherever the
runner set by :func:`~treestrap.play.gamepool.games_run_by` plays them (Ray tasks);
the main process alone writes results, each game to the database and ``games.pgn`` as it ends,
with a progress bar and the standings every few games.

A tournament with games given up (their worker died, or the game loop failed, too
often) is incomplete: :meth:`TournamentResult.require_complete` raises
:class:`~treestrap.play.errors.IncompleteTournament`, and everything that makes a table
from a tournament calls it first. One of our players that fails (an in-process one, or
our engine as a UCI subprocess: :mod:`treestrap.play.game`) stops the run: its
traceback goes to ``RUN_DIR/error.txt`` and :class:`~treestrap.play.errors.PlayerFailed`
names the file. A stored run with games of its schedule unplayed is not rated either
(:func:`~treestrap.play.tournament_store.check_rated`).

A match of two players may run under an SPRT (``sprt``, see
:mod:`treestrap.play.sprt_match`): it then stops as soon as the test decides, and a
resumed match counts its pairs from the stored games first.
"""

from __future__ import annotations

import dataclasses
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from treestrap.play.adjudication import Adjudication
from treestrap.play.errors import ERROR_FILE, PlayerFailed
from treestrap.play.game import GameRecord, GameRules, GameSetup
from treestrap.play.gamepool import current_runner
from treestrap.play.openings import load_openings, pick_openings
from treestrap.play.players import PlayerSpec, parse_player, parse_players
from treestrap.play.results_db import ResultsDB, StoredGame, now
from treestrap.play.schedule import ROUND_ROBIN, check_schedule, schedule
from treestrap.play.sessions import check_player
from treestrap.play.sprt_match import MatchDecided, SprtWatch, check_sprt, resumed_watch
from treestrap.play.timecontrol import TimeControl, parse_time_control
from treestrap.play.tournament_store import (
    GameRecorder,
    TournamentResult,
    check_unused,
    config_from_json,
    config_json,
    final_result,
    open_run,
    stored_config,
)
from treestrap.rating.results import DB_NAME

#: Standings are printed after every this many games (and at the end).
STANDINGS_EVERY = 10


@dataclass
class TournamentConfig:
    """Everything that defines a tournament; stored as JSON in its database."""

    players: list[str]  # player specs (see treestrap.play.players)
    format: str = ROUND_ROBIN
    games_per_pair: int = 2  # even: half as many openings, each with both colours
    openings: str | None = None  # None: the built-in book; else a .pgn/.tsv/.epd/.bin file
    seed: int = 1
    tc: str | TimeControl = "depth=3"
    adjudication: Adjudication = field(default_factory=Adjudication)
    max_plies: int = 400
    finish_with: str | None = None  # a player spec that finishes games at max_plies
    finish_tc: str | TimeControl = "depth=6"
    finish_plies: int = 200
    move_timeout: float = 60.0  # seconds per move under a depth or node limit
    workers: int = 2
    event: str = "treestrap tournament"
    # A two-player match stops when this SPRT decides (treestrap.rating.gsprt's
    # ``elo0=..,elo1=..`` text); None plays every scheduled game.
    sprt: str | None = None
    # Time odds: a player's name -> its own time control, of the same kind as ``tc``
    # (a clock, or a depth or node limit); the others play at ``tc``.
    player_tcs: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> str:
        data = dataclasses.asdict(self)
        data["tc"] = _tc(self.tc).text()
        data["player_tcs"] = {name: _tc(tc).text() for name, tc in self.player_tcs.items()}
        data["finish_tc"] = _tc(self.finish_tc).text()
        return config_json(data)

    @classmethod
    def from_json(cls, text: str) -> TournamentConfig:
        """The config :meth:`to_json` wrote; ``ValueError`` if it is not one."""

        def prepare(data: dict[str, Any]) -> None:
            data["adjudication"] = Adjudication(**data.get("adjudication", {}))

        return config_from_json(cls, text, "a tournament config", prepare)

    def check(self) -> None:
        """``ValueError`` for a config that cannot make a tournament."""
        check_schedule(len(self.players), self.format, self.games_per_pair)
        if self.workers < 1:
            raise ValueError(f"workers must be >= 1, got {self.workers}")
        if self.max_plies < 1 or self.finish_plies < 1:
            raise ValueError("max_plies and finish_plies must be >= 1")
        if not self.move_timeout > 0:
            raise ValueError(f"move timeout must be positive, got {self.move_timeout}")
        _tc(self.tc)
        _tc(self.finish_tc)
        check_sprt(self.sprt, len(self.players))
        for name, text in self.player_tcs.items():
            if _tc(text).is_clock != _tc(self.tc).is_clock:
                raise ValueError(
                    f"player {name}'s time control {text} is not of the kind of --tc "
                    f"{_tc(self.tc).describe()}: time odds pair clocks with clocks, "
                    "limits with limits"
                )


def _tc(tc: str | TimeControl) -> TimeControl:
    return tc if isinstance(tc, TimeControl) else parse_time_control(tc)


@dataclass
class TournamentPlan:
    """The parsed players and every game of the schedule; a game's id is its index."""

    players: list[PlayerSpec]
    finisher: PlayerSpec | None
    games: list[GameSetup]  # ``round`` holds the opening's number, 1 up


def plan_tournament(config: TournamentConfig) -> TournamentPlan:
    """The deterministic schedule; ``ValueError`` for bad players or openings."""
    config.check()
    players = parse_players(config.players)
    finisher = parse_player(config.finish_with) if config.finish_with else None
    rules = GameRules(
        adjudication=config.adjudication,
        max_plies=config.max_plies,
        finisher=finisher,
        finish_tc=_tc(config.finish_tc),
        finish_plies=config.finish_plies,
        move_timeout=config.move_timeout,
    )
    tc = _tc(config.tc)
    player_tcs = _player_tcs(config.player_tcs, players)
    openings = pick_openings(
        load_openings(config.openings), config.games_per_pair // 2, config.seed
    )
    games = [
        GameSetup(
            players[g.first],
            players[g.second],
            g.opening,
            tc,
            rules,
            config.event,
            str(g.round),
            player_tcs,
        )
        for g in schedule(config.format, len(players), openings)
    ]
    return TournamentPlan(players, finisher, games)


def _player_tcs(given: dict[str, str], players: list[PlayerSpec]) -> dict[str, TimeControl]:
    """The time odds by player name; ``ValueError`` for a name no player has."""
    names = [p.name for p in players]
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise ValueError(
            f"time odds for {', '.join(unknown)}: no such player (the players: {', '.join(names)})"
        )
    return {name: _tc(text) for name, text in given.items()}


def load_config(run_dir: str | Path) -> TournamentConfig:
    """The config of the tournament stored in ``run_dir``; ``ValueError`` if there is
    none, or the database is not one this build reads."""
    return TournamentConfig.from_json(stored_config(run_dir))


def _done_ids(
    config: TournamentConfig, plan: TournamentPlan, run_dir: Path, resume: bool
) -> set[int]:
    """Ids already played; checks that ``run_dir`` fits a new run or a resumed one."""
    if not resume:
        check_unused(run_dir)
        return set()
    if _without_workers(load_config(run_dir)) != _without_workers(config):
        raise ValueError(
            f"the config differs from the one stored in {run_dir}: resume with the stored one"
        )
    with ResultsDB.open(run_dir) as db:
        stored = db.games()
    _check_stored(stored, plan, run_dir)
    return {g.id for g in stored}


def check_resumed_players(
    stored: list[str],
    given: list[str],
    run_dir: str | Path,
    parse: Callable[[list[str]], Sequence[object]],
) -> None:
    """``ValueError`` showing both lists unless the players ``given`` on the command
    line start the same engines as those ``stored`` in ``run_dir`` (a resumed run
    starts the stored commands: a database from elsewhere must not choose them)."""
    if parse(given) == parse(stored):
        return
    raise ValueError(
        f"the players given differ from those stored in {Path(run_dir) / DB_NAME}; "
        "--resume plays only the stored ones:\n"
        f"  stored: {' '.join(shlex.quote(p) for p in stored)}\n"
        f"  given:  {' '.join(shlex.quote(p) for p in given)}"
    )


def _without_workers(config: TournamentConfig) -> str:
    return dataclasses.replace(config, workers=1).to_json()


def _check_stored(stored: list[StoredGame], plan: TournamentPlan, run_dir: Path) -> None:
    """Stored games must be the scheduled ones (not if the book or players changed)."""
    for game in stored:
        expected = plan.games[game.id] if 0 <= game.id < len(plan.games) else None
        if expected is None or (game.white, game.black, game.opening) != (
            expected.white.name,
            expected.black.name,
            expected.opening.name,
        ):
            raise ValueError(
                f"game {game.id} in {run_dir / DB_NAME} does not match the schedule "
                "(did the players or the opening file change?)"
            )


def run_tournament(
    config: TournamentConfig,
    run_dir: str | Path,
    resume: bool = False,
    progress: bool = True,
) -> TournamentResult:
    """Play the tournament (with ``resume``: only the games ``run_dir`` lacks) and
    return every stored game with the standings. ``ValueError`` before any game for
    a bad config or player, or a ``run_dir`` that does not fit ``resume``."""
    run_dir = Path(run_dir)
    plan = plan_tournament(config)
    done = _done_ids(config, plan, run_dir, resume)
    watch = resumed_watch(
        config.sprt,
        plan.players[0].name,
        [g.round for g in plan.games],
        run_dir if resume else None,
    )
    missing = {i: setup for i, setup in enumerate(plan.games) if i not in done}
    if watch is not None and watch.pairs and progress:
        tqdm.write(f"stored games: {watch.line()}")
    if watch is not None and watch.decided:
        missing = {}  # decided before it was stopped: nothing more to play
    # Start every player once now, so a bad one fails before any game.
    needed = list(
        {spec.name: spec for s in missing.values() for spec in (s.white, s.black)}.values()
    )
    if plan.finisher is not None and missing:
        needed.append(plan.finisher)
    for spec in needed:
        check_player(spec)
    open_run(run_dir, config.to_json(), resume)
    (run_dir / ERROR_FILE).unlink(missing_ok=True)  # a failure before this run's is gone
    try:
        given_up = _play(config, plan, missing, run_dir, progress, watch)
    except PlayerFailed as exc:
        raise exc.saved_in(run_dir) from None
    names = [p.name for p in plan.players]
    return final_result(run_dir, names, len(plan.games), progress, given_up, watch)


def _play(
    config: TournamentConfig,
    plan: TournamentPlan,
    missing: dict[int, GameSetup],
    run_dir: Path,
    progress: bool,
    watch: SprtWatch | None = None,
) -> list[int]:
    """Play the missing games, storing each as it ends, until ``watch``'s SPRT (if any)
    decides; returns the ids given up."""
    names = [p.name for p in plan.players]
    total = len(plan.games)
    recorder = GameRecorder(
        run_dir, names, total, total - len(missing), progress, watch, STANDINGS_EVERY
    )

    def on_done(game_id: int, record: GameRecord) -> None:
        game = StoredGame(
            game_id,
            int(plan.games[game_id].round),
            record.white,
            record.black,
            record.opening,
            record.result,
            record.termination,
            record.plies,
            record.pgn,
            now(),
        )
        if recorder.add(game):
            assert watch is not None and watch.result is not None
            raise MatchDecided(watch.result)

    def on_problem(message: str) -> None:
        tqdm.write(f"warning: {message}", file=sys.stderr)

    try:
        return current_runner()(missing, config.workers, on_done, on_problem)
    except MatchDecided:
        return []  # the runner stopped the games in flight; they are not needed
    finally:
        recorder.close()
