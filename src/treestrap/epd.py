"""Reading EPD files: a position followed by ``;``-separated operations.

Perft suites write ``FEN ;D1 20 ;D2 400 ...`` (some as ``; D1 20``); other operations
(``id "..."``, ``bm e4``) are kept as text. A file that cannot be read as UTF-8 text
(missing, a directory, binary, UTF-16) is an :class:`EpdError` naming it; a line whose
FEN is wrong is left to the caller (a perft suite counts it as failed).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

from treestrap.textcheck import NOT_TEXT_HINT, looks_like_text


class EpdError(ValueError):
    """An EPD file that cannot be read, or a malformed operation; the message names it."""


@dataclass
class EpdRecord:
    """One line of an EPD file."""

    line_number: int
    fen: str
    #: perft depth -> expected leaf count, from ``Dn count`` operations
    perft: dict[int, int] = field(default_factory=dict)
    #: every other operation, opcode -> operand text
    operations: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.operations.get("id", "").strip('"') or f"line {self.line_number}"


def parse_epd_line(text: str, line_number: int = 0) -> EpdRecord:
    """Parse one EPD line; :class:`EpdError` if a ``Dn`` operation is malformed."""
    head, *ops = text.split(";")
    record = EpdRecord(line_number=line_number, fen=" ".join(head.split()))
    for op in ops:
        op = op.strip()
        if not op:
            continue
        opcode, _, operand = op.partition(" ")
        operand = operand.strip()
        if opcode[:1] == "D" and opcode[1:].isascii() and opcode[1:].isdigit():
            if not (operand.isascii() and operand.isdigit()):
                raise EpdError(f"line {line_number}: bad perft count {op[:40]!r}")
            record.perft[int(opcode[1:])] = int(operand)
        else:
            record.operations[opcode] = operand
    return record


def read_epd(path: str | Path) -> list[EpdRecord]:
    """All non-blank, non-comment lines of an EPD file."""
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
    for number, line_text in enumerate(io.StringIO(text, newline=None), start=1):
        if line_text.strip() and not line_text.lstrip().startswith("#"):
            try:
                records.append(parse_epd_line(line_text, number))
            except EpdError as exc:
                raise EpdError(f"{path}: {exc}") from None
    return records
