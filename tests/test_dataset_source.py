"""Reading PGN collections: plain and compressed files, cutting games, broken streams."""

from __future__ import annotations

import bz2
import gzip
import lzma
from pathlib import Path

import pytest
import zstandard

from treestrap.supervised.dataset.errors import DatasetError
from treestrap.supervised.dataset.source import count_games, read_games, split_games

GAME_A = '[Event "a"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n'
GAME_B = '[Event "b"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n'
#: A lichess-style clock comment on a line of its own must not start a game.
GAME_C = '[Event "c"]\n[Result "1/2-1/2"]\n\n1. e4 {\n[%clk 0:01:00] } e5 1/2-1/2\n\n'
#: Tags but no movetext, then another game.
HEADERS_ONLY = '[Event "empty"]\n[Result "*"]\n\n'
TEXT = GAME_A + GAME_B + GAME_C


def test_split_games_cuts_at_tags_after_movetext() -> None:
    games = list(split_games(TEXT.splitlines(keepends=True)))
    assert games == [GAME_A, GAME_B, GAME_C]


def test_a_header_block_without_moves_is_a_game_of_its_own() -> None:
    games = list(split_games((HEADERS_ONLY + GAME_B).splitlines(keepends=True)))
    assert games == [HEADERS_ONLY, GAME_B]


@pytest.mark.parametrize(
    ("suffix", "compress"),
    [
        (".pgn", lambda b: b),
        (".pgn.gz", gzip.compress),
        (".pgn.bz2", bz2.compress),
        (".pgn.xz", lzma.compress),
        (".pgn.zst", lambda b: zstandard.ZstdCompressor().compress(b)),
    ],
)
def test_every_compression_reads_the_same_games(tmp_path: Path, suffix: str, compress) -> None:
    path = tmp_path / f"games{suffix}"
    path.write_bytes(compress(TEXT.encode()))
    assert [text for text, _ in read_games(path)] == [GAME_A, GAME_B, GAME_C]
    assert all(intact for _, intact in read_games(path))
    assert count_games(path) == 3


def test_a_cut_compressed_stream_marks_its_last_game_broken(tmp_path: Path) -> None:
    data = gzip.compress((TEXT * 200).encode())
    path = tmp_path / "cut.pgn.gz"
    path.write_bytes(data[: len(data) // 2])
    games = list(read_games(path))
    assert 0 < len(games) < 600
    assert all(intact for _, intact in games[:-1])
    assert games[-1][1] is False


def test_a_file_that_is_not_what_its_name_says_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "plain.pgn.gz"
    path.write_text(TEXT)
    with pytest.raises(DatasetError, match="cannot read"):
        list(read_games(path))


def test_latin1_bytes_do_not_stop_the_reader(tmp_path: Path) -> None:
    path = tmp_path / "latin1.pgn"
    path.write_bytes(GAME_A.replace('"a"', '"M\xfcller"').encode("latin-1") + GAME_B.encode())
    assert count_games(path) == 2
