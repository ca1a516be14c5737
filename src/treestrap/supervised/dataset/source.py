"""Reading PGN collections: plain, ``.gz``, ``.bz2``, ``.xz`` or ``.zst``, cut into games.

Cutting the text into games here, without python-chess, is what lets the build hand
whole chunks of games to worker processes: the main process only scans lines, and the
expensive parsing happens in the workers. A game starts at a tag line (``[Name "..."]``)
that follows movetext, or follows a blank line after another game's tags (a game with
tags but no moves). Comment lines such as ``[%clk ...]`` never look like tags because a
tag name is a word.

A compressed file that ends early, or is corrupt part way, yields the game it was in the
middle of as not intact (the build counts it as truncated) and stops there; a file that
cannot be read at all, or is not text (binary, UTF-16: :func:`check_text`), is a
:class:`DatasetError`.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

import zstandard

from treestrap.supervised.dataset.errors import DatasetError
from treestrap.textcheck import NOT_TEXT_HINT, SNIFF_BYTES, looks_like_text

#: File name endings and how to open them for reading bytes.
COMPRESSIONS = (".gz", ".bz2", ".xz", ".zst")

_TAG = re.compile(r'^\s*\[[A-Za-z0-9_]+\s+"')
#: What a broken compressed stream raises while reading.
_STREAM_ERRORS = (OSError, EOFError, lzma.LZMAError, zstandard.ZstdError, ValueError)


def open_binary(path: str | Path) -> IO[bytes]:
    """The decompressed bytes of ``path``, chosen by its name's ending."""
    name = str(path).lower()
    if name.endswith(".gz"):
        return gzip.open(path, "rb")
    if name.endswith(".bz2"):
        return bz2.open(path, "rb")
    if name.endswith(".xz"):
        return lzma.open(path, "rb")
    if name.endswith(".zst"):
        return zstandard.ZstdDecompressor().stream_reader(open(path, "rb"), closefd=True)
    return open(path, "rb")


def open_text(path: str | Path) -> IO[str]:
    """Text lines of a PGN file. Undecodable bytes become U+FFFD instead of stopping the
    build: old collections mix Latin-1 names into otherwise ASCII files."""
    return io.TextIOWrapper(open_binary(path), encoding="utf-8", errors="replace")


def check_text(path: str | Path) -> None:
    """:class:`DatasetError` for a file that is not PGN text at all: NUL bytes never occur
    in PGN, and a UTF-16 file (or a binary one) would otherwise read as a few broken
    "games" and be skipped without a word."""
    try:
        with open_binary(path) as fh:
            head = fh.read(SNIFF_BYTES)
    except _STREAM_ERRORS as exc:
        raise DatasetError(f"cannot read {path}: {exc}") from None
    if not looks_like_text(head):
        raise DatasetError(f"{path}: not PGN text ({NOT_TEXT_HINT})")


def split_games(lines: Iterable[str]) -> Iterator[str]:
    """The text of each game in ``lines`` (see the module docstring for the rule)."""
    buf: list[str] = []
    in_moves = False  # movetext seen since the last tag line
    blank_after_tags = False
    for line in lines:
        if _TAG.match(line):
            if in_moves or blank_after_tags:
                yield "".join(buf)
                buf = []
            in_moves = blank_after_tags = False
        elif line.strip():
            in_moves = True
        elif buf and not in_moves:
            blank_after_tags = True
        buf.append(line)
    if any(line.strip() for line in buf):
        yield "".join(buf)


def read_games(path: str | Path) -> Iterator[tuple[str, bool]]:
    """``(text, intact)`` for each game of the file; ``intact`` is False only for the
    last game of a stream that broke (it may be cut anywhere)."""
    try:
        fh = open_text(path)
        first = fh.readline()
    except _STREAM_ERRORS as exc:
        raise DatasetError(f"cannot read {path}: {exc}") from None
    broken = False

    def lines() -> Iterator[str]:
        nonlocal broken
        line = first
        while line:
            yield line
            try:
                line = fh.readline()
            except _STREAM_ERRORS:
                broken = True
                return

    with fh:
        previous: str | None = None
        for text in split_games(lines()):
            if previous is not None:
                yield previous, True
            previous = text
        if previous is not None:
            yield previous, not broken


def count_games(path: str | Path) -> int:
    """How many games :func:`read_games` will yield (a quick pass for the progress bar
    and for numbering games before any of them is parsed)."""
    return sum(1 for _ in read_games(path))
