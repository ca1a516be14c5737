"""Fuzzing ``treestrap uci``: hypothesis strategies for command lines, an oracle for
the position they leave, and a driver that talks to a real engine process.

Used by ``tests/test_uci_fuzz.py`` (a bounded number of sequences in CI) and by
``benchmarks/uci_fuzz.py`` (as many as one asks for). A *sequence* is a list of raw
lines (bytes, no newline): valid commands, near-valid ones (bad FENs, illegal moves,
huge numbers, bad option values) and garbage (random text and bytes, very long lines).
After each sequence the driver checks that the engine

* still answers ``stop`` and ``isready`` with ``readyok`` in time,
* shows with ``d`` the position of the last ``position`` command it should have
  accepted (computed here with python-chess; a rejected command leaves the previous
  position),
* still searches (``go depth 1`` answers a legal move),
* is alive and wrote no Python traceback.

Three kinds of lines are never sent, because they are meant to take long or to end the
session: ``quit``, ``bench`` deeper than 1, and a ``Hash`` above
:data:`MAX_FUZZ_HASH_MB`.
"""

from __future__ import annotations

import contextlib
import os
import queue
import random
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import chess
from hypothesis import strategies as st

from treestrap.core.notation import MAX_CLOCK  # the FEN contract's largest clock
from treestrap.engine.uci_protocol import MAX_GAME_PLIES
from treestrap.evaluation.presets import hand_set_model
from treestrap.evaluation.weights import save_weights

UCI_COMMAND = [sys.executable, "-m", "treestrap.cli", "uci"]
#: Deadline for the first readyok (numba may have to compile the search).
START_TIMEOUT = 300.0
#: Deadline for the answers to one sequence's checks (generous: a loaded 2-core machine
#: parses a few thousand moves and finishes a bench in well under this).
ANSWER_TIMEOUT = 30.0
#: Larger tables are valid but take a while to allocate; the fuzzer keeps them small.
MAX_FUZZ_HASH_MB = 64
#: Lines of one generated sequence.
MAX_SEQUENCE = 10

# --- what the engine reads -------------------------------------------------------------


def engine_lines(data: bytes, encoding: str = "utf-8") -> list[str]:
    """The command lines the engine reads from ``data``: stdin is decoded (UTF-8
    unless the console says otherwise) with replacement characters, in
    universal-newlines mode."""
    text = data.decode(encoding, errors="replace")
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


# --- the position oracle (python-chess) ------------------------------------------------

_PLACEMENT_CHARS = frozenset("pnbrqkPNBRQK12345678/")
_ODD_CHECKS = chess.STATUS_TOO_MANY_CHECKERS | chess.STATUS_IMPOSSIBLE_CHECK


@dataclass(frozen=True)
class Verdict:
    """What a ``position`` command should do: ``fen`` is the position it sets (None:
    refused); ``certain`` is False where the FEN contract leaves it open whether the
    engine accepts it (either answer is then fine)."""

    fen: str | None
    certain: bool = True


REFUSED = Verdict(None)


def fen_board(fen: str) -> tuple[chess.Board | None, bool]:
    """The board a FEN gives under the engine's contract, and whether that is
    certain. The contract: 4 to 6 fields, castling letters from ``KQkq`` each at most
    once, clocks of ASCII digits up to MAX_CLOCK (fullmove from 1), and a position
    python-chess calls valid, except that odd check configurations (three checkers,
    checks no last move could give) may go either way."""
    fields = fen.split()
    if len(fields) not in (4, 5, 6):
        return None, True
    placement, _, castling, _ = fields[:4]
    clocks = fields[4:]
    if not set(placement) <= _PLACEMENT_CHARS:
        return None, True
    if castling != "-" and (
        not set(castling) <= set("KQkq") or len(set(castling)) != len(castling)
    ):
        return None, True
    if not all(c.isascii() and c.isdigit() and int(c) <= MAX_CLOCK for c in clocks):
        return None, True
    if len(clocks) == 2 and int(clocks[1]) < 1:
        return None, True
    certain = True
    if re.search(r"[1-8]{2}", placement):
        # "44" for "8": python-chess refuses it, a lenient parser may add the digits.
        certain = False
        placement = re.sub(r"[1-8]{2,}", lambda m: str(sum(map(int, m.group()))), placement)
    try:
        board = chess.Board(" ".join([placement, *fields[1:]]))
    except ValueError:
        return None, certain
    status = board.status()
    if status & ~_ODD_CHECKS:
        return None, certain
    return board, certain and not status & _ODD_CHECKS


def position_verdict(args: list[str]) -> Verdict:
    """The verdict on ``position <args>`` (its tokens after ``position``)."""
    if not args:
        return REFUSED
    if args[0] == "startpos":
        fen, rest = chess.STARTING_FEN, args[1:]
    elif args[0] == "fen":
        end = args.index("moves") if "moves" in args else len(args)
        fen, rest = " ".join(args[1:end]), args[end:]
    else:
        return REFUSED
    if rest and rest[0] != "moves":
        return REFUSED
    moves = rest[1:]
    if len(moves) > MAX_GAME_PLIES:
        return REFUSED
    board, certain = fen_board(fen)
    if board is None:
        return Verdict(None, certain)
    for text in moves:
        # Strictly UCI: python-chess would also take "e1h1" for castling and "0000".
        if text not in {m.uci() for m in board.legal_moves}:
            return Verdict(None, certain)
        board.push_uci(text)
    return Verdict(board.fen(), certain)


def expected_fens(lines: Iterable[str], current: frozenset[str]) -> frozenset[str]:
    """The FENs ``d`` may show after ``lines``, starting from ``current``."""
    possible = current
    for line in lines:
        tokens = line.split()
        if not tokens or tokens[0] != "position":
            continue
        verdict = position_verdict(tokens[1:])
        if verdict.certain:
            possible = frozenset([verdict.fen]) if verdict.fen else possible
        elif verdict.fen:
            possible = possible | {verdict.fen}
    return possible


# --- lines never sent ------------------------------------------------------------------

_SETOPTION = re.compile(r"^setoption\s+name\s+(.*?)(?:\s+value(?:\s+(.*))?)?$")


def is_safe(line: str) -> bool:
    """Whether the fuzzer may send ``line``: not one that ends the session or is
    meant to run long (see the module docstring)."""
    tokens = line.split()
    if not tokens:
        return True
    if tokens[0] == "quit":
        return False
    if tokens[0] == "bench":
        if len(tokens) == 1:
            return False  # the default depth takes seconds
        with contextlib.suppress(ValueError):
            return not 2 <= int(tokens[1]) <= 10_000
        return True
    if tokens[0] == "setoption":
        m = _SETOPTION.match(line.strip())
        if m and " ".join(m.group(1).split()).lower() == "hash":
            with contextlib.suppress(ValueError):
                return int((m.group(2) or "").strip()) <= MAX_FUZZ_HASH_MB
        if m and "/" in (m.group(2) or ""):
            return False  # Weights: only the files the driver made (no /dev/stdin)
    return True


def make_safe(data: bytes) -> bytes:
    if all(is_safe(line) for line in engine_lines(data)):
        return data
    return b"unsafe line replaced"


# --- strategies ------------------------------------------------------------------------

#: Starting points of random games: the start, Kiwipete (castling both ways), an
#: en-passant capture ready, promotions ready, a bare endgame.
START_FENS = (
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "8/1P4k1/8/8/8/8/5p2/K7 w - - 0 60",
    "8/8/4k3/8/8/3K4/8/8 b - - 12 70",
)
#: Files the driver writes into the engine's working directory (see UciDriver).
WEIGHT_FILES = ("good.npz", "junk.npz", "empty.npz", "zip.npz", "folder.npz", "missing.npz")


@st.composite
def games(draw: st.DrawFn, max_plies: int = 24) -> chess.Board:
    """A random legal game from one of START_FENS (its moves on the board's stack)."""
    board = chess.Board(draw(st.sampled_from(START_FENS)))
    for _ in range(draw(st.integers(0, max_plies))):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(moves[draw(st.integers(0, len(moves) - 1))])
    return board


def position_command(board: chess.Board, how: int) -> str:
    """``board`` as a position command: from its root with moves, or as one FEN (6
    fields, or 4 as in EPD)."""
    root = board.root()
    moves = " ".join(m.uci() for m in board.move_stack)
    if how == 0:
        base = "startpos" if root.fen() == chess.STARTING_FEN else f"fen {root.fen()}"
        return f"position {base} moves {moves}".rstrip()
    if how == 1:
        return f"position fen {root.fen()} moves {moves}".rstrip()
    if how == 2:
        return f"position fen {' '.join(board.fen().split()[:4])}"
    return f"position fen {board.fen()}"


valid_positions = st.builds(position_command, games(), st.integers(0, 3))

_BAD_MOVES = (
    "e2e5", "e1e3", "zz", "e7e8", "e7e8x", "e7e8k", "e2e4e", "a1a1", "0000", "E2E4",
    "e1h1", "h9h1", "i2i4", "e2", "e2-e4", "Nf3", "moves", "startpos",
)  # fmt: skip


@st.composite
def bad_move_positions(draw: st.DrawFn) -> str:
    """A legal game whose move list then goes wrong (or, rarely, stays right)."""
    board = draw(games())
    moves = [m.uci() for m in board.move_stack]
    bad = draw(st.sampled_from(_BAD_MOVES))
    at = draw(st.integers(0, len(moves)))
    moves.insert(at, bad)
    return f"position fen {board.root().fen()} moves {' '.join(moves)}"


def _placement_mutations(board: chess.Board, kind: int, square: int) -> str:
    b = board.copy(stack=False)
    if kind == 0:  # a king missing
        b.remove_piece_at(b.king(chess.WHITE if square % 2 else chess.BLACK) or 0)
    elif kind == 1:  # a second king
        b.set_piece_at(square, chess.Piece(chess.KING, bool(square % 2)))
    elif kind == 2:  # too many pieces: knights on every empty square of a half
        for sq in range(32 if square % 2 else 0, 64 if square % 2 else 32):
            if b.piece_at(sq) is None:
                b.set_piece_at(sq, chess.Piece(chess.KNIGHT, chess.WHITE))
    elif kind == 3:  # a pawn on the first or last rank
        b.set_piece_at(square % 8 + (56 if square % 2 else 0), chess.Piece(chess.PAWN, True))
    elif kind == 4:  # nine pawns
        for sq in range(8, 56, 5):
            if b.piece_at(sq) is None:
                b.set_piece_at(sq, chess.Piece(chess.PAWN, chess.WHITE))
    else:  # a queen next to the king of the side not to move (often a check)
        king = b.king(not b.turn)
        if king is not None:
            b.set_piece_at((king + 1) % 64, chess.Piece(chess.QUEEN, b.turn))
    return b.board_fen()


@st.composite
def bad_fens(draw: st.DrawFn) -> str:
    """A FEN near a valid one: one field or a piece changed (most are invalid)."""
    board = draw(games())
    fields = board.fen().split()
    kind = draw(st.integers(0, 9))
    if kind == 0:  # field count
        fields = fields[: draw(st.integers(0, 3))] + draw(
            st.lists(st.sampled_from(["x", "0", "1", "-", "w"]), max_size=3)
        )
    elif kind == 1:
        fields[2] = draw(
            st.sampled_from(["KQkq", "K", "q", "X", "KK", "-K", "Kq-", "kqKQ", "AHah", "KQkqK"])
        )
    elif kind == 2:
        fields[3] = draw(st.sampled_from(["e9", "z3", "e4", "e3", "e6", "a3", "h6", "--", "33"]))
    elif kind == 3:
        fields[1] = draw(st.sampled_from(["x", "W", "B", "white", "-"]))
    elif kind == 4:
        clocks = ["-1", "abc", "0", "1", "+3", "1.5", str(10**30), str(MAX_CLOCK + 1), "١"]
        fields[draw(st.integers(4, 5))] = draw(st.sampled_from(clocks))
    elif kind in (5, 6):
        fields[0] = _placement_mutations(board, draw(st.integers(0, 5)), draw(st.integers(0, 63)))
    elif kind == 7:  # one character of the placement replaced
        chars = list(fields[0])
        chars[draw(st.integers(0, len(chars) - 1))] = draw(st.sampled_from("pPkK1789/0x "))
        fields[0] = "".join(chars)
    elif kind == 8:  # a rank dropped or doubled
        ranks = fields[0].split("/")
        i = draw(st.integers(0, 7))
        ranks[i : i + 1] = [] if draw(st.booleans()) else [ranks[i], ranks[i]]
        fields[0] = "/".join(ranks)
    else:  # two fields swapped
        i, j = draw(st.integers(0, 5)), draw(st.integers(0, 5))
        fields[i], fields[j] = fields[j], fields[i]
    tail = draw(st.sampled_from(["", " moves", " moves e2e4", " moves a1a1"]))
    return f"position fen {' '.join(fields)}{tail}"


def long_game(seed: int, plies: int) -> list[str]:
    """Up to ``plies`` moves of a random game (it may end sooner in mate or stalemate)."""
    rng = random.Random(seed)
    board = chess.Board()
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    return [m.uci() for m in board.move_stack]


def knight_dance(plies: int) -> list[str]:
    """Exactly ``plies`` legal moves from the start: knights out and back."""
    cycle = ["g1f3", "g8f6", "f3g1", "f6g8"]
    return [cycle[i % 4] for i in range(plies)]


long_positions = st.one_of(
    st.builds(long_game, st.integers(0, 2**32), st.sampled_from([300, 1000, 2500])),
    st.builds(knight_dance, st.sampled_from([1000, 3000, MAX_GAME_PLIES - 1, MAX_GAME_PLIES + 1])),
    st.builds(lambda n: [*knight_dance(n), "e2e5"], st.sampled_from([1500, MAX_GAME_PLIES - 1])),
).map(lambda moves: "position startpos moves " + " ".join(moves))

go_commands = st.one_of(
    st.integers(1, 3).map("go depth {}".format),
    st.integers(1, 3000).map("go nodes {}".format),
    st.integers(1, 20).map("go movetime {}".format),
    st.builds(
        "go wtime {} btime {} winc {} binc {}{}".format,
        st.integers(1, 300),
        st.integers(1, 300),
        st.integers(0, 20),
        st.integers(0, 20),
        st.sampled_from(["", " movestogo 1", " movestogo 5"]),
    ),
    st.sampled_from(
        [
            "go infinite",
            "go",
            "go mate 1",
            "go ponder movetime 20",
            "go ponder depth 2",
            "go ponder wtime 100 btime 100",
            "go depth 2 searchmoves e2e4 d2d4",
            "go searchmoves e2e4 depth 1",
        ]
    ),
)
bad_go_commands = st.sampled_from(
    [
        f"go depth {10**30}",
        "go wtime -5",
        "go wtime -5 btime -5",
        "go nodes 999999999999999999999",
        f"go movetime {10**400}",
        f"go wtime {10**30} btime {10**30}",
        f"go winc {10**30} wtime 5 btime 5",
        "go movestogo 0 wtime 100 btime 100",
        "go movestogo -1 wtime 100 btime 100",
        f"go movestogo {10**30} wtime 100 btime 100",
        f"go mate {10**30}",
        "go depth 0",
        "go depth -3",
        "go nodes 0",
        "go mate 0",
        "go depth",
        "go depth x",
        "go depth 1.5",
        "go depth ١",
        "go searchmoves",
        "go searchmoves zz",
        "go infinite depth",
        "go ponder",
        "go sideways",
        "go depth 1 depth 2",
    ]
)
#: Every option with good and bad values.
setoption_lines = st.sampled_from(
    [
        "setoption name Hash value 1",
        "setoption name Hash value 32",
        "setoption name Hash value 0",
        "setoption name Hash value -1",
        f"setoption name Hash value {10**30}",
        "setoption name Hash value abc",
        "setoption name Hash value",
        "setoption name Hash",
        "setoption name Threads value 1",
        "setoption name Threads value 2",
        "setoption name Threads value x",
        "setoption name Ponder value true",
        "setoption name Ponder value false",
        "setoption name Ponder value maybe",
        "setoption name Ponder",
        "setoption name Preset value hand-set",
        "setoption name Preset value learned",
        "setoption name Preset value random",
        "setoption name Preset value strongest",
        "setoption name Preset value",
        "setoption name Move Overhead value 0",
        "setoption name Move Overhead value 5000",
        "setoption name Move Overhead value 5001",
        "setoption name Move Overhead value -1",
        f"setoption name Move Overhead value {10**30}",
        "setoption name move   overhead value 10",
        "setoption name Weights value <empty>",
        "setoption name Weights value",
        "setoption name No Such Option value 1",
        "setoption name",
        "setoption",
        "setoption value 3",
        *(f"setoption name Weights value {name}" for name in WEIGHT_FILES),
    ]
)
control_lines = st.sampled_from(
    [
        "stop",
        "ponderhit",
        "ucinewgame",
        "isready",
        "uci",
        "d",
        "debug on",
        "debug off",
        "register later",
        "stop now",
        "isready please",
    ]
)
bench_lines = st.sampled_from(
    ["bench x", "bench 0", "bench -1", "bench 96", f"bench {10**30}", "bench 1.5", "bench 1"]
)

#: Words of the protocol for token soup.
_VOCABULARY = (
    "uci isready ucinewgame position startpos fen moves go stop ponderhit setoption name "
    "value debug on off d bench register depth nodes movetime wtime btime winc binc "
    "movestogo mate infinite ponder searchmoves Hash Threads Ponder Weights Preset Move "
    "Overhead true false hand-set learned random <empty> 0 1 2 -1 -5 3 10 1e9 "
    f"999999999999999999999 {10**30} e2e4 e7e5 g1f3 e1g1 e7e8q 0000 e2e5 xx w b - KQkq "
    "8/8/8/8/8/8/8/8 4k3/8/8/8/8/8/8/4K3 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
).split()
token_soup = st.lists(st.sampled_from(_VOCABULARY), max_size=14).map(" ".join)

_NO_NEWLINES = st.characters(blacklist_characters="\r\n", blacklist_categories=["Cs"])
#: Very long lines (about 100k characters) of several kinds.
_LONG_LINES = (
    b"x" * 100_000,
    b" " * 100_000,
    b"\xff" * 100_000,
    "é".encode() * 50_000,
    b"go depth 1 " * 10_000,
    b"setoption name " + b"a" * 100_000 + b" value 1",
    b"position startpos moves " + b"e2e4 " * 20_000,
    b"position fen " + b"8/" * 50_000,
    b"d " + b"d" * 100_000,
)


def _insert_byte(line: str, where: int, byte: int) -> bytes:
    data = line.encode()
    at = where % (len(data) + 1)
    return data[:at] + bytes([byte]) + data[at:]


garbage_lines = st.one_of(
    st.text(_NO_NEWLINES, max_size=60).map(str.encode),
    st.binary(max_size=60).map(lambda b: b.replace(b"\n", b"").replace(b"\r", b"")),
    token_soup.map(str.encode),
    st.sampled_from(_LONG_LINES),
    st.sampled_from([b"", b"   ", b"\t", b"\x00", b"\xc3", b"\xed\xa0\x80", b"\xef\xbb\xbfuci"]),
    # A valid or near-valid line with one byte put in (often not UTF-8 then).
    st.builds(
        _insert_byte,
        st.one_of(valid_positions, go_commands, setoption_lines),
        st.integers(0, 10**6),
        st.sampled_from([0x00, 0x80, 0xC3, 0xFF, 0x09, 0x0B, 0x20]),
    ),
)


def _lines(strategy: st.SearchStrategy[str]) -> st.SearchStrategy[bytes]:
    return strategy.map(str.encode)


#: Valid and near-valid commands of every kind.
protocol_line = st.one_of(
    _lines(valid_positions),
    _lines(bad_move_positions()),
    _lines(bad_fens()),
    _lines(go_commands),
    _lines(bad_go_commands),
    _lines(setoption_lines),
    _lines(control_lines),
    _lines(bench_lines),
).map(make_safe)
#: Mostly garbage, with valid lines between.
garbage_line = st.one_of(
    garbage_lines, garbage_lines, _lines(valid_positions), _lines(control_lines)
).map(make_safe)
#: Searches started, stopped and redirected at odd times.
control_line = st.one_of(
    _lines(go_commands),
    _lines(go_commands),
    _lines(st.sampled_from(["stop", "ponderhit", "ucinewgame", "isready", "d"])),
    _lines(valid_positions),
    _lines(long_positions),
    _lines(bad_fens()),
    _lines(st.sampled_from(["setoption name Hash value 2", "setoption name Preset value random"])),
).map(make_safe)


def sequences(line: st.SearchStrategy[bytes]) -> st.SearchStrategy[list[bytes]]:
    return st.lists(line, min_size=1, max_size=MAX_SEQUENCE)


#: All of them, for the benchmark.
any_sequence = st.one_of(sequences(protocol_line), sequences(garbage_line), sequences(control_line))


# --- the driver ------------------------------------------------------------------------


class FuzzFailure(AssertionError):
    """The engine broke a rule after a sequence; the message says which and shows the
    sequence and the engine's last output."""


_MOVE = "[a-h][1-8][a-h][1-8][qrbn]?"
_INFO = re.compile(
    r"^info depth \d+ seldepth \d+ score (cp -?\d+|mate -?\d+) nodes \d+ nps \d+ "
    rf"time \d+( pv( {_MOVE})+)?$"
)
_BESTMOVE = re.compile(rf"^bestmove ({_MOVE}|0000)( ponder {_MOVE})?$")


def check_answers(read: list[str], answers: list[str]) -> None:
    """Every ``go`` read is answered by one ``bestmove`` or refused with one error
    (``info string error: go...``); search output is well formed."""
    gos = sum(1 for line in read if line.split()[:1] == ["go"])
    bestmoves = sum(1 for line in answers if line.startswith("bestmove"))
    refused = sum(1 for line in answers if line.startswith("info string error: go"))
    if bestmoves + refused != gos:
        raise FuzzFailure(f"{gos} go commands got {bestmoves} bestmoves and {refused} refusals")
    for line in answers:
        if line.startswith("bestmove") and not _BESTMOVE.match(line):
            raise FuzzFailure(f"malformed bestmove line: {line!r}")
        search_info = line.startswith("info ") and not line.startswith("info string ")
        if search_info and not _INFO.match(line):
            raise FuzzFailure(f"malformed info line: {line!r}")


class UciDriver:
    """One engine process (restarted after a failure) fed sequences and checked after
    each; its working directory holds the WEIGHT_FILES (good, damaged, missing).
    ``encoding``: the console's, as PYTHONIOENCODING gives it to the engine (None:
    the default, UTF-8)."""

    def __init__(self, workdir: Path, encoding: str | None = None) -> None:
        self.workdir = workdir
        self.encoding = encoding or "utf-8"
        self.env = {**os.environ, "PYTHONIOENCODING": encoding} if encoding else None
        self._make_weight_files()
        self.proc: subprocess.Popen[bytes] | None = None
        self.lines_sent = 0
        self.restarts = 0

    def _make_weight_files(self) -> None:
        save_weights(hand_set_model(), self.workdir / "good.npz")
        (self.workdir / "junk.npz").write_bytes(bytes(range(256)) * 4)
        (self.workdir / "empty.npz").write_bytes(b"")
        (self.workdir / "zip.npz").write_bytes(b"PK\x03\x04" + b"\x00" * 40)
        (self.workdir / "folder.npz").mkdir(exist_ok=True)

    # --- process -----------------------------------------------------------------------

    def start(self) -> None:
        self.proc = subprocess.Popen(
            UCI_COMMAND,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=self.workdir,
            env=self.env,
        )
        self.out: queue.Queue[str | None] = queue.Queue()
        self.log: list[str] = []  # the output lines read, for failure messages
        self.stderr: list[str] = []
        threading.Thread(target=self._pump, args=(self.proc.stdout,), daemon=True).start()
        threading.Thread(target=self._pump_stderr, args=(self.proc.stderr,), daemon=True).start()
        self.fens = frozenset([chess.STARTING_FEN])  # what ``d`` may show now
        self._write([b"uci", b"isready"], ANSWER_TIMEOUT)
        self._read_until("uciok", START_TIMEOUT, [])
        self._read_until("readyok", START_TIMEOUT, [])

    def _pump(self, stream) -> None:
        for raw in stream:
            self.out.put(raw.decode(self.encoding, errors="replace").rstrip("\r\n"))
        self.out.put(None)

    def _pump_stderr(self, stream) -> None:
        for raw in stream:
            self.stderr.append(raw.decode("utf-8", errors="replace"))

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        with contextlib.suppress(OSError, ValueError):
            assert proc.stdin is not None
            proc.stdin.write(b"quit\n")
            proc.stdin.close()
        try:
            proc.wait(timeout=10.0)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def __enter__(self) -> UciDriver:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- talking -----------------------------------------------------------------------

    def _write(self, lines: list[bytes], timeout: float) -> None:
        """Write ``lines`` (each with a newline); fail if the engine stops reading."""
        assert self.proc is not None and self.proc.stdin is not None
        stdin = self.proc.stdin
        errors: list[BaseException] = []

        def write() -> None:
            try:
                stdin.write(b"".join(line + b"\n" for line in lines))
                stdin.flush()
            except (OSError, ValueError) as exc:
                errors.append(exc)

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        writer.join(timeout)
        if writer.is_alive():
            raise FuzzFailure(f"the engine stopped reading its input for {timeout} s")
        if errors:
            raise FuzzFailure(f"could not write to the engine: {errors[0]!r}")
        self.lines_sent += len(lines)

    def _read_until(self, token: str, timeout: float, seen: list[str], count: int = 1) -> None:
        """Read lines into ``seen`` up to the ``count``-th that is ``token`` or starts
        with ``token + ' '``."""
        deadline = time.monotonic() + timeout
        while count > 0:
            try:
                line = self.out.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise FuzzFailure(f"no {token!r} within {timeout} s") from None
            if line is None:
                self.out.put(None)
                raise FuzzFailure(f"the engine closed its output (exit code {self._code()})")
            self.log.append(line)
            del self.log[:-200]
            seen.append(line)
            if line == token or line.startswith(token + " "):
                count -= 1

    def _code(self) -> int | None:
        assert self.proc is not None
        with contextlib.suppress(subprocess.TimeoutExpired):
            return self.proc.wait(timeout=2.0)
        return None

    # --- one sequence ------------------------------------------------------------------

    def run(self, sequence: list[bytes]) -> None:
        """Send ``sequence`` and check the engine after it; FuzzFailure if it broke a
        rule (the next run then starts a fresh process)."""
        if self.proc is None or self.proc.poll() is not None:
            self.close()
            self.restarts += 1
            self.start()
        try:
            self._run(sequence)
        except FuzzFailure as exc:
            message = self._report(str(exc), sequence)
            if self.proc is not None:
                self.proc.kill()
            self.close()
            raise FuzzFailure(message) from None

    def _run(self, sequence: list[bytes]) -> None:
        assert self.proc is not None
        stderr_mark = len(self.stderr)
        read = [line for data in sequence for line in engine_lines(data, self.encoding)]
        readies = sum(1 for line in read if line.split()[:1] == ["isready"])
        possible = expected_fens(read, self.fens)
        # 'ucinewgame' waits for a search under way to answer: after this readyok every
        # bestmove has been written.
        self._write([*sequence, b"stop", b"ucinewgame", b"isready"], ANSWER_TIMEOUT)
        answers: list[str] = []
        self._read_until("readyok", ANSWER_TIMEOUT, answers, readies + 1)
        check_answers(read, answers)
        self._write([b"d"], ANSWER_TIMEOUT)
        shown: list[str] = []
        self._read_until("Key:", ANSWER_TIMEOUT, shown)
        fens = [line.removeprefix("Fen: ") for line in shown if line.startswith("Fen: ")]
        if len(fens) != 1:
            raise FuzzFailure(f"'d' did not show one FEN: {shown}")
        if fens[0] not in possible:
            raise FuzzFailure(f"'d' shows {fens[0]!r}, expected one of {sorted(possible)}")
        self.fens = frozenset(fens)
        self._write([b"go depth 1"], ANSWER_TIMEOUT)
        answer: list[str] = []
        self._read_until("bestmove", ANSWER_TIMEOUT, answer)
        board = chess.Board(fens[0])
        move = answer[-1].split()[1:2]
        legal = {m.uci() for m in board.legal_moves} or {"0000"}
        if not move or move[0] not in legal:
            raise FuzzFailure(f"'go depth 1' answered {answer[-1]!r} in {fens[0]}")
        if self.proc.poll() is not None:
            raise FuzzFailure(f"the engine exited (code {self.proc.returncode})")
        if any("Traceback" in line for line in self.stderr[stderr_mark:]):
            raise FuzzFailure("the engine wrote a traceback")

    def _report(self, why: str, sequence: list[bytes]) -> str:
        def short(data: bytes) -> str:
            text = repr(data)
            return text if len(text) <= 300 else f"{text[:300]}... ({len(data)} bytes)"

        return (
            f"{why}\n--- sequence:\n"
            + "\n".join(short(data) for data in sequence)
            + "\n--- engine output (last lines):\n"
            + "\n".join(line[:300] for line in self.log[-30:])
            + "\n--- stderr (last lines):\n"
            + "".join(self.stderr[-30:])
        )
