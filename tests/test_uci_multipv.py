"""UCI MultiPV: ``setoption name MultiPV value k`` reports the k best lines of each
iteration, ``info ... multipv i ...`` best first, and plays line 1's move; MultiPV 1
searches and prints as a plain session does.

Most tests drive an in-process session (:class:`treestrap.engine.uci.UciEngine`) with
the hand-set weights and parse its lines by hand with python-chess; one speaks to the
real ``treestrap uci`` subprocess through ``chess.engine``, as a GUI would.
"""

from __future__ import annotations

import re
import sys

import chess
import chess.engine
import pytest
from uci_session import SEARCH_TIMEOUT, Session, info_lines

from treestrap.engine.uci import MULTIPV_MAX

#: Positions without a quick mate, so that every search runs to its full depth.
POSITIONS = (
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bq1rk1/pp2b1pp/n1pp1n2/3P1p2/2P1p3/2N1P2N/PP2BPPP/R1BQ1RK1 b - - 2 10",
    "8/8/1p2k1p1/3p3p/1p1P1P1P/1P2PK2/8/8 w - - 3 54",
)
#: Black to move with two legal moves (Kg8 and Kh7).
TWO_MOVES = "7k/8/5K2/8/8/8/P7/8 b - - 0 1"


def _last_depth(lines: list[str]) -> list[re.Match[str]]:
    infos = info_lines(lines)
    last = max(int(m["depth"]) for m in infos)
    return [m for m in infos if int(m["depth"]) == last]


def _score(m: re.Match[str]) -> float:
    """A comparable score: mates beyond every centipawn score, nearer ones higher."""
    v = int(m["score"])
    if m["kind"] == "cp":
        return float(v)
    return 1e6 - v if v > 0 else -1e6 - v


def _check_legal(fen: str, pv: str) -> None:
    board = chess.Board(fen)
    for text in pv.split():
        move = chess.Move.from_uci(text)
        assert move in board.legal_moves, f"{text} is illegal in {board.fen()} (pv {pv})"
        board.push(move)


@pytest.mark.parametrize("fen", POSITIONS)
def test_multipv_3_reports_three_distinct_ordered_legal_lines(session: Session, fen: str) -> None:
    session.send("setoption name MultiPV value 3")
    lines = session.search(fen, "go depth 6")
    last = _last_depth(lines)
    assert int(last[0]["depth"]) == 6
    assert [m["multipv"] for m in last] == ["1", "2", "3"]
    firsts = [m["pv"].split()[0] for m in last]
    assert len(set(firsts)) == 3
    scores = [_score(m) for m in last]
    assert scores == sorted(scores, reverse=True)
    for m in last:
        _check_legal(fen, m["pv"])
    # every iteration reports its three lines, in order
    assert [m["multipv"] for m in info_lines(lines)] == ["1", "2", "3"] * 6
    assert lines[-1].split()[1] == firsts[0]  # bestmove: line 1's move


def _without_time(lines: list[str]) -> list[str]:
    """The lines with the clock-dependent fields (time, nps) left out."""
    return [re.sub(r" (nps|time) \d+", "", line) for line in lines]


@pytest.mark.parametrize("fen", POSITIONS[:2])
def test_multipv_1_searches_as_a_plain_session(fen: str) -> None:
    plain, chosen = Session(), Session()
    try:
        chosen.send("setoption name MultiPV value 3", "setoption name MultiPV value 1")
        expected = plain.search(fen, "go depth 6")
        got = chosen.search(fen, "go depth 6")
    finally:
        plain.close()
        chosen.close()
    assert _without_time(got) == _without_time(expected)
    assert not any("multipv" in line for line in got)
    assert got[-1] == expected[-1]


def test_fewer_legal_moves_than_lines(session: Session) -> None:
    session.send("setoption name MultiPV value 3")
    lines = session.search(TWO_MOVES, "go depth 6")
    last = _last_depth(lines)
    assert [m["multipv"] for m in last] == ["1", "2"]
    assert {m["pv"].split()[0] for m in last} == {"h8g8", "h8h7"}


def test_a_bad_multipv_is_refused(session: Session) -> None:
    before = len(session.out.getvalue())
    session.send(
        "setoption name MultiPV value 0",
        f"setoption name MultiPV value {MULTIPV_MAX + 1}",
        "setoption name MultiPV value three",
    )
    lines = session.out.getvalue()[before:].splitlines()
    assert len(lines) == 3
    assert all(line.startswith("info string error: setoption MultiPV: ") for line in lines)


def test_a_gui_reads_three_lines_through_python_chess() -> None:
    command = [sys.executable, "-m", "treestrap.cli", "uci"]
    with chess.engine.SimpleEngine.popen_uci(command, timeout=SEARCH_TIMEOUT) as engine:
        assert engine.options["MultiPV"].default == 1
        engine.configure({"Preset": "hand-set"})
        board = chess.Board(POSITIONS[1])
        infos = engine.analyse(board, chess.engine.Limit(depth=6), multipv=3)
    assert [info["multipv"] for info in infos] == [1, 2, 3]
    assert all(info["depth"] == 6 for info in infos)
    assert len({info["pv"][0] for info in infos}) == 3
    scores = [info["score"].relative.score(mate_score=100000) for info in infos]
    assert scores == sorted(scores, reverse=True)
    for info in infos:
        _check_legal(board.fen(), " ".join(m.uci() for m in info["pv"]))


@pytest.mark.parametrize("go", ["go nodes 500", "go movetime 100"])
def test_a_limited_multipv_search_answers_a_searched_move(session: Session, go: str) -> None:
    session.send("setoption name MultiPV value 4")
    lines = session.search(POSITIONS[1], go)
    infos = info_lines(lines)
    assert infos and infos[0]["multipv"] == "1"
    best = lines[-1].split()[1]
    assert chess.Move.from_uci(best) in chess.Board(POSITIONS[1]).legal_moves
    last = _last_depth(lines)
    assert best == last[0]["pv"].split()[0]  # line 1 of the last whole iteration
