"""The reference positions scored by a perfect solver (``solved-1000.txt``; the format
is in ``reference/README.md``): a move string and seven column scores a line."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from treestrap.connect4.board import parse_moves
from treestrap.connect4.solver import FULL_COLUMN
from treestrap.textcheck import NOT_TEXT_HINT, SNIFF_BYTES, looks_like_text


@dataclass(frozen=True)
class ReferencePosition:
    moves: str  # columns 1-7 from the empty board
    scores: tuple[int, ...]  # per column, FULL_COLUMN where it is full

    @property
    def best(self) -> int:
        return max(self.scores)

    def is_best(self, col: int) -> bool:
        return self.scores[col] == self.best

    def keeps_result(self, col: int) -> bool:
        """Whether the column keeps the position's win, draw or loss."""
        sign = (self.scores[col] > 0) - (self.scores[col] < 0)
        return sign == (self.best > 0) - (self.best < 0)


def load_reference(path: str | Path) -> list[ReferencePosition]:
    """Every position of the file; ``ValueError`` names the first bad line."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"reference positions not found: {path}")
    with open(path, "rb") as fh:
        if not looks_like_text(fh.read(SNIFF_BYTES)):
            raise ValueError(f"{path}: not a text file ({NOT_TEXT_HINT})")
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        words = line.split()
        try:
            scores = tuple(int(w) for w in words[1:])
            if len(scores) != 7:
                raise ValueError(f"{len(scores)} scores, expected 7")
            pos = parse_moves(words[0])
            for col, score in enumerate(scores):
                if (score == FULL_COLUMN) != (pos.heights[col] >= 6):
                    raise ValueError(f"column {col + 1}'s score does not fit the board")
        except ValueError as exc:
            raise ValueError(f"{path}, line {number}: not a scored position ({exc})") from None
        found.append(ReferencePosition(words[0], scores))
    if not found:
        raise ValueError(f"{path}: no positions")
    return found
