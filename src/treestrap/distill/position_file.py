"""Labelled positions in a compact binary file that streams from disk.

A file is a short header and then fixed records, one position each::

    b"TSPOS01\\n"  magic
    uint32 LE     length of the JSON header that follows
    JSON          {"game": "chess", "record": "chess-40", ...}: what wrote it
    records       the header's record type, back to back, until the end of the file

The header's ``record`` names the record type (:data:`RECORD_TYPES`): chess's
``chess-40`` (:data:`RECORD`, below) or Connect Four's ``connect4-20``
(:mod:`treestrap.distill.connect4_records`). Every reader asks for the type it reads
(chess's by default), so one game's file is never read as another's.

A chess record (:data:`RECORD`, 40 bytes):

- ``board``: 64 nibbles, square a1 = 0 .. h8 = 63, the even square in the low nibble;
  0 empty, else the core piece code plus one (white pawn .. king 1..6, black 7..12);
- ``flags``: bit 0 white to move, bits 1..4 the castling rights (Polyglot's order);
- ``ep``: the en-passant square or -1; ``halfmove``: the fifty-move counter (at most
  255); ``ply``: plies played in the game before this position;
- ``score``: the search's score in centipawns for the side to move (int16, clipped);
- ``result``: the game's result for the side to move: 1 win, 0 draw, -1 loss.

The count of records follows from the file's size, so a writer appends and a reader
of a file cut by a kill drops the partial record at its end. Readers map the file
(``numpy.memmap``) and read it in batches: the data never has to fit in memory.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from treestrap.core.position import ST_CASTLING, ST_EP, ST_HALFMOVE, ST_SIDE, Position
from treestrap.distill.connect4_records import CONNECT4_RECORD, CONNECT4_RECORD_NAME

MAGIC = b"TSPOS01\n"
RECORD_NAME = "chess-40"
RECORD = np.dtype(
    [
        ("board", "u1", (32,)),
        ("flags", "u1"),
        ("ep", "i1"),
        ("score", "<i2"),
        ("result", "i1"),
        ("halfmove", "u1"),
        ("ply", "<u2"),
    ]
)
assert RECORD.itemsize == 40
#: Scores beyond int16 (mates in the engine's units) are clipped to this.
SCORE_LIMIT = 32_000
#: The 768 piece-square inputs and the side to move: the ``bitboard`` rows nets read.
BITBOARD_SIZE = 769
SIDE_TO_MOVE = 768
_SYMBOLS = "PNBRQKpnbrqk"


class RecordType(NamedTuple):
    """A record type of the files: the game its positions are of, and its layout."""

    game: str
    dtype: np.dtype


#: The record types by the name a header gives them.
RECORD_TYPES: dict[str, RecordType] = {
    RECORD_NAME: RecordType("chess", RECORD),
    CONNECT4_RECORD_NAME: RecordType("connect4", CONNECT4_RECORD),
}


class PositionFileError(ValueError):
    """A file that is not a position file of this format."""


def _header_bytes(header: dict[str, Any], record: str) -> bytes:
    text = json.dumps(
        {"game": RECORD_TYPES[record].game, "record": record, **header}, sort_keys=True
    )
    data = text.encode()
    return MAGIC + struct.pack("<I", len(data)) + data


def read_header(path: str | Path, record: str | None = RECORD_NAME) -> tuple[dict[str, Any], int]:
    """A file's JSON header and the offset of its first record; a file of another
    record type than ``record`` is refused (None: any known type)."""
    with open(path, "rb") as fh:
        head = fh.read(len(MAGIC) + 4)
        if len(head) < len(MAGIC) + 4 or head[: len(MAGIC)] != MAGIC:
            raise PositionFileError(f"{path}: not a treestrap position file")
        (length,) = struct.unpack("<I", head[len(MAGIC) :])
        data = fh.read(length)
    try:
        header = json.loads(data)
    except ValueError:
        raise PositionFileError(f"{path}: its header is not JSON") from None
    found = header.get("record") if isinstance(header, dict) else None
    if found not in RECORD_TYPES or (record is not None and found != record):
        raise PositionFileError(f"{path}: records {found!r}, not {record or 'a known type'}")
    return header, len(MAGIC) + 4 + length


def _dtype(path: str | Path, record: str | None) -> tuple[np.dtype, int]:
    """The record layout of a file (of type ``record``) and its first record's offset."""
    header, start = read_header(path, record)
    return RECORD_TYPES[header["record"]].dtype, start


class PositionWriter:
    """Appends records to a position file (made with ``header`` if new). Each
    :meth:`write` goes to disk at once: a kill loses at most the record being written,
    and :func:`truncate` cuts a file back to a count a caller committed."""

    def __init__(
        self, path: str | Path, header: dict[str, Any] | None = None, record: str = RECORD_NAME
    ) -> None:
        self.path = Path(path)
        self.record = record
        self.dtype = RECORD_TYPES[record].dtype
        if not self.path.exists():
            self.path.write_bytes(_header_bytes(header or {}, record))
        # a partial record left by a kill would shift every record appended after it
        truncate(self.path, record_count(self.path, record), record)
        self._fh = open(self.path, "ab")  # noqa: SIM115 (closed by close())

    def write(self, records: np.ndarray) -> None:
        if records.dtype != self.dtype:
            raise TypeError(f"records of dtype {records.dtype}, not the {self.record} record")
        self._fh.write(records.tobytes())
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> PositionWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def record_count(path: str | Path, record: str | None = RECORD_NAME) -> int:
    """Whole records in a file (a partial one at its end is not counted)."""
    dtype, start = _dtype(path, record)
    return (Path(path).stat().st_size - start) // dtype.itemsize


def truncate(path: str | Path, count: int, record: str | None = RECORD_NAME) -> None:
    """Cut a file back to its first ``count`` records."""
    dtype, start = _dtype(path, record)
    with open(path, "r+b") as fh:
        fh.truncate(start + count * dtype.itemsize)


def read_records(path: str | Path, record: str | None = RECORD_NAME) -> np.ndarray:
    """All whole records of a file, mapped from disk (read only)."""
    dtype, start = _dtype(path, record)
    count = record_count(path, record)
    if count == 0:
        return np.zeros(0, dtype=dtype)
    return np.memmap(path, dtype=dtype, mode="r", offset=start, shape=(count,))


def iter_batches(
    paths: Iterable[str | Path],
    batch: int,
    seed: int | None = None,
    record: str | None = RECORD_NAME,
) -> Iterator[np.ndarray]:
    """Records of ``paths`` in batches of ``batch`` (the last of each file shorter), in
    file order, or with ``seed`` the files and the batches within each in a shuffled
    order (each batch a random sample of its file)."""
    files = list(paths)
    rng = None if seed is None else np.random.default_rng(seed)
    if rng is not None:
        files = [files[i] for i in rng.permutation(len(files))]
    for path in files:
        records = read_records(path, record)
        n = len(records)
        if rng is None:
            for start in range(0, n, batch):
                yield np.array(records[start : start + batch])
            continue
        order = rng.permutation(n)
        for start in range(0, n, batch):
            yield np.array(records[np.sort(order[start : start + batch])])


def pack_position(pos: Position, score: float, result: int, ply: int) -> np.ndarray:
    """One record of our position ``pos`` (a 1-element array)."""
    out = np.zeros(1, dtype=RECORD)
    nibbles = (pos.board.astype(np.int16) + 1) % 13  # NO_PIECE (12) -> 0
    out["board"][0] = (nibbles[0::2] | (nibbles[1::2] << 4)).astype(np.uint8)
    white = int(pos.st[ST_SIDE]) == 0
    out["flags"][0] = int(white) | (int(pos.st[ST_CASTLING]) << 1)
    out["ep"][0] = int(pos.st[ST_EP])
    out["halfmove"][0] = min(255, int(pos.st[ST_HALFMOVE]))
    out["ply"][0] = min(65535, ply)
    out["score"][0] = round(max(-SCORE_LIMIT, min(SCORE_LIMIT, score)))
    out["result"][0] = result
    return out


def squares(records: np.ndarray) -> np.ndarray:
    """``[n, 64]`` nibbles: 0 empty, else the piece code plus one."""
    board = records["board"]
    out = np.empty((len(records), 64), dtype=np.uint8)
    out[:, 0::2] = board & 15
    out[:, 1::2] = board >> 4
    return out


#: Each board nibble's weight in the game's phase: empty, then white's pawn, knight,
#: bishop, rook, queen, king, then black's; 24 at the start.
PHASE_WEIGHTS = np.array([0, 0, 1, 1, 2, 4, 0, 0, 1, 1, 2, 4, 0], dtype=np.int32)
PHASE_START = 24


def game_phase(records: np.ndarray) -> np.ndarray:
    """How much of the start's pieces (knights, bishops, rooks, queens; not pawns) each
    position still has: 1 with all of them (or more, after promotions), 0 with kings and
    pawns alone."""
    weight = PHASE_WEIGHTS[squares(records)].sum(axis=1)
    return np.minimum(1.0, weight / PHASE_START)


def white_to_move(records: np.ndarray) -> np.ndarray:
    return (records["flags"] & 1).astype(bool)


def bitboard_rows(records: np.ndarray) -> np.ndarray:
    """The 769 ``bitboard`` inputs of each record (uint8 0/1): ``piece * 64 +
    square``, then white to move."""
    cells = squares(records).astype(np.int64)
    rows = np.zeros((len(records), BITBOARD_SIZE), dtype=np.uint8)
    r, sq = np.nonzero(cells)
    rows[r, (cells[r, sq] - 1) * 64 + sq] = 1
    rows[:, SIDE_TO_MOVE] = white_to_move(records)
    return rows


def feature_lists(records: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The active piece-square inputs of each record as ``(row, input)`` pairs, sorted
    by row: what a sparse first layer reads without building 769-wide rows."""
    cells = squares(records).astype(np.int64)
    r, sq = np.nonzero(cells)
    return r, (cells[r, sq] - 1) * 64 + sq


def to_fen(record: np.void | np.ndarray) -> str:
    """The FEN of one record (its fullmove number from its ply)."""
    rec = np.asarray(record).reshape(1)
    cells = squares(rec)[0]
    ranks = []
    for rank in range(7, -1, -1):
        text, empty = "", 0
        for file in range(8):
            cell = int(cells[rank * 8 + file])
            if cell == 0:
                empty += 1
                continue
            text += (str(empty) if empty else "") + _SYMBOLS[cell - 1]
            empty = 0
        ranks.append(text + (str(empty) if empty else ""))
    flags = int(rec["flags"][0])
    castling = "".join(c for bit, c in zip((1, 2, 4, 8), "KQkq", strict=True) if flags >> 1 & bit)
    ep = int(rec["ep"][0])
    ep_text = "-" if ep < 0 else "abcdefgh"[ep % 8] + str(ep // 8 + 1)
    side = "w" if flags & 1 else "b"
    fullmove = int(rec["ply"][0]) // 2 + 1
    return (
        f"{'/'.join(ranks)} {side} {castling or '-'} {ep_text} {int(rec['halfmove'][0])} {fullmove}"
    )
