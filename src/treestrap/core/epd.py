"""EPD text: one position a line, its FEN fields, then ``;``-separated operations.

The one EPD reader of the package. :func:`epd_lines` splits the lines for both users:
perft suites (:func:`read_epd`, for ``treestrap perft --epd``: ``FEN ;D1 20 ;D2 400
...``, some written ``; D1 20``) and opening books in ``.epd``
(:mod:`treestrap.play.openings`, which opens its file itself and names its own errors).
Blank lines and ``#`` comments hold no position.

A perft suite is read strictly: a file that cannot be read as UTF-8 text (missing, a
directory, binary, UTF-16) or a malformed ``Dn`` count is an :class:`EpdError` naming
it; a line whose FEN is wrong is left to the caller (a perft suite counts it as failed).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from treestrap.textcheck import NOT_TEXT_HINT, looks_like_text


@dataclass(frozen=True)
class EpdLine:
    """One line of EPD text, split."""

    line_number: int
    #: the words before the first ``;`` (a FEN, or its first four fields)
    fen_fields: tuple[str, ...]
    #: the text between the ``;`` after them, each stripped; empty ones dropped
    operations: tuple[str, ...]


def split_epd_line(text: str, line_number: int = 0) -> EpdLine:
    """The FEN fields and operations of one EPD line."""
    head, *ops = text.split(";")
    stripped = (op.strip() for op in ops)
    return EpdLine(line_number, tuple(head.split()), tuple(op for op in stripped if op))


def epd_lines(lines: Iterable[str]) -> Iterator[EpdLine]:
    """Every line of ``lines`` (numbered from 1) that is not blank or a ``#`` comment."""
    for number, text in enumerate(lines, start=1):
        if text.strip() and not text.lstrip().startswith("#"):
            yield split_epd_line(text, number)


class EpdError(ValueError):
    """An EPD file that cannot be read, or a malformed operation; the message names it."""


@dataclass
class EpdRecord:
    """One line of a perft suite."""

    line_number: int
    fen: str
    #: perft depth -> expected leaf count, from ``Dn count`` operations
    perft: dict[int, int] = field(default_factory=dict)
    #: every other operation, opcode -> operand text
    operations: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.operations.get("id", "").strip('"') or f"line {self.line_number}"


def perft_record(line: EpdLine) -> EpdRecord:
    """A suite's line with its ``Dn count`` operations read; :class:`EpdError` if one
    is malformed (a wrong expected count would fail a correct move generator)."""
    record = EpdRecord(line_number=line.line_number, fen=" ".join(line.fen_fields))
    for op in line.operations:
        opcode, _, operand = op.partition(" ")
        operand = operand.strip()
        if opcode[:1] == "D" and opcode[1:].isascii() and opcode[1:].isdigit():
            if not (operand.isascii() and operand.isdigit()):
                raise EpdError(f"line {line.line_number}: bad perft count {op[:40]!r}")
            record.perft[int(opcode[1:])] = int(operand)
        else:
            record.operations[opcode] = operand
    return record


def parse_epd_line(text: str, line_number: int = 0) -> EpdRecord:
    """Parse one perft suite line; :class:`EpdError` if a ``Dn`` operation is malformed."""
    return perft_record(split_epd_line(text, line_number))


def read_epd(path: str | Path) -> list[EpdRecord]:
    """Every position of a perft suite file."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise EpdError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not looks_like_text(data):
        raise EpdError(f"{path}: not an EPD text file ({NOT_TEXT_HINT})")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise EpdError(
            f"{path}: line {line}: not UTF-8 text (byte {data[exc.start]:#04x})"
        ) from None
    records = []
    # Lines as a text file reads them (\n, \r\n or \r), so the numbers match an editor's.
    for line in epd_lines(io.StringIO(text, newline=None)):
        try:
            records.append(perft_record(line))
        except EpdError as exc:
            raise EpdError(f"{path}: {exc}") from None
    return records
