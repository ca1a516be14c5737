"""A tournament's results on disk: ``RUN_DIR/results.sqlite``.

Two tables: ``meta`` (``config`` -> the tournament config as JSON, ``format_version``
-> :data:`~treestrap.rating.results.RESULTS_FORMAT_VERSION`) and ``games``, one
row per finished game, written and committed as each game ends, so a killed run
loses only the games in progress. ``games.id`` is the game's index in the
tournament's deterministic schedule, so a resumed run knows which games are missing.
Only the tournament's main process writes, opening the database for each write (no
connection is held open while worker processes are started: SQLite connections must
not cross a fork); readers (``treestrap rate``) may read at any time.
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# rating/ is the lower layer and reads these files too (``treestrap rate``): the file
# name, the version and its check live there, so both sides agree on them.
from treestrap.rating.results import DB_NAME, RESULTS_FORMAT_VERSION, check_results_version

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE games (id INTEGER PRIMARY KEY, round INTEGER, white TEXT NOT NULL,
  black TEXT NOT NULL, opening TEXT, result TEXT NOT NULL, termination TEXT,
  plies INTEGER, pgn TEXT, finished_at TEXT);
"""

_COLUMNS = "id, round, white, black, opening, result, termination, plies, pgn, finished_at"


@dataclass(frozen=True)
class StoredGame:
    id: int
    round: int
    white: str
    black: str
    opening: str
    result: str
    termination: str
    plies: int
    pgn: str
    finished_at: str


class ResultsDB:
    """The open database of one run directory."""

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self.conn = connection
        self.path = path

    @classmethod
    def create(cls, run_dir: str | Path, config_json: str) -> ResultsDB:
        """A new database; ``FileExistsError`` if the run directory already has one.

        It is built under a temporary name and renamed into place, so a kill never
        leaves a database without its config (which neither a new run nor ``--resume``
        could use)."""
        path = Path(run_dir) / DB_NAME
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            raise FileExistsError(path)
        tmp = path.with_name(f".{DB_NAME}.tmp")
        journal = tmp.with_name(tmp.name + "-journal")
        with _writing(path):
            try:
                for leftover in (tmp, journal):  # of a creation that was killed
                    leftover.unlink(missing_ok=True)
                conn = sqlite3.connect(tmp)
                try:
                    with conn:
                        conn.executescript(SCHEMA)
                        conn.execute(
                            "INSERT INTO meta (key, value) VALUES ('config', ?), "
                            "('format_version', ?)",
                            (config_json, str(RESULTS_FORMAT_VERSION)),
                        )
                finally:
                    conn.close()
                tmp.replace(path)
            except BaseException:
                tmp.unlink(missing_ok=True)
                raise
        return cls(sqlite3.connect(path), path)

    @classmethod
    def open(cls, run_dir: str | Path) -> ResultsDB:
        """An existing database; ``FileNotFoundError`` if there is none,
        ``ValueError`` if it is of another format version, ``sqlite3.DatabaseError``
        if it is not a database."""
        path = Path(run_dir) / DB_NAME
        if not path.is_file():
            raise FileNotFoundError(path)
        conn = sqlite3.connect(path)
        try:
            # Before anything reads or adds a game: another version may mean other rows.
            check_results_version(conn, path)
        except BaseException:
            conn.close()
            raise
        return cls(conn, path)

    def config_json(self) -> str:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        if row is None:
            raise ValueError(f"{self.path} holds no tournament config")
        return str(row[0])

    def add_game(self, game: StoredGame) -> None:
        """Store one finished game and commit (an id stored twice is an error)."""
        with _writing(self.path), self.conn:
            self.conn.execute(
                f"INSERT INTO games ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game.id,
                    game.round,
                    game.white,
                    game.black,
                    game.opening,
                    game.result,
                    game.termination,
                    game.plies,
                    game.pgn,
                    game.finished_at,
                ),
            )

    def games(self) -> list[StoredGame]:
        rows = self.conn.execute(f"SELECT {_COLUMNS} FROM games ORDER BY id").fetchall()
        return [StoredGame(*row) for row in rows]

    def results(self) -> list[tuple[str, str, str]]:
        """``(white, black, result)`` of every stored game, by id."""
        rows = self.conn.execute("SELECT white, black, result FROM games ORDER BY id").fetchall()
        return [(str(w), str(b), str(r)) for w, b, r in rows]

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> ResultsDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: SQLite's errors for a file it cannot write, as the operating system's. The
#: message of a full disk is the system's; for the others SQLite's own says more.
_SQLITE_ERRNOS = {"SQLITE_FULL": errno.ENOSPC, "SQLITE_READONLY": errno.EROFS}


@contextlib.contextmanager
def _writing(path: Path) -> Iterator[None]:
    """Re-raise SQLite's "disk full", "read-only" and I/O errors as an ``OSError``
    naming ``path``, which the command line reports as it does any file it cannot
    write (the transaction has been rolled back: the database is as before)."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        name = getattr(exc, "sqlite_errorname", "")
        code = next((n for prefix, n in _SQLITE_ERRNOS.items() if name.startswith(prefix)), None)
        if code is None and not name.startswith(("SQLITE_IOERR", "SQLITE_CANTOPEN")):
            raise
        reason = os.strerror(code) if code == errno.ENOSPC else str(exc)
        raise OSError(code or errno.EIO, reason, str(path)) from exc


def now() -> str:
    """A ``finished_at`` timestamp: UTC, ISO 8601, to the second."""
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
