"""Opening lines to start games from: a small built-in book, or lines read from a
PGN/TSV/EPD file (``reference/openings`` has ECO and lichess collections) or
walked through a Polyglot ``.bin`` book.

A line is a starting FEN plus moves in SAN. Every opening of a match is played twice
with colours reversed, so the book only needs to give variety, not balance.

A book is read strictly: an illegal move, a broken FEN, a UTF-16 or binary file, or a
file without a single line is an :class:`OpeningFileError` naming the file and the game
or line (a wrong line would quietly change what is played). A cut last game is used as
far as it goes.
"""

from __future__ import annotations

import csv
import io
import random
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import chess
import chess.pgn
import chess.polyglot

from treestrap.core.epd import epd_lines
from treestrap.core.notation import parse_fen
from treestrap.textcheck import NOT_TEXT_HINT, SNIFF_BYTES, looks_like_text


@dataclass(frozen=True)
class Opening:
    name: str
    moves: tuple[str, ...]  # SAN from fen
    fen: str = chess.STARTING_FEN

    def board(self) -> chess.Board:
        """The position after the line; ``ValueError`` if a move is illegal."""
        board = chess.Board(self.fen)
        for san in self.moves:
            board.push_san(san)
        return board


#: Common main lines, 4 to 10 plies deep: enough to keep self-play games apart.
_BUILT_IN = """\
Ruy Lopez: e4 e5 Nf3 Nc6 Bb5 a6
Italian Game: e4 e5 Nf3 Nc6 Bc4 Bc5
Two Knights: e4 e5 Nf3 Nc6 Bc4 Nf6
Scotch Game: e4 e5 Nf3 Nc6 d4 exd4
Petrov Defence: e4 e5 Nf3 Nf6 Nxe5 d6
Four Knights: e4 e5 Nf3 Nc6 Nc3 Nf6
King's Gambit: e4 e5 f4 exf4 Nf3 g5
Vienna Game: e4 e5 Nc3 Nf6 f4 d5
Sicilian Najdorf: e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6
Sicilian Dragon: e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 g6
Sicilian Taimanov: e4 c5 Nf3 e6 d4 cxd4 Nxd4 Nc6
Sicilian Alapin: e4 c5 c3 Nf6 e5 Nd5
Closed Sicilian: e4 c5 Nc3 Nc6 g3 g6
French Winawer: e4 e6 d4 d5 Nc3 Bb4
French Advance: e4 e6 d4 d5 e5 c5
French Tarrasch: e4 e6 d4 d5 Nd2 Nf6
Caro-Kann Classical: e4 c6 d4 d5 Nc3 dxe4 Nxe4 Bf5
Caro-Kann Advance: e4 c6 d4 d5 e5 Bf5
Pirc Defence: e4 d6 d4 Nf6 Nc3 g6
Scandinavian: e4 d5 exd5 Qxd5 Nc3 Qa5
Alekhine Defence: e4 Nf6 e5 Nd5 d4 d6
Queen's Gambit Declined: d4 d5 c4 e6 Nc3 Nf6
Queen's Gambit Accepted: d4 d5 c4 dxc4 Nf3 Nf6
Slav Defence: d4 d5 c4 c6 Nf3 Nf6
Semi-Slav: d4 d5 c4 c6 Nf3 Nf6 Nc3 e6
King's Indian: d4 Nf6 c4 g6 Nc3 Bg7 e4 d6
Grunfeld: d4 Nf6 c4 g6 Nc3 d5
Nimzo-Indian: d4 Nf6 c4 e6 Nc3 Bb4
Queen's Indian: d4 Nf6 c4 e6 Nf3 b6
Bogo-Indian: d4 Nf6 c4 e6 Nf3 Bb4+
Benoni: d4 Nf6 c4 c5 d5 e6
Dutch Defence: d4 f5 c4 Nf6 g3 e6
London System: d4 d5 Bf4 Nf6 e3 c5
Catalan: d4 Nf6 c4 e6 g3 d5
English Symmetrical: c4 c5 Nc3 Nc6 g3 g6
English Reversed Sicilian: c4 e5 Nc3 Nf6 g3 d5
Reti Opening: Nf3 d5 c4 e6 g3 Nf6
King's Indian Attack: Nf3 d5 g3 Nf6 Bg2 c6 O-O Bg4
Bird Opening: f4 d5 Nf3 Nf6 e3 g6
Larsen Opening: b3 e5 Bb2 Nc6 e3 d5
"""


def built_in_book() -> list[Opening]:
    """The package's own small book (no files needed)."""
    book = []
    for line in _BUILT_IN.strip().splitlines():
        name, _, moves = line.partition(":")
        book.append(Opening(name.strip(), tuple(moves.split())))
    return book


class OpeningFileError(ValueError):
    """An opening file that cannot be used; the message names the file and says why."""


class _CollectingBuilder(chess.pgn.GameBuilder):
    """Collects PGN errors on the game (python-chess would log them and go on)."""

    def handle_error(self, error: Exception) -> None:
        self.game.errors.append(error)


def _open_text(path: str | Path, newline: str | None = None) -> IO[str]:
    """The file as text. UTF-16 and binary files are refused (their NUL bytes would
    parse as nothing, silently); stray Latin-1 bytes in names become U+FFFD."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(SNIFF_BYTES)
        if not looks_like_text(head):
            raise OpeningFileError(f"{path}: not a text file ({NOT_TEXT_HINT})")
        return open(path, encoding="utf-8-sig", errors="replace", newline=newline)
    except OSError as exc:
        raise OpeningFileError(f"cannot read {path}: {exc.strerror or exc}") from None


def _line_of(path: str | Path, where: str, game: chess.pgn.Game) -> list[str]:
    """The game's mainline in SAN; :class:`OpeningFileError` if it has a broken move
    or FEN (a book with a wrong line would quietly play another opening)."""
    if game.errors:
        raise OpeningFileError(f"{path}: {where}: {game.errors[0]}")
    board, sans = game.board(), []
    for move in game.mainline_moves():
        sans.append(board.san(move))
        board.push(move)
    return sans


def read_lichess_tsv(path: str | Path) -> list[Opening]:
    """Lines of a lichess ``eco<TAB>name<TAB>pgn`` file (header row skipped)."""
    openings = []
    with _open_text(path, newline="") as fh:
        for number, row in enumerate(csv.reader(fh, delimiter="\t"), start=1):
            if not any(cell.strip() for cell in row) or row[0] == "eco":
                continue
            if len(row) < 3:
                raise OpeningFileError(
                    f"{path}: line {number}: expected ECO<TAB>NAME<TAB>MOVES, got {len(row)} "
                    "column(s)"
                )
            game = chess.pgn.read_game(io.StringIO(row[2]), Visitor=_CollectingBuilder)
            if game is None:
                continue
            sans = _line_of(path, f"line {number}", game)
            openings.append(Opening(f"{row[0]} {row[1]}", tuple(sans)))
    return openings


def read_pgn_openings(path: str | Path) -> list[Opening]:
    """Every game of a PGN file as an opening line (e.g. the ECO collection)."""
    openings = []
    with _open_text(path) as fh:
        while (game := chess.pgn.read_game(fh, Visitor=_CollectingBuilder)) is not None:
            sans = _line_of(path, f"game {len(openings) + 1}", game)
            name = " ".join(v for v in (game.headers.get("ECO"), game.headers.get("Opening")) if v)
            openings.append(Opening(name or "?", tuple(sans), game.board().fen()))
    return openings


def read_epd_openings(path: str | Path) -> list[Opening]:
    """One position per line (the first four FEN fields or a full FEN); a line of
    operations alone holds no position and is skipped."""
    openings = []
    with _open_text(path) as fh:
        for line in epd_lines(fh):
            head, number = line.fen_fields, line.line_number
            if not head:
                continue
            fen = " ".join(head[:6]) if len(head) >= 6 else " ".join(head[:4]) + " 0 1"
            try:
                parse_fen(fen)  # what our engine refuses, python-chess may not
            except ValueError as exc:
                raise OpeningFileError(f"{path}: line {number}: {exc}") from None
            openings.append(Opening(f"line {number}", (), chess.Board(fen).fen()))
    return openings


#: Lines walked through a Polyglot book, and their length in plies.
POLYGLOT_LINES = 400
POLYGLOT_PLIES = 8


def read_polyglot_openings(
    path: str | Path, lines: int = POLYGLOT_LINES, plies: int = POLYGLOT_PLIES, seed: int = 0
) -> list[Opening]:
    """Distinct lines of up to ``plies`` moves, each a random walk from the start
    position choosing book moves in proportion to their weights (reproducible by
    ``seed``). A walk stops early where the book has no move."""
    rng = random.Random(seed)
    seen: set[tuple[str, ...]] = set()
    openings = []
    with chess.polyglot.open_reader(path) as reader:
        for _ in range(10 * lines):  # duplicates are likely in a narrow book
            board, sans = chess.Board(), []
            for _ in range(plies):
                try:
                    entry = reader.weighted_choice(board, random=rng)
                except IndexError:  # no book move here
                    break
                sans.append(board.san(entry.move))
                board.push(entry.move)
            line = tuple(sans)
            if line and line not in seen:
                seen.add(line)
                openings.append(Opening("book: " + " ".join(line), line))
                if len(openings) == lines:
                    break
    return openings


def load_openings(source: str | None) -> list[Opening]:
    """``None`` or ``"builtin"``: the built-in book; else a .tsv, .pgn, .epd or
    Polyglot .bin file."""
    if source in (None, "", "builtin"):
        return built_in_book()
    path = Path(source)
    if not path.is_file():
        what = "is a directory" if path.is_dir() else "not found"
        raise OpeningFileError(f"opening file {what}: {source}")
    suffix = path.suffix.lower()
    if suffix == ".tsv":
        book = read_lichess_tsv(path)
    elif suffix == ".pgn":
        book = read_pgn_openings(path)
    elif suffix in (".epd", ".fen"):
        book = read_epd_openings(path)
    elif suffix == ".bin":
        try:
            book = read_polyglot_openings(path)
        except (OSError, ValueError) as exc:  # e.g. a size that is not whole entries
            raise OpeningFileError(f"{source}: not a readable Polyglot book ({exc})") from None
        if not book:
            raise OpeningFileError(
                f"no openings found in {source}: no book move from the start position "
                "(not a Polyglot book?)"
            )
    else:
        raise OpeningFileError(
            f"unknown opening file type {suffix!r} (use .tsv, .pgn, .epd or .bin)"
        )
    if not book:
        raise OpeningFileError(f"no openings found in {source}")
    if suffix in (".pgn", ".tsv") and not any(o.moves or o.fen != chess.STARTING_FEN for o in book):
        # Text that is not PGN parses as games without moves: not a book.
        raise OpeningFileError(f"no opening lines in {source} (no moves and no FEN tags)")
    return book


def pick_openings(book: list[Opening], count: int, seed: int) -> list[Opening]:
    """``count`` openings drawn without repeats while possible, reproducibly."""
    rng = random.Random(seed)
    picked: list[Opening] = []
    while len(picked) < count:
        batch = book[:]
        rng.shuffle(batch)
        picked.extend(batch[: count - len(picked)])
    return picked
