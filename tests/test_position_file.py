"""The binary position file (``treestrap.distill.position_file``): records made from
the positions of random legal games give back those boards, their inputs and their
labels; files stream in batches, in order or shuffled, every record once; a file cut
by a kill counts its whole records only; other files are refused."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import numpy as np
import pytest

from treestrap.core.notation import position_from_board
from treestrap.distill.labels import board_row
from treestrap.distill.position_file import (
    RECORD,
    SCORE_LIMIT,
    PositionFileError,
    PositionWriter,
    bitboard_rows,
    feature_lists,
    iter_batches,
    pack_position,
    read_header,
    read_records,
    record_count,
    to_fen,
    truncate,
)

#: An en passant that is possible on paper but illegal: b5xc6 would open the fifth
#: rank between the white king and the black rook.
PINNED_EP = ("4k3/2p5/8/KP5r/8/8/8/8 b - - 0 1", ["c7c5"])


def _random_boards(games: int, plies: int, seed: int) -> list[chess.Board]:
    """Every position of ``games`` random legal games (at most ``plies`` plies each)."""
    rng = random.Random(seed)
    boards = []
    for _ in range(games):
        board = chess.Board()
        boards.append(board.copy())
        for _ in range(plies):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            boards.append(board.copy())
    start, moves = PINNED_EP
    board = chess.Board(start)
    for move in moves:
        board.push_uci(move)
    boards.append(board)
    return boards


def _pack(board: chess.Board, score: float, result: int) -> np.ndarray:
    return pack_position(position_from_board(board), score, result, board.ply())


@pytest.fixture(scope="module")
def games() -> tuple[list[chess.Board], np.ndarray]:
    """Boards and their records; scores and results vary with the index."""
    boards = _random_boards(games=6, plies=90, seed=7)
    records = np.concatenate(
        [_pack(b, score=(i * 37) % 2001 - 1000, result=i % 3 - 1) for i, b in enumerate(boards)]
    )
    return boards, records


def test_records_give_back_the_boards(games: tuple[list[chess.Board], np.ndarray]) -> None:
    boards, records = games
    for board, record in zip(boards, records, strict=True):
        # The record keeps an en-passant square when a pawn stands beside the one that
        # passed it (X-FEN's rule), legal or not; the fullmove number comes from the ply.
        assert to_fen(record) == board.fen(en_passant="xfen")
    assert {int(r["ep"]) for r in records} - {-1}, "no en-passant square in the games"


def test_a_pinned_en_passant_is_kept_as_xfen_writes_it() -> None:
    start, moves = PINNED_EP
    board = chess.Board(start)
    for move in moves:
        board.push_uci(move)
    fen = to_fen(_pack(board, 0.0, 0)[0])
    assert fen.split()[3] == "c6" == board.fen(en_passant="xfen").split()[3]
    assert board.fen(en_passant="legal").split()[3] == "-"


def test_labels_and_clocks_are_kept(games: tuple[list[chess.Board], np.ndarray]) -> None:
    boards, records = games
    n = len(boards)
    assert records["score"].tolist() == [(i * 37) % 2001 - 1000 for i in range(n)]
    assert records["result"].tolist() == [i % 3 - 1 for i in range(n)]
    assert records["ply"].tolist() == [b.ply() for b in boards]
    assert records["halfmove"].tolist() == [b.halfmove_clock for b in boards]


def test_bitboard_rows_are_the_boards_inputs(games: tuple[list[chess.Board], np.ndarray]) -> None:
    boards, records = games
    expected = np.stack([board_row(b) for b in boards])
    rows = bitboard_rows(records)
    assert rows.dtype == np.uint8
    assert np.array_equal(rows, expected)


def test_feature_lists_agree_with_the_rows(games: tuple[list[chess.Board], np.ndarray]) -> None:
    _, records = games
    rows, inputs = feature_lists(records)
    assert np.all(np.diff(rows) >= 0), "pairs not sorted by row"
    dense = np.zeros((len(records), 768), dtype=np.uint8)
    dense[rows, inputs] = 1
    assert len(rows) == int(dense.sum()), "an input listed twice"
    assert np.array_equal(dense, bitboard_rows(records)[:, :768])


def test_scores_beyond_int16_are_clipped() -> None:
    pos = position_from_board(chess.Board())
    for score, kept in ((1e6, SCORE_LIMIT), (-1e6, -SCORE_LIMIT), (40_000, SCORE_LIMIT)):
        assert int(pack_position(pos, score, 0, 0)["score"][0]) == kept
    assert int(pack_position(pos, 123.4, 0, 0)["score"][0]) == 123
    assert int(pack_position(pos, -9999.0, 1, 0)["score"][0]) == -9999


def _numbered(count: int) -> np.ndarray:
    """``count`` records, each with its index as its score (to tell them apart)."""
    records = np.zeros(count, dtype=RECORD)
    records["score"] = np.arange(count)
    return records


def _write(path: Path, records: np.ndarray) -> Path:
    with PositionWriter(path, {"source": "test"}) as writer:
        writer.write(records)
    return path


def test_batches_in_order_give_every_record_once(tmp_path: Path) -> None:
    files = [
        _write(tmp_path / "a.tspos", _numbered(1000)),
        _write(tmp_path / "b.tspos", _numbered(37)),
    ]
    batches = list(iter_batches(files, batch=128))
    assert all(len(b) <= 128 for b in batches)
    scores = np.concatenate([b["score"] for b in batches])
    assert scores.tolist() == list(range(1000)) + list(range(37))
    header, _ = read_header(files[0])
    assert header["source"] == "test" and header["record"] == "chess-40"


def test_shuffled_batches_are_a_permutation(tmp_path: Path) -> None:
    files = [_write(tmp_path / "a.tspos", _numbered(1000))]
    files.append(_write(tmp_path / "b.tspos", _numbered(3000)[1000:]))
    seen = np.concatenate([b["score"] for b in iter_batches(files, batch=100, seed=3)])
    assert sorted(seen.tolist()) == list(range(3000))
    assert seen.tolist() != list(range(3000)), "a seed left the order as it was"
    again = np.concatenate([b["score"] for b in iter_batches(files, batch=100, seed=3)])
    assert np.array_equal(seen, again), "the same seed gave another order"
    other = np.concatenate([b["score"] for b in iter_batches(files, batch=100, seed=4)])
    assert not np.array_equal(seen, other)


def test_a_file_cut_mid_record_counts_whole_records(tmp_path: Path) -> None:
    path = _write(tmp_path / "cut.tspos", _numbered(10))
    with open(path, "ab") as fh:  # what a kill while writing leaves
        fh.write(_numbered(11)[10:].tobytes()[:17])
    assert record_count(path) == 10
    assert read_records(path)["score"].tolist() == list(range(10))
    truncate(path, record_count(path))  # cut back to whole records, then append
    _write(path, _numbered(12)[10:])
    assert read_records(path)["score"].tolist() == list(range(12))
    truncate(path, 4)
    assert record_count(path) == 4
    assert read_records(path)["score"].tolist() == list(range(4))
    _, start = read_header(path)
    assert path.stat().st_size == start + 4 * RECORD.itemsize


def test_an_empty_file_has_no_records(tmp_path: Path) -> None:
    path = _write(tmp_path / "empty.tspos", _numbered(0))
    assert record_count(path) == 0
    assert len(read_records(path)) == 0
    assert list(iter_batches([path], batch=8)) == []


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 0 | 0.5\n",
        b"TSPOS01\n\x05\x00\x00\x00{bad}",
        b'TSPOS01\n\x11\x00\x00\x00{"record": "x-9"}',
    ],
    ids=["empty", "text", "bad-json", "other-record"],
)
def test_other_files_are_refused(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "other.bin"
    path.write_bytes(content)
    for read in (read_header, record_count, read_records):
        with pytest.raises(PositionFileError):
            read(path)
    with pytest.raises(PositionFileError):
        PositionWriter(path)
    with pytest.raises(PositionFileError):
        list(iter_batches([path], batch=8))


def test_the_writer_refuses_other_arrays(tmp_path: Path) -> None:
    with PositionWriter(tmp_path / "x.tspos") as writer, pytest.raises(TypeError):
        writer.write(np.zeros(3, dtype=np.int64))


def test_a_writer_appends_after_the_last_whole_record(tmp_path: Path) -> None:
    path = tmp_path / "cut.tspos"
    records = np.zeros(3, dtype=RECORD)
    records["score"] = [1, 2, 3]
    with PositionWriter(path) as writer:
        writer.write(records[:2])
    with open(path, "ab") as fh:  # a kill in the middle of a record
        fh.write(records[2:].tobytes()[:17])
    with PositionWriter(path) as writer:
        writer.write(records[2:])
    assert list(read_records(path)["score"]) == [1, 2, 3]
