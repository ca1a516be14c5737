"""``treestrap data export | import`` through the command line's entry function: text
and EPD lines carry every field of a record and back, the text form keeps score and
result from white's point of view, PGN games become scored positions with their
games' results, and bad files end in one ``error:`` line and exit code 2."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import numpy as np
import pytest

from treestrap.cli import main
from treestrap.core.notation import position_from_board
from treestrap.distill.position_file import (
    PositionWriter,
    pack_position,
    read_header,
    read_records,
    record_count,
)

PGN = """[Event "t"]
[White "a"]
[Black "b"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. c3 Nf6 5. d4 exd4 1-0

[Event "t"]
[White "b"]
[Black "a"]
[Result "1/2-1/2"]

1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O 6. Nf3 h6 1/2-1/2

[Event "t"]
[White "a"]
[Black "b"]
[Result "*"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 *
"""


def _boards(seed: int = 5) -> list[chess.Board]:
    """The positions of three random legal games."""
    rng = random.Random(seed)
    boards = []
    for _ in range(3):
        board = chess.Board()
        while not board.is_game_over() and board.ply() < 100:
            board.push(rng.choice(list(board.legal_moves)))
            boards.append(board.copy())
    return boards


@pytest.fixture(scope="module")
def positions(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[chess.Board]]:
    """A position file of random games' positions, with scores and results to tell
    white's view from the side to move's."""
    boards = _boards()
    records = np.concatenate(
        [
            pack_position(position_from_board(b), (i * 53) % 3001 - 1500, i % 3 - 1, b.ply())
            for i, b in enumerate(boards)
        ]
    )
    path = tmp_path_factory.mktemp("data") / "games.tspos"
    with PositionWriter(path, {"source": "test"}) as writer:
        writer.write(records)
    return path, boards


def _run(args: list[str]) -> int:
    return main(["data", *args, "--no-progress"])


@pytest.mark.parametrize("form", ["text", "epd"])
def test_export_import_keeps_every_field(
    positions: tuple[Path, list[chess.Board]], tmp_path: Path, form: str
) -> None:
    path, boards = positions
    text = tmp_path / f"games.{form}"
    assert _run(["export", str(path), "--out", str(text), "--format", form]) == 0
    lines = text.read_text().splitlines()
    assert len(lines) == len(boards)
    back = tmp_path / "back.tspos"
    assert _run(["import", str(text), "--out", str(back)]) == 0
    assert read_records(back).tobytes() == read_records(path).tobytes()
    assert read_header(back)[0]["source"] == "text"


def test_text_lines_are_from_whites_point_of_view(
    positions: tuple[Path, list[chess.Board]], tmp_path: Path
) -> None:
    path, boards = positions
    text = tmp_path / "games.txt"
    assert _run(["export", str(path), "--out", str(text)]) == 0
    records = read_records(path)
    for line, board, record in zip(text.read_text().splitlines(), boards, records, strict=True):
        fen, score, result = line.split(" | ")
        assert fen == board.fen(en_passant="xfen")
        sign = 1 if board.turn == chess.WHITE else -1
        assert int(score) == sign * int(record["score"])
        assert result == {1: "1.0", 0: "0.5", -1: "0.0"}[sign * int(record["result"])]


def test_epd_lines_are_from_the_side_to_move(
    positions: tuple[Path, list[chess.Board]], tmp_path: Path
) -> None:
    path, boards = positions
    epd = tmp_path / "games.epd"  # the form follows the name
    assert _run(["export", str(path), "--out", str(epd)]) == 0
    records = read_records(path)
    for line, board, record in zip(epd.read_text().splitlines(), boards, records, strict=True):
        parsed, ops = chess.Board.from_epd(line)
        assert parsed.fen(en_passant="xfen") == board.fen(en_passant="xfen")
        assert ops["ce"] == int(record["score"])
        sign = 1 if board.turn == chess.WHITE else -1
        assert ops["c0"] == {1: "1-0", 0: "1/2-1/2", -1: "0-1"}[sign * int(record["result"])]


def test_mixed_forms_and_append(positions: tuple[Path, list[chess.Board]], tmp_path: Path) -> None:
    path, boards = positions
    for form in ("text", "epd"):
        assert _run(["export", str(path), "--out", str(tmp_path / form), "--format", form]) == 0
    mixed = tmp_path / "mixed.txt"
    mixed.write_text((tmp_path / "text").read_text() + "\n" + (tmp_path / "epd").read_text())
    out = tmp_path / "mixed.tspos"
    assert _run(["import", str(mixed), "--out", str(out)]) == 0
    assert record_count(out) == 2 * len(boards)
    assert _run(["import", str(mixed), "--out", str(out)]) == 2, "overwrote without --append"
    assert _run(["import", str(tmp_path / "epd"), "--out", str(out), "--append"]) == 0
    assert record_count(out) == 3 * len(boards)
    bad = tmp_path / "bad.txt"
    bad.write_text((tmp_path / "text").read_text() + "not a position\n")
    assert _run(["import", str(bad), "--out", str(out), "--append"]) == 2
    assert record_count(out) == 3 * len(boards), "a failed append left records behind"


def test_pgn_games_become_scored_positions(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    pgn.write_text(PGN)
    out = tmp_path / "games.tspos"
    assert _run(["import", str(pgn), "--out", str(out), "--label-depth", "1"]) == 0
    records = read_records(out)
    # From ply 8: plies 8-10 of the won game, 8-12 of the drawn one; the game without a
    # result is left out.
    assert records["ply"].tolist() == [8, 9, 10, 8, 9, 10, 11, 12]
    # The result for the side to move: white won the first game, the second was drawn.
    assert records["result"].tolist() == [1, -1, 1, 0, 0, 0, 0, 0]
    assert np.all(np.abs(records["score"].astype(int)) < 2000)
    assert read_header(out)[0]["depth"] == 1


def test_bad_files_give_one_error_line(
    positions: tuple[Path, list[chess.Board]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = positions
    junk = tmp_path / "junk.txt"
    junk.write_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 0 | 1.0\n\nhello\n")
    nokings = tmp_path / "nokings.txt"
    nokings.write_text("8/8/8/8/8/8/8/8 w - - 0 1 | 0 | 0.5\n")
    pgn = ["--from", "pgn", "--label-depth", "1"]
    cases = [
        (["import", str(junk), "--out", str(tmp_path / "a.tspos")], "junk.txt:3:"),
        (["import", str(nokings), "--out", str(tmp_path / "b.tspos")], "one king of each side"),
        (["export", str(junk), "--out", str(tmp_path / "c.txt")], "not a treestrap position"),
        (["import", str(junk), "--out", str(path)], "exists"),
        (["import", str(path), "--out", str(tmp_path / "e.tspos")], "a position file already"),
        (["import", str(junk), "--out", str(tmp_path / "d.tspos"), *pgn], "no PGN game"),
    ]
    for args, phrase in cases:
        assert _run(args) == 2, args
        err = capsys.readouterr().err
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), err
        assert phrase in lines[0] and "Traceback" not in err
    binary = tmp_path / "utf16.txt"
    binary.write_text("8/8/8/8/8/8/8/8 w - - 0 1 | 0 | 0.5\n", encoding="utf-16")
    assert _run(["import", str(binary), "--out", str(tmp_path / "f.tspos")]) == 2
    assert "not text" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junk.txt", "nokings.txt", "utf16.txt"]


def test_lines_from_other_writers(tmp_path: Path) -> None:
    """FEN's en-passant square after every double step (kept only where a pawn can
    take), castling letters in another order, clocks left out, a score at the bound."""
    board = chess.Board()
    for move in ("e2e4", "a7a6", "e4e5", "d7d5"):
        board.push_uci(move)
    lines = [
        chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1").fen(
            en_passant="fen"
        )
        + " | 40 | 1",
        board.fen(en_passant="fen") + " | 32000 | 0.5",
        "r3k2r/8/8/8/8/8/8/R3K2R b qkQK - | -12 | 0.0",
    ]
    text = tmp_path / "other.txt"
    text.write_text("\n".join(lines) + "\n")
    out = tmp_path / "other.tspos"
    assert _run(["import", str(text), "--out", str(out)]) == 0
    records = read_records(out)
    assert records["ep"].tolist() == [-1, chess.D6, -1]  # no pawn beside e4; e5 beside d5
    assert records["score"].tolist() == [-40, 32_000, 12]  # to the side to move
    assert records["result"].tolist() == [-1, 0, 1]
    assert records["ply"].tolist() == [1, 4, 1]  # from the fullmove number and the side
    assert (records["flags"] >> 1).tolist()[2] == 15


def test_scores_out_of_range_and_empty_input_write_nothing(
    positions: tuple[Path, list[chess.Board]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A score a record cannot hold (past 32000 centipawns, every mate score included)
    is a bug in its writer, not a number to clip; no line at all is nothing to import."""
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"
    huge = tmp_path / "huge.txt"
    huge.write_text(f"{start} 0 1 | 12 | 0.5\n{start} 0 1 | 1e20 | 0.5\n")
    mate = tmp_path / "mate.epd"
    mate.write_text(f'{start} ce -32001; c0 "0-1";\n')
    blank = tmp_path / "blank.txt"
    blank.write_text("\n  \n")
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    pgn = tmp_path / "short.pgn"  # a game that ends before ply 8: no position kept
    pgn.write_text('[Result "1-0"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n')
    cases = [
        ([str(huge)], "huge.txt:2: score '1e20' is out of range: a record holds -32000 to 32000"),
        ([str(mate)], "mate.epd:1: ce '-32001' is out of range"),
        ([str(blank)], "no positions to import: " + str(blank) + " holds no position line"),
        ([str(empty), str(blank)], "hold no position line"),
        ([str(pgn), "--label-depth", "1"], "no positions to import: no game of "),
    ]
    for args, phrase in cases:
        out = tmp_path / "out.tspos"
        assert _run(["import", *args, "--out", str(out)]) == 2, args
        err = capsys.readouterr().err
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: ") and phrase in lines[0], err
        assert not out.exists() and not (tmp_path / "out.tspos.part").exists()
    # Appended to, a file stays as it was.
    path, _ = positions
    kept = tmp_path / "kept.tspos"
    kept.write_bytes(path.read_bytes())
    assert _run(["import", str(huge), "--out", str(kept), "--append"]) == 2
    assert _run(["import", str(blank), "--out", str(kept), "--append"]) == 2
    assert kept.read_bytes() == path.read_bytes()
