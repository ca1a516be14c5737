"""Reading EPD files: a position followed by ``;``-separated operations.

Perft suites write ``FEN ;D1 20 ;D2 400 ...`` (some as ``; D1 20``); other operations
(``id "..."``, ``bm e4``) are kept as text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


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
    """Parse one EPD line; ``ValueError`` if a ``Dn`` operation is malformed."""
    head, *ops = text.split(";")
    record = EpdRecord(line_number=line_number, fen=" ".join(head.split()))
    for op in ops:
        op = op.strip()
        if not op:
            continue
        opcode, _, operand = op.partition(" ")
        operand = operand.strip()
        if opcode[:1] == "D" and opcode[1:].isdigit():
            if not operand.isdigit():
                raise ValueError(f"line {line_number}: bad perft count {op!r}")
            record.perft[int(opcode[1:])] = int(operand)
        else:
            record.operations[opcode] = operand
    return record


def read_epd(path: str | Path) -> list[EpdRecord]:
    """All non-blank, non-comment lines of an EPD file."""
    records = []
    with open(path, encoding="utf-8") as fh:
        for number, text in enumerate(fh, start=1):
            if text.strip() and not text.lstrip().startswith("#"):
                records.append(parse_epd_line(text, number))
    return records
