"""Telling a text file from one that is not, before reading it as text.

NUL never occurs in PGN, EPD or TSV text, while UTF-16 (a Windows editor's "Unicode")
and binary files are full of it; read as UTF-8 with replacement they would parse as
nothing, silently. Every reader of a user's text file checks its head the same way.
"""

from __future__ import annotations

#: How much of a file's start is looked at.
SNIFF_BYTES = 4096
#: What the user is told, after the file's name and what it should have been.
NOT_TEXT_HINT = "binary data or UTF-16; save it as UTF-8"


def looks_like_text(head: bytes) -> bool:
    """False if the first :data:`SNIFF_BYTES` of ``head`` hold a NUL byte."""
    return b"\0" not in head[:SNIFF_BYTES]
