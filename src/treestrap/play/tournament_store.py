"""A tournament's run directory, as every tournament keeps it (engines' and in-process
players'): ``results.sqlite`` (:class:`~treestrap.play.results_db.ResultsDB`: the
config and each game as it ends) and ``games.pgn``, rewritten from the database on
resume, so ``treestrap rate`` reads any tournament alike and a killed run resumes.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from tqdm import tqdm

from treestrap.games.registry import DEFAULT_GAME
from treestrap.play.errors import IncompleteTournament
from treestrap.play.forfeits import format_forfeits
from treestrap.play.results_db import ResultsDB, StoredGame
from treestrap.play.sprt_match import SprtWatch
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
