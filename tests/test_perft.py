"""Perft: leaf counts of the legal move tree against published suites.

Every EPD line is one test that checks all its depths whose expected count is at most
``FAST_LIMIT`` (bulk counting) and reports every mismatch at once. Deeper counts run
under ``-m slow``. The suites live in ``reference/perft`` (see ``conftest.py``, sources
in ``reference/README.md``); a missing file becomes one test that skips locally and
fails under ``CI=true``.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import chess
import chess.polyglot
import numpy as np
import pytest
from conftest import REPO_ROOT, data_dir, require

from treestrap.core.epd import EpdRecord, epd_lines, perft_record, read_epd
from treestrap.core.move import move_to_uci
from treestrap.core.notation import STARTING_FEN, format_fen, parse_fen
from treestrap.core.perft import MAX_PERFT_DEPTH, divide, perft
from treestrap.play.openings import read_epd_openings

FAST_LIMIT = 2_000_000  # bulk counts checked in the normal run
NON_BULK_LIMIT = 500_000  # make/unmake at every leaf in the normal run
SLOW_LIMIT = 30_000_000  # suite counts checked under -m slow

CPW6 = "perft_cpw6.epd"
SUITES = (
    CPW6,
    "perftsuite.epd",
    "perft_special_whittington.epd",
    "perft_ferdy_double_checks.epd",
)
#: Every 50th line of Marcel van Kervinck's 6,838-line suite, from its first: the sample
#: the tests always checked, the only part of the suite that ships.
MARCEL = "perft_marcel_vankervinck-sample.epd"


def _load(name: str) -> list[EpdRecord] | None:
    path = data_dir() / "perft" / name
    return read_epd(path) if path.exists() else None


def _params(name: str) -> list:
    """One ``(name, record)`` param per EPD line, or one ``(name, None)`` if missing."""
    records = _load(name)
    stem = name.removesuffix(".epd")
    if records is None:
        return [pytest.param(name, None, id=f"{stem}-missing")]
    return [pytest.param(name, rec, id=f"{stem}-L{rec.line_number}") for rec in records]


def _missing(name: str) -> str:
    return f"reference file perft/{name} not found under {data_dir()}"


def _require_record(name: str, rec: EpdRecord | None) -> EpdRecord:
    if rec is None:
        require(False, _missing(name))
    assert rec is not None
    return rec


def _require_records(name: str) -> list[EpdRecord]:
    records = _load(name)
    require(records is not None, _missing(name))
    assert records is not None
    return records


def _check_counts(rec: EpdRecord, lo: int, hi: int, bulk: bool = True) -> int:
    """Check every depth with ``lo < expected <= hi``; returns how many were checked."""
    pos = parse_fen(rec.fen)
    mismatches = []
    checked = 0
    for depth, expected in sorted(rec.perft.items()):
        if not lo < expected <= hi:
            continue
        got = perft(pos, depth, bulk)
        checked += 1
        if got != expected:
            mismatches.append(f"D{depth}: got {got}, expected {expected}")
    assert not mismatches, f"line {rec.line_number} {rec.fen}: " + "; ".join(mismatches)
    return checked


def _snapshot(pos) -> list[np.ndarray]:
    return [pos.bb.copy(), pos.board.copy(), pos.st.copy(), pos.keys.copy(), pos.hist.copy()]


def _assert_unchanged(pos, snap: list[np.ndarray]) -> None:
    names = ("bb", "board", "st", "keys", "hist")
    for name, before, after in zip(names, snap, _snapshot(pos), strict=True):
        assert np.array_equal(before, after), f"perft changed pos.{name}"


# --- the suites, bulk counting ----------------------------------------------------


@pytest.mark.parametrize(("name", "rec"), [p for s in SUITES for p in _params(s)])
def test_suite_line(name: str, rec: EpdRecord | None) -> None:
    rec = _require_record(name, rec)
    pos = parse_fen(rec.fen)
    # D1 against python-chess on every line, also those whose counts are all deep.
    assert perft(pos, 1) == chess.Board(rec.fen).legal_moves.count()
    snap = _snapshot(pos)
    _check_counts(rec, 0, FAST_LIMIT)
    _assert_unchanged(pos, snap)


@pytest.mark.parametrize(("name", "rec"), _params(MARCEL))
def test_marcel_sample(name: str, rec: EpdRecord | None) -> None:
    rec = _require_record(name, rec)
    assert _check_counts(rec, 0, FAST_LIMIT) >= 3, "sample line should have D1-D3"


def test_suites_are_substantial() -> None:
    """Guard against a truncated data file silently shrinking the suite."""
    sizes = {CPW6: 7, "perftsuite.epd": 126, "perft_special_whittington.epd": 174}
    sizes |= {"perft_ferdy_double_checks.epd": 184, MARCEL: 137}
    for name, size in sizes.items():
        assert len(_require_records(name)) == size, name


def test_two_bishops_checking_on_one_diagonal_is_accepted() -> None:
    """perftsuite.epd line 51: white bishops on a8 and h1 both check the king on f3."""
    rec = next(r for r in _require_records("perftsuite.epd") if r.line_number == 51)
    assert rec.fen.startswith("B6b/8/8/8/2K5/5k2/8/b6B b")
    pos = parse_fen(rec.fen)
    assert format_fen(pos) == chess.Board(rec.fen).fen()
    assert perft(pos, 1) == 6
    assert perft(pos, 3) == rec.perft[3]


# --- make/unmake at every leaf --------------------------------------------------------


@pytest.mark.parametrize(("name", "rec"), _params(CPW6))
def test_non_bulk_equals_bulk(name: str, rec: EpdRecord | None) -> None:
    rec = _require_record(name, rec)
    pos = parse_fen(rec.fen)
    snap = _snapshot(pos)
    checked = 0
    for depth, expected in sorted(rec.perft.items()):
        if expected > NON_BULK_LIMIT:
            continue
        slow = perft(pos, depth, bulk=False)
        fast = perft(pos, depth, bulk=True)
        assert (slow, fast) == (expected, expected), f"D{depth}"
        checked += 1
    assert checked >= 3
    _assert_unchanged(pos, snap)


# --- divide -------------------------------------------------------------------


@pytest.mark.usefixtures("kernels_load_from_cache")
@pytest.mark.parametrize(("name", "rec"), _params(CPW6))
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_divide(name: str, rec: EpdRecord | None, depth: int) -> None:
    rec = _require_record(name, rec)
    pos = parse_fen(rec.fen)
    rows = divide(pos, depth)
    ucis = [move_to_uci(m) for m, _ in rows]
    board = chess.Board(rec.fen)
    assert len(ucis) == len(set(ucis)), "divide lists a move twice"
    assert set(ucis) == {m.uci() for m in board.legal_moves}
    assert sum(c for _, c in rows) == perft(pos, depth) == rec.perft[depth]
    assert divide(pos, depth, bulk=False) == rows
    # Each root move's count is the perft of the position after it.
    for move, count in rows:
        child = board.copy(stack=False)
        child.push_uci(move_to_uci(move))
        assert count == perft(parse_fen(child.fen()), depth - 1), move_to_uci(move)


def test_depth_bounds() -> None:
    pos = parse_fen(STARTING_FEN)
    assert perft(pos, 0) == 1
    assert perft(pos, 0, bulk=False) == 1
    assert perft(pos, 1) == perft(pos, 1, bulk=False) == 20
    for bad in (-1, MAX_PERFT_DEPTH + 1):
        with pytest.raises(ValueError, match="depth"):
            perft(pos, bad)
    for bad in (0, -1, MAX_PERFT_DEPTH + 1):
        with pytest.raises(ValueError, match="depth"):
            divide(pos, bad)


@pytest.mark.usefixtures("kernels_load_from_cache")
def test_mate_and_stalemate_have_no_children() -> None:
    mate = parse_fen("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    stalemate = parse_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    for pos in (mate, stalemate):
        assert divide(pos, 2) == []
        for depth in (1, 2, 3):
            assert perft(pos, depth) == perft(pos, depth, bulk=False) == 0


def test_core_runs_without_jit() -> None:
    """``NUMBA_DISABLE_JIT=1`` is the documented way to debug a kernel (core/jit.py):
    the core must then run as plain Python and give the same answers."""
    kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    key = chess.polyglot.zobrist_hash(chess.Board(kiwipete))
    code = f"""
from treestrap.core.notation import format_fen, parse_fen
from treestrap.core.perft import divide, perft
from treestrap.core.position import compute_key, current_key
pos = parse_fen({kiwipete!r})
assert current_key(pos) == compute_key(pos) == {key}
assert perft(pos, 2, bulk=False) == 2039
assert sum(c for _, c in divide(pos, 1)) == 48
print(format_fen(pos))
"""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT, env=env
    )
    assert proc.returncode == 0, proc.stderr.strip().splitlines()[-3:]
    assert proc.stdout.strip() == kiwipete


def test_suites_and_opening_books_share_one_epd_reader(tmp_path: Path) -> None:
    """Blank and ``#`` lines hold nothing; the rest keep their editor line numbers. A
    suite keeps a line of operations alone (its empty FEN then fails); a book skips it."""
    text = (
        "# a comment\r\n\n"
        f'{STARTING_FEN} ;D1 20 ; D2 400 ;id "start";\n'
        "  ;D1 5\n"
        "8/8/8/8/8/8/8/K6k w - - ;bm Kb1\n"
    )
    lines = list(epd_lines(io.StringIO(text, newline=None)))
    assert [line.line_number for line in lines] == [3, 4, 5]
    assert lines[0].fen_fields == tuple(STARTING_FEN.split())
    assert lines[0].operations == ("D1 20", "D2 400", 'id "start"')
    assert lines[1].fen_fields == () and lines[1].operations == ("D1 5",)

    suite = tmp_path / "s.epd"
    suite.write_bytes(text.encode())
    records = read_epd(suite)
    assert [r.line_number for r in records] == [3, 4, 5]
    assert records[0] == perft_record(lines[0])
    assert (records[0].perft, records[0].name) == ({1: 20, 2: 400}, "start")
    assert (records[1].fen, records[1].perft) == ("", {1: 5})
    assert records[2].operations == {"bm": "Kb1"}

    book = read_epd_openings(suite)
    assert [(o.name, o.fen) for o in book] == [
        ("line 3", STARTING_FEN),
        ("line 5", "8/8/8/8/8/8/8/K6k w - - 0 1"),
    ]


# --- deep counts (-m slow) ---------------------------------------------------------

DEEP = [
    ("CPW initial position", 6),
    ("CPW position 2 (Kiwipete)", 5),
    ("CPW position 3", 6),
    ("CPW position 4", 5),
    ("CPW position 4 (mirrored)", 5),
    ("CPW position 5", 5),
    ("CPW position 6", 5),
]


@pytest.mark.slow
@pytest.mark.parametrize(("ident", "depth"), DEEP, ids=[f"{i}-D{d}" for i, d in DEEP])
def test_deep_cpw(ident: str, depth: int) -> None:
    rec = next(r for r in _require_records(CPW6) if r.name == ident)
    expected = rec.perft[depth]
    assert expected > FAST_LIMIT
    assert perft(parse_fen(rec.fen), depth) == expected


@pytest.mark.slow
@pytest.mark.parametrize("name", ["perftsuite.epd", "perft_special_whittington.epd"])
def test_deep_suite_counts(name: str) -> None:
    """Every count in (FAST_LIMIT, SLOW_LIMIT] of a suite, all mismatches reported."""
    failures = []
    checked = 0
    for rec in _require_records(name):
        try:
            checked += _check_counts(rec, FAST_LIMIT, SLOW_LIMIT)
        except AssertionError as exc:
            failures.append(str(exc).splitlines()[0])
    assert not failures, "\n".join(failures)
    assert checked >= 40


@pytest.mark.slow
@pytest.mark.parametrize(("name", "rec"), _params(CPW6))
def test_deep_non_bulk(name: str, rec: EpdRecord | None) -> None:
    """Make/unmake at every leaf on counts up to 5M."""
    rec = _require_record(name, rec)
    pos = parse_fen(rec.fen)
    for depth, expected in sorted(rec.perft.items()):
        if NON_BULK_LIMIT < expected <= 5_000_000:
            assert perft(pos, depth, bulk=False) == expected, f"D{depth}"
