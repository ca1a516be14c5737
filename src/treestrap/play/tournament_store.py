"""A tournament's run directory, as every tournament keeps it (engines' and in-process
players'): ``results.sqlite`` (:class:`~treestrap.play.results_db.ResultsDB`: the
config and each game as it ends) and ``games.pgn``, rewritten from the database on
resume, so ``treestrap rate`` reads any tournament alike and a killed run resumes.

The stored config fixes the schedule (:mod:`treestrap.play.schedule`), so a store
says how many of its games are played (:func:`stored_schedule`); everything that rates
a store refuses one with games left to play (:func:`check_rated`) unless told to rate
what is there, and then says what the ratings rest on (:func:`rests_on`).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from tqdm import tqdm

from treestrap.games.registry import DEFAULT_GAME
from treestrap.play.errors import IncompleteTournament, UnfinishedTournament
from treestrap.play.forfeits import format_forfeits
from treestrap.play.results_db import ResultsDB, StoredGame
from treestrap.play.schedule import FORMATS, ROUND_ROBIN, schedule
from treestrap.play.sprt_match import SprtWatch
from treestrap.rating.gsprt import parse_gsprt
from treestrap.rating.results import DB_NAME
from treestrap.rating.standings import Standing, format_standings, standings

PGN_NAME = "games.pgn"

C = TypeVar("C")


@dataclass
class TournamentResult:
    run_dir: Path
    players: list[str]  # names, in the config's order
    games: list[StoredGame]  # every stored game, by id
    standings: list[Standing]
    given_up: list[int] = field(default_factory=list)  # ids whose games could not be played
    sprt: SprtWatch | None = None  # the test's final state, for a match under an SPRT
    scheduled: int = 0  # games in the schedule (0: not known)

    @property
    def db_path(self) -> Path:
        return self.run_dir / DB_NAME

    def require_complete(self, remedy: str | None = None) -> TournamentResult:
        """This result, if no game was given up; else ``IncompleteTournament``, whose
        message ends with ``remedy`` (default: how ``--resume`` replays them)."""
        if not self.given_up:
            return self
        scheduled = self.scheduled or len(self.games) + len(self.given_up)
        hint = remedy or f"treestrap tournament --resume {self.run_dir} replays them"
        raise IncompleteTournament(len(self.given_up), scheduled, f"in {self.run_dir}", hint)

    def forfeits(self) -> str:
        """``forfeits: N (REASON COUNT, ...)`` of the stored games."""
        return format_forfeits(g.termination for g in self.games)

    @property
    def pgn_path(self) -> Path:
        return self.run_dir / PGN_NAME


def config_json(data: dict[str, Any]) -> str:
    """A tournament config's stored text from its fields (``dataclasses.asdict``)."""
    if data.get("sprt") is None:
        data.pop("sprt", None)  # so a config without one is stored as before it existed
    return json.dumps(data, sort_keys=True)


def config_from_json(
    cls: Callable[..., C], text: str, what: str, prepare: Callable[[dict[str, Any]], None]
) -> C:
    """The config ``cls`` whose fields ``text`` holds, after ``prepare`` rebuilds those
    that are not plain values (it raises ``TypeError`` for a field that is wrong);
    ``ValueError`` naming ``what`` the text should be if it is not one."""
    try:
        data = json.loads(text)
        prepare(data)
        return cls(**data)
    except (TypeError, AttributeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not {what} ({exc})") from None


def stored_config(run_dir: str | Path) -> str:
    """The config JSON of the tournament stored in ``run_dir``; ``ValueError`` if there
    is none, or the database is not one this build reads."""
    try:
        with ResultsDB.open(run_dir) as db:
            return db.config_json()
    except FileNotFoundError:
        raise ValueError(f"no tournament in {run_dir} ({DB_NAME} not found)") from None
    except sqlite3.DatabaseError as exc:  # garbage or a damaged file: bad input
        raise ValueError(f"{run_dir}: not a tournament database ({exc})") from None


def stored_game_kind(run_dir: str | Path) -> str | None:
    """The game of the tournament stored in ``run_dir`` (a run directory or its
    ``results.sqlite``), None where there is none to read."""
    path = Path(run_dir)
    path = path / DB_NAME if path.is_dir() else path
    if not path.is_file():
        return None
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        finally:
            conn.close()
        data = json.loads(row[0]) if row else {}
    except (sqlite3.Error, json.JSONDecodeError):
        return None
    if isinstance(data, dict) and isinstance(data.get("game"), str):
        return str(data["game"])
    return DEFAULT_GAME  # an engine tournament's config names no game


@dataclass(frozen=True)
class StoredSchedule:
    """How much of a stored tournament's schedule is played."""

    run_dir: Path
    played: int  # stored games of the schedule
    scheduled: int
    decided: bool = False  # a match its SPRT decided: the games left are not needed

    @property
    def complete(self) -> bool:
        return self.decided or self.played >= self.scheduled

    @property
    def missing(self) -> int:
        """Games of the schedule still to play (0 for a complete tournament)."""
        return 0 if self.complete else self.scheduled - self.played


#: The first bytes of every SQLite database file.
_SQLITE_MAGIC = b"SQLite format 3\x00"


def _store_file(source: str | Path) -> Path | None:
    """The results database behind a rater's source: a run directory's, a database
    itself, or the one beside a run's ``games.pgn``; None for anything else."""
    path = Path(source)
    if path.is_dir():
        path = path / DB_NAME
    elif path.name == PGN_NAME and (path.parent / DB_NAME).is_file():
        path = path.parent / DB_NAME
    try:
        with open(path, "rb") as fh:
            return path if fh.read(len(_SQLITE_MAGIC)) == _SQLITE_MAGIC else None
    except OSError:
        return None


def stored_schedule(source: str | Path) -> StoredSchedule | None:
    """The schedule of the tournament stored at ``source`` (a run directory, its
    ``results.sqlite`` or its ``games.pgn``) and the games of it played; None where
    there is no schedule to count (a PGN file of its own, a games table without a
    tournament config, a file that is no database: its reader says so)."""
    db = _store_file(source)
    if db is None:
        return None
    try:
        conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
            games = conn.execute("SELECT id, white, black, result FROM games").fetchall()
        finally:
            conn.close()
        config = json.loads(row[0]) if row else None
    except (sqlite3.Error, json.JSONDecodeError):
        return None
    if not isinstance(config, dict):
        return None
    players, form = config.get("players"), config.get("format", ROUND_ROBIN)
    per_pair = config.get("games_per_pair", 2)
    if not isinstance(players, list) or len(players) < 2 or form not in FORMATS:
        return None
    if not isinstance(per_pair, int) or per_pair < 2:
        return None
    # The schedule without its openings: which players meet, in id order.
    pairings = schedule(form, len(players), [None] * (per_pair // 2))
    played = [(i, w, b, r) for i, w, b, r in games if isinstance(i, int) and 0 <= i < len(pairings)]
    decided = False
    sprt = config.get("sprt")
    if isinstance(sprt, str) and played and len(played) < len(pairings):
        decided = _sprt_decided(sprt, pairings, played)
    return StoredSchedule(db.parent, len(played), len(pairings), decided)


def _sprt_decided(sprt: str, pairings: list[Any], games: list[tuple[int, str, str, str]]) -> bool:
    """Whether a match's SPRT has decided on ``games`` (a match stops once it does)."""
    try:
        test = parse_gsprt(sprt)
    except ValueError:
        return False
    i, white, black, _ = games[0]
    first = white if pairings[i].first == 0 else black  # the player under test
    watch = SprtWatch(test, first, [str(p.round) for p in pairings])
    for game_id, white, _, result in sorted(games):
        watch.add(game_id, white, result)
    return watch.decided


def resume_hint(run_dir: Path) -> str:
    """How to finish a stored tournament: its command again, which resumes it."""
    return (
        f"finish it with treestrap tournament --resume {run_dir} (or the command that "
        "began it, run again)"
    )


def check_rated(
    sources: Iterable[str | Path], partial: bool, flag: str = "--partial"
) -> list[StoredSchedule]:
    """For a rater of ``sources``: the stored tournaments among them with games left to
    play. Without ``partial``, the first one is refused (``UnfinishedTournament``,
    naming ``flag``, which rates it anyway); with it they are returned, for the
    :func:`rests_on` line."""
    stores = {s.run_dir.resolve(): s for s in map(stored_schedule, sources) if s is not None}
    incomplete = [s for s in stores.values() if not s.complete]  # each store once
    if incomplete and not partial:
        first = incomplete[0]
        remedy = f"{resume_hint(first.run_dir)}, or rate the games played with {flag}"
        raise UnfinishedTournament(str(first.run_dir), first.played, first.scheduled, remedy)
    return incomplete


def rests_on(rated: int, incomplete: list[StoredSchedule]) -> str:
    """The first line of ratings from incomplete tournaments: ``rests on N of M
    games`` (``rated`` games, and the scheduled ones not played), and where."""
    missing = sum(s.missing for s in incomplete)
    where = "; ".join(f"{s.run_dir}: {s.played} of {s.scheduled} played" for s in incomplete)
    return f"rests on {rated} of {rated + missing} games (incomplete: {where})"


def check_unused(run_dir: Path) -> None:
    """``ValueError`` if ``run_dir`` already holds a tournament (a new run must not mix
    its games with another's)."""
    if (run_dir / DB_NAME).exists():
        raise ValueError(
            f"{run_dir} already holds a tournament ({DB_NAME}): finish it with "
            f"--resume {run_dir}, or choose another output directory"
        )


def open_run(run_dir: Path, config_json: str, resume: bool) -> set[int]:
    """The database of a new run (with ``config_json``) or of the one resumed, and
    ``games.pgn`` anew from it; returns the ids already stored."""
    with ResultsDB.open(run_dir) if resume else ResultsDB.create(run_dir, config_json) as db:
        stored = db.games()
    write_pgn(run_dir / PGN_NAME, stored)
    return {g.id for g in stored}


@contextlib.contextmanager
def naming(path: Path) -> Iterator[None]:
    """Re-raise an ``OSError`` of the block (a full disk names no file) naming ``path``."""
    try:
        yield
    except OSError as exc:
        if exc.errno is None or exc.filename == str(path):
            raise
        raise OSError(exc.errno, exc.strerror, str(path)) from exc


def write_pgn(path: Path, games: list[StoredGame]) -> None:
    """``games.pgn`` anew from the database, so it holds exactly the stored games (a
    game a kill or a full disk kept from it, or tore, comes back on resume)."""
    tmp = path.with_name(path.name + ".tmp")
    with naming(path):
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                for game in sorted(games, key=lambda g: (g.finished_at, g.id)):
                    fh.write(game.pgn + "\n\n")
            tmp.replace(path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise


def store_game(run_dir: Path, game: StoredGame) -> None:
    """One finished game into the database, then ``games.pgn``: the database is the
    record, and resuming rewrites the PGN from it, so a kill or a full disk between the
    two loses nothing."""
    with ResultsDB.open(run_dir) as db:
        db.add_game(game)
    with naming(run_dir / PGN_NAME), open(run_dir / PGN_NAME, "a", encoding="utf-8") as fh:
        fh.write(game.pgn + "\n\n")


class GameRecorder:
    """What every tournament does as each of its games ends: store it
    (:func:`store_game`), move the progress bar, print the standings every
    ``standings_every`` games (0: never) and count it for the SPRT ``watch``, if any."""

    def __init__(
        self,
        run_dir: Path,
        names: list[str],
        scheduled: int,
        played: int,
        progress: bool,
        watch: SprtWatch | None = None,
        standings_every: int = 0,
    ) -> None:
        self.run_dir, self.names, self.scheduled = run_dir, names, scheduled
        self.played, self.progress, self.watch = played, progress, watch
        self.standings_every = standings_every
        self.bar = tqdm(total=scheduled, initial=played, unit="game", disable=not progress)

    def add(self, game: StoredGame) -> bool:
        """Record one finished game; whether the SPRT has now decided the match."""
        store_game(self.run_dir, game)
        self.played += 1
        self.bar.set_postfix_str(f"{game.white}-{game.black} {game.result}", refresh=False)
        self.bar.update(1)
        every = self.standings_every
        if self.progress and every and self.played < self.scheduled and self.played % every == 0:
            with ResultsDB.open(self.run_dir) as db:
                results = db.results()
            tqdm.write(format_standings(standings(self.names, results)))
        watch = self.watch
        if watch is None or watch.add(game.id, game.white, game.result) is None:
            return False
        if self.progress:
            tqdm.write(watch.line())
        return watch.decided

    def close(self) -> None:
        self.bar.close()


def final_result(
    run_dir: Path,
    names: list[str],
    scheduled: int,
    progress: bool,
    given_up: list[int] | None = None,
    watch: SprtWatch | None = None,
) -> TournamentResult:
    """Every stored game with the standings of ``names`` (printed with the forfeits
    when ``progress``)."""
    with ResultsDB.open(run_dir) as db:
        games = db.games()
    table = standings(names, ((g.white, g.black, g.result) for g in games))
    result = TournamentResult(run_dir, names, games, table, given_up or [], watch, scheduled)
    if progress:
        tqdm.write(format_standings(table))
        tqdm.write(result.forfeits())
    return result
