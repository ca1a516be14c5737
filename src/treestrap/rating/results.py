"""Game results as the ratings read them: ``(white, black, result)`` records from PGN
files and from a tournament's ``results.sqlite``, and that database's format version.

The tournament writer (:mod:`treestrap.play.results_db`) sits above this layer and
takes the version and its check from here, so writer and reader always agree.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from treestrap.textcheck import NOT_TEXT_HINT, SNIFF_BYTES, looks_like_text

#: ``(white, black, result)`` with result ``"1-0"``, ``"0-1"`` or ``"1/2-1/2"``.
GameResult = tuple[str, str, str]
#: A :data:`GameResult` with its round: the ``round`` column of ``results.sqlite`` (a
#: tournament's opening number) or the PGN Round tag; ``""`` where there is none.
RoundResult = tuple[str, str, str, str]

RESULTS = ("1-0", "0-1", "1/2-1/2")

#: The version of ``results.sqlite`` this build reads: its ``meta`` table's
#: ``format_version`` row, where one is written (a database without it is version 1).
RESULTS_FORMAT_VERSION = 1
#: A tournament's results database, in its run directory.
DB_NAME = "results.sqlite"


def read_pgn_results(path: str | Path) -> list[GameResult]:
    """White, Black and Result of every finished game in a PGN file (headers only)."""
    return [game[:3] for game in read_pgn_rounds(path)]


def read_pgn_rounds(path: str | Path) -> list[RoundResult]:
    """:func:`read_pgn_results` with each game's Round tag, in file order."""
    import chess.pgn  # only here: reading PGN is the one use of python-chess

    games: list[RoundResult] = []
    try:
        with open(path, "rb") as raw:
            head = raw.read(SNIFF_BYTES)
        if not looks_like_text(head):
            raise ValueError(f"{path}: not a PGN text file ({NOT_TEXT_HINT})")
        with open(path, encoding="utf-8-sig", errors="replace") as handle:
            number = 0
            while (headers := chess.pgn.read_headers(handle)) is not None:
                number += 1
                result = headers.get("Result", "*")
                if result == "*":
                    continue  # unfinished
                if result not in RESULTS:
                    raise ValueError(f"{path}: game {number}: unknown result {result!r}")
                white, black = headers.get("White", "?"), headers.get("Black", "?")
                games.append((white, black, result, headers.get("Round", "")))
    except OSError as exc:
        raise ValueError(f"cannot read PGN file {path}: {exc.strerror or exc}") from None
    return games


def read_db_results(path: str | Path) -> list[GameResult]:
    """Finished games from a tournament's SQLite file (table ``games``)."""
    return [game[:3] for game in read_db_rounds(path)]


def read_db_rounds(path: str | Path) -> list[RoundResult]:
    """:func:`read_db_results` with each game's round, by game id."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no such database file: {path}")
    try:
        # Read-only, so a wrong path never leaves an empty database behind.
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            check_results_version(conn, path)
            columns = {row[1] for row in conn.execute("PRAGMA table_info(games)")}
            # A games table written by hand may have no round column.
            round_column = "round" if "round" in columns else "''"
            rows = conn.execute(
                f"SELECT white, black, result, {round_column} FROM games ORDER BY id"
            ).fetchall()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise ValueError(f"cannot read games from {path}: {exc}") from None
    games: list[RoundResult] = []
    for white, black, result, round_ in rows:
        if result == "*":
            continue
        if result not in RESULTS:
            raise ValueError(f"{path}: unknown result {result!r} ({white} - {black})")
        games.append((str(white), str(black), str(result), "" if round_ is None else str(round_)))
    return games


def check_results_version(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a results database of another format version, naming both versions."""
    has_meta = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
    ).fetchone()
    if not has_meta:
        return  # a bare games table (written by hand or another tool): read as it is
    row = conn.execute("SELECT value FROM meta WHERE key = 'format_version'").fetchone()
    version = str(row[0]) if row else str(RESULTS_FORMAT_VERSION)
    if version != str(RESULTS_FORMAT_VERSION):
        raise ValueError(
            f"{path}: results format version {version}, this build reads version "
            f"{RESULTS_FORMAT_VERSION} (written by another treestrap)"
        )


def load_results(source: str | Path) -> list[GameResult]:
    """Games from a PGN file, an SQLite file, or a tournament run directory."""
    return [game[:3] for game in load_round_results(source)]


def load_round_results(source: str | Path) -> list[RoundResult]:
    """:func:`load_results` with each game's round, in stored order."""
    path = Path(source)
    if path.is_dir():
        db = path / DB_NAME
        if not db.is_file():
            raise ValueError(f"{path} is a directory without {DB_NAME}")
        return read_db_rounds(db)
    if not path.exists():
        raise ValueError(f"no such file: {path}")
    if path.suffix.lower() in (".sqlite", ".sqlite3", ".db"):
        return read_db_rounds(path)
    try:
        with open(path, "rb") as handle:
            magic = handle.read(16)
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    if magic == b"SQLite format 3\x00":
        return read_db_rounds(path)
    return read_pgn_rounds(path)
