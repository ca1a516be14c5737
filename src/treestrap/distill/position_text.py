"""Position records as text lines, and text lines as records: the plain-text forms
that other trainers and tools read and write.

Two forms, one position a line:

- ``text``: ``FEN | score | result``, the full six-field FEN, the score in centipawns
  from **white's** point of view and the game's result from **white's** point of view
  as ``1.0`` (white won), ``0.5`` (draw) or ``0.0`` (black won). This is the plain-text
  form of NNUE trainers such as bullet (its "chess text format": score and result
  white-relative), unlike the records, which keep both for the side to move.
- ``epd``: ``BOARD SIDE CASTLING EP ce SCORE; c0 "RESULT"; hmvc H; fmvn F;``, EPD's
  opcodes: ``ce`` the score in centipawns for the **side to move**, ``c0`` the result
  as PGN writes it (``1-0``, ``0-1``, ``1/2-1/2``), ``hmvc`` and ``fmvn`` the clocks.

A record keeps the plies played before its position, FEN the fullmove number: lines
written from a record give ``ply // 2 + 1``, and a line read back gives the ply
``2 * (fullmove - 1)``, plus one with black to move (the record's own ply for a game
that began at the standard start).

Reading checks each line's fields and what a record needs of its board: one king a
side, no pawn on a back rank, castling rights with king and rook at home, an
en-passant square that a pawn has just passed. As our positions do, a record keeps
the en-passant square only when a pawn of the side to move stands beside the pawn
that passed it. Whether the side not to move is in check is not checked. Both
directions work on whole batches with numpy (the boards, the checks); only the split
of each line into its fields is Python.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import permutations
from pathlib import Path
from typing import Any, TextIO

import numpy as np
from tqdm import tqdm

from treestrap.distill.position_file import (
    MAGIC,
    RECORD,
    SCORE_LIMIT,
    PositionWriter,
    iter_batches,
    record_count,
    squares,
    truncate,
    white_to_move,
)
from treestrap.textcheck import NOT_TEXT_HINT, SNIFF_BYTES, looks_like_text

FORMATS = ("text", "epd")
_SYMBOLS = "PNBRQKpnbrqk"
# Text of a board cell by its code (0 empty, 1..12 pieces); '1' stands for an empty
# square until the runs of them become digits.
_CELL_CHARS = np.frombuffer(b"1" + _SYMBOLS.encode(), dtype=np.uint8)
# The code of a FEN character once digits are expanded; 255: not a board character.
_CHAR_CODES = np.full(256, 255, dtype=np.uint8)
_CHAR_CODES[ord("1")] = 0
for _code, _char in enumerate(_SYMBOLS, start=1):
    _CHAR_CODES[ord(_char)] = _code
# Longest runs first, so that each maximal run of empty squares becomes one digit.
_RUNS = [(b"1" * k, str(k).encode()) for k in range(8, 1, -1)]
_EXPAND = str.maketrans({str(k): "1" * k for k in range(2, 9)})
_PLACEMENT_LENGTH = 8 * 8 + 7

_CASTLING_LETTERS = {"K": 1, "Q": 2, "k": 4, "q": 8}  # Polyglot's order, as the records
_CASTLING_TEXT = [
    "".join(c for c, bit in _CASTLING_LETTERS.items() if rights & bit) or "-"
    for rights in range(16)
]
# Every order of the letters is read (some writers do not keep KQkq's).
_CASTLING_RIGHTS = {"-": 0} | {
    "".join(order): sum(_CASTLING_LETTERS[c] for c in order)
    for size in range(1, 5)
    for order in permutations("KQkq", size)
}
# Each right's (king square, rook square, king code, rook code).
_CASTLING_HOMES = {1: (4, 7, 6, 4), 2: (4, 0, 6, 4), 4: (60, 63, 12, 10), 8: (60, 56, 12, 10)}
_SQUARE_NAMES = [f"{'abcdefgh'[sq % 8]}{sq // 8 + 1}" for sq in range(64)]
_EP_TEXT = [*_SQUARE_NAMES, "-"]  # index 64 (from -1 % 65): no square
_EP_SQUARES = {"-": -1} | {name: sq for sq, name in enumerate(_SQUARE_NAMES)}

# White's result (1 won, 0 drawn, -1 lost) as each form writes it, and as each reads it.
_TEXT_RESULT = {1: "1.0", 0: "0.5", -1: "0.0"}
_PGN_RESULT = {1: "1-0", 0: "1/2-1/2", -1: "0-1"}
_READ_RESULT = {
    "1.0": 1, "1": 1, "0.5": 0, "0.0": -1, "0": -1, "1-0": 1, "0-1": -1, "1/2-1/2": 0,
}  # fmt: skip


class PositionTextError(ValueError):
    """A line that is not a position in a known text form; ``index`` is its place
    among the lines given (the caller turns it into a line number)."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index


# --- records -> text ----------------------------------------------------------------


def placements(records: np.ndarray) -> list[str]:
    """The FEN piece placement of each record (the first FEN field)."""
    n = len(records)
    cells = squares(records).reshape(n, 8, 8)[:, ::-1, :]  # FEN starts at rank 8
    if n and int(cells.max()) > 12:
        raise ValueError("a record holds a board cell that is no piece (a damaged file)")
    text = np.empty((n, 8, 9), dtype=np.uint8)
    text[:, :, :8] = _CELL_CHARS[cells]
    text[:, :7, 8] = ord("/")
    text[:, 7, 8] = ord("\n")
    data = text.tobytes()
    for run, digit in _RUNS:
        data = data.replace(run, digit)
    return data.decode("ascii").split("\n")[:n]


def format_lines(records: np.ndarray, form: str) -> list[str]:
    """One line of ``form`` (:data:`FORMATS`) for each record."""
    if form not in FORMATS:
        raise ValueError(f"unknown text form {form!r} (expected one of {', '.join(FORMATS)})")
    white = white_to_move(records)
    ep = records["ep"].astype(np.int64)
    result = records["result"].astype(np.int64)
    if np.any((ep > 63) | (ep < -1)) or np.any(np.abs(result) > 1):
        raise ValueError("a record holds an en-passant square or a result out of range")
    sign = np.where(white, 1, -1)
    fields = (
        placements(records),
        white.tolist(),
        ((records["flags"] >> 1) & 15).tolist(),
        (ep % 65).tolist(),
        records["halfmove"].tolist(),
        (records["ply"].astype(np.int64) // 2 + 1).tolist(),
        (result * sign).tolist(),  # white's result
    )
    score = records["score"].astype(np.int64)
    if form == "text":
        return [
            f"{b} {'w' if w else 'b'} {_CASTLING_TEXT[c]} {_EP_TEXT[e]} {h} {f} | {s} | "
            f"{_TEXT_RESULT[r]}"
            for b, w, c, e, h, f, r, s in zip(*fields, (score * sign).tolist(), strict=True)
        ]
    return [
        f'{b} {"w" if w else "b"} {_CASTLING_TEXT[c]} {_EP_TEXT[e]} ce {s}; c0 "{_PGN_RESULT[r]}"; '
        f"hmvc {h}; fmvn {f};"
        for b, w, c, e, h, f, r, s in zip(*fields, score.tolist(), strict=True)
    ]


# --- text -> records ----------------------------------------------------------------


def detect_form(line: str) -> str:
    """The form of one line: ``text`` has ``|`` between its parts, EPD does not."""
    return "text" if "|" in line else "epd"


def _text_fields(line: str) -> tuple[list[str], float, bool, int]:
    """FEN fields, score, whether the score is white's, white's result."""
    parts = line.split("|")
    if len(parts) != 3:
        raise ValueError(f"expected 'FEN | score | result', got {len(parts)} parts")
    fen, score, result = (p.strip() for p in parts)
    fields = fen.split()
    if len(fields) == 4:  # EPD-style FEN: the clocks as a fresh game's
        fields += ["0", "1"]
    if len(fields) != 6:
        raise ValueError(f"the FEN has {len(fields)} fields, expected 6")
    if result not in _READ_RESULT:
        raise ValueError(f"result {result[:20]!r}: expected 1.0, 0.5 or 0.0 (white's view)")
    return fields, _number(score, "score"), True, _READ_RESULT[result]


def _epd_fields(line: str) -> tuple[list[str], float, bool, int]:
    parts = line.split(maxsplit=4)
    if len(parts) < 5:
        raise ValueError('expected an EPD line: 4 fields, then ce SCORE; c0 "RESULT";')
    ops: dict[str, str] = {}
    for op in parts[4].split(";"):
        code, _, operand = op.strip().partition(" ")
        if code:
            ops[code] = operand.strip()
    if "ce" not in ops:
        raise ValueError("no score: the EPD line has no ce operation")
    result = ops.get("c0", "").strip('"')
    if result not in _PGN_RESULT.values():
        raise ValueError(f'no result: expected c0 "1-0", "0-1" or "1/2-1/2", got {result[:20]!r}')
    fields = [*parts[:4], ops.get("hmvc", "0"), ops.get("fmvn", "1")]
    return fields, _number(ops["ce"], "ce"), False, _READ_RESULT[result]


def _number(text: str, name: str) -> float:
    """A score in centipawns; beyond what a record holds (``SCORE_LIMIT``, past every
    mate score) is an error, not a number to clip: a 1e20 is a bug in its writer."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{name} {text[:20]!r} is not a number") from None
    if not np.isfinite(value):
        raise ValueError(f"{name} {text[:20]!r} is not a finite number")
    if abs(value) > SCORE_LIMIT:
        raise ValueError(
            f"{name} {text[:20]!r} is out of range: a record holds -{SCORE_LIMIT} to "
            f"{SCORE_LIMIT} centipawns"
        )
    return value


def _clock(text: str, name: str, minimum: int) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) < minimum:
        raise ValueError(f"{name} {text[:20]!r}: expected an integer >= {minimum}")
    return int(text)


def parse_lines(lines: list[str], form: str = "auto") -> np.ndarray:
    """Records of ``lines`` (``text``, ``epd``, or ``auto``: each line's own form);
    :class:`PositionTextError` names the first bad line by its index."""
    if form not in ("auto", *FORMATS):
        raise ValueError(f"unknown text form {form!r} (expected auto, text or epd)")
    n = len(lines)
    if n == 0:
        return np.zeros(0, dtype=RECORD)
    boards: list[str] = []
    white = np.zeros(n, dtype=bool)
    rights = np.zeros(n, dtype=np.int64)
    ep = np.zeros(n, dtype=np.int64)
    clocks = np.zeros((n, 2), dtype=np.int64)
    scores = np.zeros(n)
    white_view = np.zeros(n, dtype=bool)
    results = np.zeros(n, dtype=np.int64)
    for i, line in enumerate(lines):
        try:
            kind = detect_form(line) if form == "auto" else form
            fields, scores[i], white_view[i], results[i] = (
                _text_fields(line) if kind == "text" else _epd_fields(line)
            )
            boards.append(fields[0])
            if fields[1] not in ("w", "b"):
                raise ValueError(f"side to move {fields[1][:10]!r}: expected w or b")
            white[i] = fields[1] == "w"
            if fields[2] not in _CASTLING_RIGHTS:
                raise ValueError(f"castling {fields[2][:10]!r}: expected letters of KQkq or -")
            rights[i] = _CASTLING_RIGHTS[fields[2]]
            if fields[3] not in _EP_SQUARES:
                raise ValueError(f"en passant {fields[3][:10]!r}: expected a square or -")
            ep[i] = _EP_SQUARES[fields[3]]
            clocks[i] = _clock(fields[4], "halfmove clock", 0), _clock(fields[5], "fullmove", 1)
        except ValueError as exc:
            raise PositionTextError(i, str(exc)) from None
    cells = _board_cells(boards)
    _check_boards(cells, white, rights, ep)
    labels = (clocks, scores, white_view, results)
    return _records(cells, white, rights, _kept_ep(cells, white, ep), *labels)


def _board_cells(boards: list[str]) -> np.ndarray:
    """``[n, 64]`` codes of the FEN placements, square a1 = 0."""
    n = len(boards)
    expanded = "".join(b.translate(_EXPAND) for b in boards)
    data = np.frombuffer(expanded.encode("ascii", errors="replace"), dtype=np.uint8)
    if len(data) != n * _PLACEMENT_LENGTH:
        lengths = [len(b.translate(_EXPAND)) for b in boards]
        bad = next(i for i, k in enumerate(lengths) if k != _PLACEMENT_LENGTH)
        raise PositionTextError(bad, "the piece placement does not have 8 ranks of 8 squares")
    rows = np.concatenate([data.reshape(n, _PLACEMENT_LENGTH), np.zeros((n, 1), np.uint8)], 1)
    slashes = rows[:, 8:-1:9]
    codes = _CHAR_CODES[rows.reshape(n, 8, 9)[:, :, :8]]
    bad = np.any(codes == 255, axis=(1, 2)) | np.any(slashes != ord("/"), axis=1)
    _raise_first(bad, "the piece placement does not have 8 ranks of 8 squares of pieces")
    return np.ascontiguousarray(codes[:, ::-1, :]).reshape(n, 64)


def _raise_first(bad: np.ndarray, message: str) -> None:
    if np.any(bad):
        raise PositionTextError(int(np.flatnonzero(bad)[0]), message)


def _check_boards(cells: np.ndarray, white: np.ndarray, rights: np.ndarray, ep: np.ndarray) -> None:
    kings = ((cells == 6).sum(axis=1) != 1) | ((cells == 12).sum(axis=1) != 1)
    _raise_first(kings, "the board needs one king of each side")
    back = np.concatenate([cells[:, :8], cells[:, 56:]], axis=1)
    _raise_first(np.any((back == 1) | (back == 7), axis=1), "a pawn on a back rank")
    for bit, (king, rook, king_code, rook_code) in _CASTLING_HOMES.items():
        away = (cells[:, king] != king_code) | (cells[:, rook] != rook_code)
        letter = _CASTLING_TEXT[bit]
        _raise_first(
            ((rights & bit) != 0) & away, f"castling right {letter} without king and rook at home"
        )
    has = ep >= 0
    square, step = _ep_geometry(white, ep)
    rows = np.arange(len(cells))
    passed = (
        (np.where(white, ep // 8 == 5, ep // 8 == 2))
        & (cells[rows, square + step] == np.where(white, 7, 1))  # the pawn that passed
        & (cells[rows, square] == 0)
        & (cells[rows, square - step] == 0)  # the square it came from
    )
    _raise_first(has & ~passed, "no pawn can just have passed the en-passant square")


def _ep_geometry(white: np.ndarray, ep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A square to read each en-passant check at (any in range where there is none) and
    the step from it to the pawn that passed it."""
    square = np.where((ep >= 16) & (ep < 48), ep, 40)
    return square, np.where(white, -8, 8)


def _kept_ep(cells: np.ndarray, white: np.ndarray, ep: np.ndarray) -> np.ndarray:
    """The en-passant squares with a pawn of the side to move beside the one that
    passed them; -1 elsewhere."""
    square, step = _ep_geometry(white, ep)
    rows = np.arange(len(cells))
    own = np.where(white, 1, 7)
    beside = square + step
    file = square % 8
    left = (file > 0) & (cells[rows, beside - 1] == own)
    right = (file < 7) & (cells[rows, np.minimum(beside + 1, 63)] == own)
    return np.where((ep >= 0) & (left | right), ep, -1)


def _records(
    cells: np.ndarray,
    white: np.ndarray,
    rights: np.ndarray,
    ep: np.ndarray,
    clocks: np.ndarray,
    scores: np.ndarray,
    white_view: np.ndarray,
    results: np.ndarray,
) -> np.ndarray:
    out = np.zeros(len(cells), dtype=RECORD)
    nibbles = cells.astype(np.uint8)
    out["board"] = nibbles[:, 0::2] | (nibbles[:, 1::2] << 4)
    out["flags"] = white.astype(np.uint8) | (rights.astype(np.uint8) << 1)
    out["ep"] = ep
    out["halfmove"] = np.minimum(clocks[:, 0], 255)
    out["ply"] = np.minimum(2 * (clocks[:, 1] - 1) + ~white, 65535)
    # Scores and results to the side to move, as the records keep them.
    sign = np.where(white, 1, -1)
    mover = np.where(white_view, scores * sign, scores)
    out["score"] = np.rint(mover)  # within SCORE_LIMIT: _number refuses the rest
    out["result"] = results * sign
    return out


# --- files --------------------------------------------------------------------------


class TextFileError(ValueError):
    """A text file with a bad line (the message names the file and the line), or an
    output that would overwrite a file."""


#: Records converted at a time: large enough for numpy to pay, small enough to stream.
BATCH = 65_536


def line_batches(
    path: str | Path, block: int = 1 << 22
) -> Iterator[tuple[list[int], list[str], int]]:
    """The non-blank lines of a text file in blocks of about ``block`` bytes: each
    line's number, the lines, and the bytes read."""
    number = 0
    with open(path, "rb") as fh:
        while data := fh.read(block):
            data += fh.readline()  # end the block at a line's end
            lines = data.decode("utf-8", errors="replace").split("\n")
            if lines[-1] == "":
                lines.pop()
            numbers, kept = [], []
            for k, line in enumerate(lines, start=number + 1):
                if text := line.strip():
                    numbers.append(k)
                    kept.append(text)
            number += len(lines)
            yield numbers, kept, len(data)


def check_text(path: str | Path, what: str = "text") -> None:
    """Refuse a file that is not text (before its bytes parse as nothing)."""
    with open(path, "rb") as fh:
        head = fh.read(SNIFF_BYTES)
    if head.startswith(MAGIC):
        raise TextFileError(f"{path}: a position file already, not {what}")
    if not looks_like_text(head):
        raise TextFileError(f"{path}: not {what} ({NOT_TEXT_HINT})")


def read_text(path: str | Path, form: str = "auto") -> Iterator[tuple[np.ndarray, int]]:
    """The records of a text file's lines and the bytes each batch read;
    :class:`TextFileError` names the first bad line."""
    check_text(path)
    for numbers, lines, size in line_batches(path):
        try:
            yield parse_lines(lines, form), size
        except PositionTextError as exc:
            raise TextFileError(f"{path}:{numbers[exc.index]}: {exc}") from None


def part_path(out: str | Path) -> Path:
    """Where an output is written until it is whole (then renamed to ``out``)."""
    out = Path(out)
    return out.with_name(out.name + ".part")


def write_text(batches: Iterator[np.ndarray], out: str | Path, form: str) -> int:
    """Lines of ``form`` for the records of ``batches`` into ``out`` (``-``: standard
    output); the count of lines. A file is written whole or not at all; a device, a
    pipe or a link is written in place (renaming onto it would replace it)."""
    out = Path(out)
    if str(out) == "-":
        return _write_lines(batches, sys.stdout, form)
    if out.is_symlink() or (out.exists() and not out.is_file()):
        with open(out, "w", encoding="ascii", newline="\n") as fh:
            return _write_lines(batches, fh, form)
    part = part_path(out)
    try:
        with open(part, "w", encoding="ascii", newline="\n") as fh:
            count = _write_lines(batches, fh, form)
        part.replace(out)
    finally:
        part.unlink(missing_ok=True)
    return count


def _write_lines(batches: Iterator[np.ndarray], fh: TextIO, form: str) -> int:
    count = 0
    for records in batches:
        for start in range(0, len(records), BATCH):
            lines = format_lines(records[start : start + BATCH], form)
            fh.write("".join(line + "\n" for line in lines))
            count += len(lines)
    return count


@contextmanager
def record_output(
    out: str | Path, header: dict[str, Any], append: bool = False
) -> Iterator[PositionWriter]:
    """A writer of records into ``out`` that leaves it with all of them or none of
    them: a new file is written beside ``out`` and renamed when whole; with ``append``
    an existing ``out`` is cut back to the records it held if anything fails."""
    out = Path(out)
    if not (append and out.exists()):
        if out.exists():
            raise TextFileError(f"{out} exists (not overwritten)")
        part = part_path(out)
        part.unlink(missing_ok=True)
        try:
            with PositionWriter(part, header) as writer:
                yield writer
            part.replace(out)
        finally:
            part.unlink(missing_ok=True)
        return
    held = record_count(out)
    truncate(out, held)  # a partial record that a kill left would shift every new one
    try:
        with PositionWriter(out) as writer:
            yield writer
    except BaseException:
        truncate(out, held)
        raise


def import_text(
    paths: list[str | Path],
    out: str | Path,
    form: str = "auto",
    append: bool = False,
    progress: bool = False,
) -> int:
    """Records of the lines of text files ``paths`` into the position file ``out``;
    their count. :class:`TextFileError` for files without a line, ``out`` then left
    as it was (none written, or an appended one as it stood)."""
    total = sum(Path(p).stat().st_size for p in paths)
    header = {"source": "text", "files": [Path(p).name for p in paths]}
    count = 0
    bar = tqdm(total=total, unit="B", unit_scale=True, desc="import", disable=not progress)
    with bar, record_output(out, header, append) as writer:
        for path in paths:
            for records, size in read_text(path, form):
                writer.write(records)
                count += len(records)
                bar.update(size)
        if count == 0:  # raised inside: the output is dropped
            verb = "holds" if len(paths) == 1 else "hold"
            names = ", ".join(map(str, paths))
            raise TextFileError(f"no positions to import: {names} {verb} no position line")
    return count


def export_positions(
    paths: list[str | Path], out: str | Path, form: str, progress: bool = False
) -> int:
    """Lines of ``form`` for every record of the position files ``paths`` into
    ``out``, in file order; their count."""
    if form not in FORMATS:
        raise ValueError(f"unknown text form {form!r} (expected one of {', '.join(FORMATS)})")
    total = sum(record_count(p) for p in paths)  # and every file's header checked first
    bar = tqdm(total=total, unit="pos", unit_scale=True, desc="export", disable=not progress)

    def batches() -> Iterator[np.ndarray]:
        for records in iter_batches(paths, BATCH):
            yield records
            bar.update(len(records))

    with bar:
        return write_text(batches(), out, form)
