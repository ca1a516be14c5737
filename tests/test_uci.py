"""``treestrap uci`` as a GUI sees it: a real subprocess spoken to over pipes.

Every read has a deadline, so an engine that hangs fails the test instead of blocking
the suite. The first start of the search compiles it (a minute or two with a cold numba
cache), so the first ``readyok`` of each engine is given a generous deadline; the
``kernels_load_from_cache`` fixture first checks, in child processes, that the compiled
search runs when loaded back from the cache.
"""

from __future__ import annotations

import contextlib
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import chess
import chess.engine
import pytest
from uci_session import Session

from treestrap.core.notation import STARTING_FEN
from treestrap.engine import uci as uci_module
from treestrap.evaluation.presets import hand_set_model
from treestrap.evaluation.weights import save_weights

UCI_COMMAND = [sys.executable, "-m", "treestrap.cli", "uci"]
BENCH_COMMAND = [sys.executable, "-m", "treestrap.cli", "bench"]
#: Deadline for the first readyok (numba may have to compile the search).
READY_TIMEOUT = 300.0
#: Deadline for any other answer.
TIMEOUT = 10.0

OPTIONS = {
    "Hash": "option name Hash type spin default 16 min 1 max 4096",
    "Threads": "option name Threads type spin default 1 min 1 max 1024",
    "Weights": "option name Weights type string default <empty>",
    # The default is the strongest measured preset, zero5 (evaluation/preset_names.py).
    "Preset": (
        "option name Preset type combo default zero5 var hand-set var learned var random "
        "var self-play-net var zero var zero2 var zero3 var zero4 var zero5"
    ),
    "Move Overhead": "option name Move Overhead type spin default 20 min 0 max 5000",
}
INFO = re.compile(
    r"^info depth (\d+) seldepth (\d+) score (cp -?\d+|mate -?\d+) nodes (\d+) nps (\d+) "
    r"time (\d+)( pv( [a-h][1-8][a-h][1-8][qrbn]?)+)?$"
)
BENCH_TOTAL = re.compile(r"^bench: (\d+) nodes (\d+) nps$")
MATE_IN_2 = "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1"


pytestmark = pytest.mark.usefixtures("kernels_load_from_cache")


class UciProcess:
    """An engine subprocess: write command lines, read answers with deadlines."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [*UCI_COMMAND, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.log: list[str] = []  # every line read, for failure messages
        self.stderr: list[str] = []
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        threading.Thread(target=self._pump_stderr, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def _pump_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line)

    def send(self, *lines: str) -> None:
        assert self.proc.stdin is not None
        for line in lines:
            self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def _fail(self, why: str) -> None:
        pytest.fail(
            f"{why}\n--- stdout so far:\n"
            + "\n".join(self.log[-40:])
            + "\n--- stderr:\n"
            + "".join(self.stderr[-40:])
        )

    def read_line(self, timeout: float) -> str | None:
        """The next line, or None if none comes within ``timeout``; fails at EOF."""
        try:
            line = self._lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None
        if line is None:
            self._lines.put(None)
            self._fail("the engine closed its output")
        self.log.append(line)
        return line

    def read_until(self, token: str, timeout: float = TIMEOUT) -> list[str]:
        """Lines up to and including the first that is ``token`` or starts with
        ``token + ' '``; fails if none comes within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        lines: list[str] = []
        while True:
            line = self.read_line(deadline - time.monotonic())
            if line is None:
                self._fail(f"no {token!r} within {timeout} s")
            lines.append(line)
            if line == token or line.startswith(token + " "):
                return lines

    def read_for(self, seconds: float) -> list[str]:
        """Every line that arrives within ``seconds``."""
        deadline = time.monotonic() + seconds
        lines = []
        while (line := self.read_line(deadline - time.monotonic())) is not None:
            lines.append(line)
        return lines

    def ready(self, timeout: float = TIMEOUT) -> list[str]:
        """``isready``; the lines before ``readyok``."""
        self.send("isready")
        return self.read_until("readyok", timeout)[:-1]

    def fen(self) -> str:
        self.send("d")
        lines = self.read_until("Key:")
        fens = [line.removeprefix("Fen: ") for line in lines if line.startswith("Fen: ")]
        assert len(fens) == 1, lines
        return fens[0]

    def go(self, args: str, timeout: float = TIMEOUT) -> tuple[list[str], str]:
        """``go args``: the info lines and the ``bestmove`` line."""
        self.send(f"go {args}")
        lines = self.read_until("bestmove", timeout)
        return lines[:-1], lines[-1]

    def close(self) -> int:
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):  # the engine may be gone already
                self.send("quit")
            try:
                self.proc.wait(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def start_engine(*args: str) -> UciProcess:
    p = UciProcess(*args)
    p.send("uci")
    p.read_until("uciok", TIMEOUT)
    p.ready(READY_TIMEOUT)
    # A go with no clock waits for the compiled search: after it, no timed go gets a
    # quick move (src/treestrap/engine/quick_move.py), whatever the compile cache held.
    p.go("depth 1", READY_TIMEOUT)
    p.send("ucinewgame")  # and the table as fresh as it was
    return p


@pytest.fixture
def uci() -> Iterator[UciProcess]:
    p = start_engine()
    yield p
    assert p.close() == 0
    assert "Traceback" not in "".join(p.stderr)


def legal_in(fen: str, moves: list[str], bestmove_line: str) -> bool:
    board = chess.Board(fen)
    for m in moves:
        board.push_uci(m)
    return chess.Move.from_uci(bestmove_line.split()[1]) in board.legal_moves


# --- handshake -------------------------------------------------------------------------


def test_handshake_lists_the_options() -> None:
    p = UciProcess()
    try:
        p.send("uci")
        lines = p.read_until("uciok", TIMEOUT)
        assert lines[0].startswith("id name treestrap ")
        assert "id author the treestrap developers" in lines
        for name, declaration in OPTIONS.items():
            assert declaration in lines, name
        assert p.ready(READY_TIMEOUT) == []
        assert p.ready() == []
    finally:
        assert p.close() == 0


def test_stop_without_a_search_is_ignored(uci: UciProcess) -> None:
    uci.send("stop", "ponderhit")
    assert uci.ready() == []


def test_quit_exits_cleanly() -> None:
    p = start_engine()
    p.send("quit")
    assert p.proc.wait(timeout=TIMEOUT) == 0


def test_end_of_input_exits_cleanly() -> None:
    p = start_engine()
    assert p.proc.stdin is not None
    p.proc.stdin.close()
    assert p.proc.wait(timeout=TIMEOUT) == 0


# --- searching -------------------------------------------------------------------------


def test_go_depth_answers_a_legal_move(uci: UciProcess) -> None:
    uci.send("ucinewgame", "position startpos moves e2e4 e7e5")
    infos, best = uci.go("depth 3")
    assert legal_in(STARTING_FEN, ["e2e4", "e7e5"], best)
    parsed = [INFO.match(line) for line in infos]
    assert all(parsed), infos
    assert [int(m.group(1)) for m in parsed] == [1, 2, 3]  # type: ignore[union-attr]
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    for move in infos[-1].split(" pv ")[1].split():  # the PV is a legal line
        board.push_uci(move)
    assert infos[-1].split(" pv ")[1].split()[0] == best.split()[1]


def test_mate_is_reported_in_moves(uci: UciProcess) -> None:
    uci.send(f"position fen {MATE_IN_2}")
    infos, best = uci.go("depth 6")
    assert infos[-1].split(" score ")[1].startswith("mate 2 ")
    assert legal_in(MATE_IN_2, [], best)
    # The side being mated sees a negative distance.
    uci.send(f"position fen {MATE_IN_2} moves {best.split()[1]}")
    infos, _ = uci.go("depth 6")
    assert infos[-1].split(" score ")[1].startswith("mate -1 ")


def test_go_mate_stops_at_the_mate(uci: UciProcess) -> None:
    uci.send(f"position fen {MATE_IN_2}")
    infos, best = uci.go("mate 2")
    assert " score mate 2 " in infos[-1]
    assert legal_in(MATE_IN_2, [], best)


def test_go_nodes(uci: UciProcess) -> None:
    uci.send("position startpos")
    infos, best = uci.go("nodes 5000")
    assert int(INFO.match(infos[-1]).group(4)) <= 5100  # type: ignore[union-attr]
    assert legal_in(STARTING_FEN, [], best)


def test_go_movetime_returns_in_time(uci: UciProcess) -> None:
    uci.send("position startpos moves d2d4")
    start = time.monotonic()
    _, best = uci.go("movetime 300", timeout=5.0)
    assert time.monotonic() - start < 2.0
    assert legal_in(STARTING_FEN, ["d2d4"], best)


def test_go_with_a_clock_returns_in_time(uci: UciProcess) -> None:
    uci.send("position startpos")
    start = time.monotonic()
    _, best = uci.go("wtime 2000 btime 2000 winc 100 binc 100 movestogo 20", timeout=5.0)
    assert time.monotonic() - start < 2.0
    assert legal_in(STARTING_FEN, [], best)


def test_go_infinite_waits_for_stop(uci: UciProcess) -> None:
    uci.send("position startpos", "go infinite")
    time.sleep(0.5)
    assert uci.ready() is not None  # answered while searching
    early = uci.read_for(0.2)
    assert not any(line.startswith("bestmove") for line in early)
    uci.send("stop")
    best = uci.read_until("bestmove", timeout=2.0)[-1]
    assert legal_in(STARTING_FEN, [], best)


#: Searches started and stopped at once by the race tests.
RACE_ROUNDS = 40


@pytest.mark.parametrize("go", ["go infinite", "go depth 60", "go ponder movetime 60000"])
def test_stop_right_after_go_is_never_lost(uci: UciProcess, go: str) -> None:
    # The stop comes in the same write as the go, usually before the search thread has
    # begun: each must still answer at once (an infinite search otherwise never would).
    uci.send("position startpos moves e2e4")
    for _ in range(RACE_ROUNDS):
        uci.send(go, "stop")
        lines = uci.read_until("bestmove", timeout=5.0)
        assert legal_in(STARTING_FEN, ["e2e4"], lines[-1]), lines
    assert uci.ready() == []


def test_ponderhit_then_stop_right_after_go_ponder(uci: UciProcess) -> None:
    uci.send("position startpos moves d2d4")
    for _ in range(RACE_ROUNDS // 2):
        uci.send("go ponder depth 60", "ponderhit", "stop")
        lines = uci.read_until("bestmove", timeout=5.0)
        assert legal_in(STARTING_FEN, ["d2d4"], lines[-1]), lines
    assert uci.ready() == []


def test_go_infinite_holds_its_answer_even_when_done(uci: UciProcess) -> None:
    # A mate in 1 is found at once; 'go infinite' must still wait for 'stop'.
    uci.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "go infinite")
    lines = uci.read_for(1.0)
    assert not any(line.startswith("bestmove") for line in lines), lines
    uci.send("stop")
    assert uci.read_until("bestmove", timeout=2.0)[-1].startswith("bestmove a1a8")


def test_go_ponder_then_ponderhit(uci: UciProcess) -> None:
    uci.send("position startpos moves e2e4 e7e5", "go ponder wtime 5000 btime 5000")
    lines = uci.read_for(0.7)
    assert not any(line.startswith("bestmove") for line in lines), lines
    uci.send("ponderhit")
    best = uci.read_until("bestmove", timeout=4.0)[-1]
    assert legal_in(STARTING_FEN, ["e2e4", "e7e5"], best)


def test_go_ponder_then_stop_answers_at_once(uci: UciProcess) -> None:
    uci.send("position startpos moves g1f3", "go ponder movetime 60000")
    lines = uci.read_for(0.5)
    assert not any(line.startswith("bestmove") for line in lines), lines
    start = time.monotonic()
    uci.send("stop")
    best = uci.read_until("bestmove", timeout=2.0)[-1]
    assert time.monotonic() - start < 1.0
    assert legal_in(STARTING_FEN, ["g1f3"], best)


def test_no_legal_move_answers_0000(uci: UciProcess) -> None:
    uci.send("position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
    assert uci.go("depth 3")[1] == "bestmove 0000"


def test_go_after_go_stops_the_first(uci: UciProcess) -> None:
    uci.send("position startpos", "go infinite")
    time.sleep(0.3)
    uci.send("go depth 2")
    first = uci.read_until("bestmove", timeout=2.0)[-1]
    second = uci.read_until("bestmove", timeout=TIMEOUT)[-1]
    assert legal_in(STARTING_FEN, [], first) and legal_in(STARTING_FEN, [], second)


def test_quit_while_searching() -> None:
    p = start_engine()
    p.send("position startpos", "go infinite")
    time.sleep(0.3)
    p.send("quit")
    assert p.proc.wait(timeout=TIMEOUT) == 0


# --- options ---------------------------------------------------------------------------


def test_setoption_accepted(uci: UciProcess) -> None:
    uci.send(
        "setoption name Hash value 32",
        "setoption name Threads value 1",
        "setoption name Move Overhead value 10",
        "setoption name Preset value random",
        "setoption name Preset value hand-set",
        "setoption name Weights value <empty>",
    )
    assert uci.ready() == []


def last_score(uci: UciProcess, fen: str) -> str:
    uci.send("ucinewgame", f"position fen {fen}")
    infos, _ = uci.go("depth 3")
    return infos[-1].split(" score ")[1].split(" nodes ")[0]


def test_weights_and_preset_choose_the_evaluation(uci: UciProcess, tmp_path) -> None:
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    uci.send("setoption name Preset value hand-set")
    hand_set = last_score(uci, fen)
    uci.send("setoption name Preset value random")
    random = last_score(uci, fen)
    assert random != hand_set
    # A bad weight file is refused and the weights in use stay.
    uci.send(f"setoption name Weights value {tmp_path / 'missing.npz'}")
    assert any("info string error" in line for line in uci.ready())
    assert last_score(uci, fen) == random
    # A good one replaces the preset; clearing it brings the preset back.
    path = tmp_path / "hand set.npz"  # a space in the path
    save_weights(hand_set_model(), path)
    uci.send(f"setoption name Weights value {path}")
    assert uci.ready() == []
    assert last_score(uci, fen) == hand_set
    uci.send("setoption name Weights value <empty>")
    assert last_score(uci, fen) == random


# --- bad input -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shared_uci() -> Iterator[UciProcess]:
    p = start_engine()
    yield p
    assert p.close() == 0
    assert "Traceback" not in "".join(p.stderr)


BASE = "position startpos moves d2d4 d7d5 c2c4"


@pytest.mark.parametrize(
    "line",
    [
        "garbage",
        "position fen garbage",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        "position startpos moves e2e4 e7e5 e1e3",  # illegal third move
        "position startpos moves e2e4 zz",
        "position startpos e2e4",
        "position",
        "setoption name Hash value abc",
        "setoption name Hash value 0",
        "setoption name Threads value 1025",
        "setoption name Preset value strong",
        "setoption name No Such Option value 1",
        "setoption",
        "go depth x",
        "go depth",
        "go nodes -5",
        "go sideways",
        "bench x",
    ],
)
def test_bad_input_is_reported_and_harmless(shared_uci: UciProcess, line: str) -> None:
    shared_uci.send(BASE)
    before = shared_uci.fen()
    shared_uci.send(line)
    answer = shared_uci.ready()
    assert len(answer) == 1 and answer[0].startswith("info string error: "), answer
    assert shared_uci.fen() == before
    # Still searching properly afterwards.
    _, best = shared_uci.go("depth 2")
    assert legal_in(STARTING_FEN, ["d2d4", "d7d5", "c2c4"], best)


@pytest.mark.parametrize(
    "go",
    [
        f"go movetime {10**400}",  # more milliseconds than a float holds
        f"go wtime {10**30} btime {10**30}",  # longer than any timer can wait
        "go nodes 999999999999999999999",  # more nodes than an int64 holds
        f"go depth {10**30}",
    ],
)
def test_huge_numbers_search_until_stopped(shared_uci: UciProcess, go: str) -> None:
    shared_uci.send("position startpos", go)
    time.sleep(0.2)
    shared_uci.send("stop")
    lines = shared_uci.read_until("bestmove")
    assert not any(line.startswith("info string error") for line in lines), lines
    assert legal_in(STARTING_FEN, [], lines[-1])


def test_a_search_that_raises_says_so_then_answers(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The error line first (a tournament stops on it when the engine is ours), then a
    legal move for a GUI; if even the move generator fails, 0000 (never no answer)."""

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("injected")

    monkeypatch.setattr(session.engine.engine, "go", boom)
    failed = "info string error: search failed: RuntimeError: injected"
    lines = session.search(STARTING_FEN, "go depth 2")
    assert lines[-2] == failed, lines
    assert legal_in(STARTING_FEN, [], lines[-1])
    monkeypatch.setattr(uci_module, "legal_moves", boom)
    lines = session.search(STARTING_FEN, "go depth 2")
    assert lines[-2:] == [failed, "bestmove 0000"]


def test_a_very_long_bad_line_gets_a_short_answer(shared_uci: UciProcess) -> None:
    shared_uci.send("x" * 100_000)
    answer = shared_uci.ready()
    assert len(answer) == 1 and answer[0].startswith("info string error: "), answer[:1]
    assert len(answer[0]) < 400


def test_bad_weights_argument_is_a_clear_error(tmp_path) -> None:
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a weight file")
    for path in (bad, tmp_path / "missing.npz"):
        run = subprocess.run(
            [*UCI_COMMAND, "--weights", str(path)],
            input="uci\nquit\n",
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert run.returncode == 2
        assert run.stderr.startswith("error: ") and str(path) in run.stderr
        assert "Traceback" not in run.stderr
        assert "uciok" not in run.stdout


def test_weights_argument(tmp_path) -> None:
    path = tmp_path / "w.npz"
    save_weights(hand_set_model(), path)
    p = start_engine("--weights", str(path))
    try:
        p.send("position startpos")
        assert legal_in(STARTING_FEN, [], p.go("depth 2")[1])
    finally:
        assert p.close() == 0


# --- extras ----------------------------------------------------------------------------


def test_d_prints_board_fen_and_key(uci: UciProcess) -> None:
    uci.send("position startpos moves e2e4")
    uci.send("d")
    lines = uci.read_until("Key:")
    board = chess.Board()
    board.push_uci("e2e4")
    assert lines[:8] == str(board).splitlines()
    assert f"Fen: {board.fen()}" in lines
    assert lines[-1] == f"Key: {chess.polyglot.zobrist_hash(board):016X}"


def test_bench_command_matches_the_cli(uci: UciProcess) -> None:
    uci.send("bench 2")
    lines = uci.read_until("bench:", timeout=60)
    total = BENCH_TOTAL.match(lines[-1])
    assert total, lines[-1]
    run = subprocess.run(
        [*BENCH_COMMAND, "--depth", "2"], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    cli_total = BENCH_TOTAL.match(run.stdout.strip().splitlines()[-1])
    assert cli_total and cli_total.group(1) == total.group(1)


# --- games -----------------------------------------------------------------------------

MAX_PLIES = 300


def play_game(white_preset: str, black_preset: str) -> chess.Board:
    """A game between two engine processes at depth 2, until it ends by rule."""
    engines = []
    try:
        for preset in (white_preset, black_preset):
            engine = chess.engine.SimpleEngine.popen_uci(UCI_COMMAND, timeout=READY_TIMEOUT)
            engines.append(engine)
            engine.configure({"Preset": preset})
            assert engine.id["name"].startswith("treestrap ")
        board = chess.Board()
        while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
            engine = engines[0 if board.turn == chess.WHITE else 1]
            result = engine.play(board, chess.engine.Limit(depth=2))
            assert result.move in board.legal_moves
            board.push(result.move)
        return board
    finally:
        for engine in engines:
            engine.quit()


@pytest.mark.parametrize(("white", "black"), [("hand-set", "random"), ("random", "hand-set")])
def test_full_game_between_two_engines(white: str, black: str) -> None:
    board = play_game(white, black)
    # The safety net (adjudicating a draw at MAX_PLIES) is never needed in practice.
    assert board.is_game_over(claim_draw=True), f"no result after {board.ply()} plies"
    outcome = board.outcome(claim_draw=True)
    assert outcome is not None
    # The hand-set weights do not lose to random ones.
    hand_set_color = chess.WHITE if white == "hand-set" else chess.BLACK
    assert outcome.winner in (hand_set_color, None), (outcome, board.fen())
