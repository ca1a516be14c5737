"""One game between two players: the only game loop (matches and tournaments use it).

The runner keeps the clocks: each side is charged the wall-clock time its engine
took per move (Fischer: plus the increment after the move), and a side whose clock
runs out loses on time. A watchdog stops a move that takes longer than the mover's
clock plus ``WATCHDOG_GRACE`` (or ``move_timeout`` under a depth or node limit): an
external engine's process is killed, an in-process search is told to stop, and that
side forfeits. So do external engines that crash, raise, or play an illegal move; the
termination says who and why (:mod:`treestrap.play.forfeits` counts them by reason).
One of our in-process players that raises is a bug, not a loss: the game stops with
:class:`~treestrap.play.errors.PlayerFailed`, its traceback kept. A game too long by
``max_plies`` is a draw, unless a reference engine is given to play both sides from
there to the end (Serban 2014 finished games with Stockfish this way); a reference
engine that fails makes the game fail (:class:`FinisherFailed`), never a draw.
"""

from __future__ import annotations

import contextlib
import datetime
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import NoReturn

import chess
import chess.engine
import chess.pgn

from treestrap.play.adjudication import Adjudication, ScoredMove, adjudicate
from treestrap.play.errors import PlayerFailed, describe
from treestrap.play.forfeits import FORFEIT, TIME_FORFEIT
from treestrap.play.openings import Opening
from treestrap.play.players import IN_PROCESS, PlayerSpec
from treestrap.play.sessions import MATE_SCORE, Clocks, Reply, Session, open_session
from treestrap.play.timecontrol import TimeControl

#: Seconds past its clock before a move's watchdog fires (the clock alone already
#: decides a loss on time: the grace only bounds how long the runner waits).
WATCHDOG_GRACE = 5.0
DRAW = "1/2-1/2"
MAX_LENGTH = "adjudicated: maximum length"


class FinisherFailed(RuntimeError):
    """The reference engine could not finish a game: the game has no result (the
    pool tries it again, then gives it up)."""


@dataclass(frozen=True)
class GameRules:
    """How games end besides the rules of chess."""

    adjudication: Adjudication = field(default_factory=Adjudication)
    max_plies: int = 400  # opening moves included
    finisher: PlayerSpec | None = None  # plays both sides on from max_plies
    finish_tc: TimeControl = field(default_factory=lambda: TimeControl(depth=6))
    finish_plies: int = 200  # the finisher's own cap
    move_timeout: float = 60.0  # seconds, under depth and node limits


@dataclass(frozen=True)
class GameSetup:
    """Everything a worker process needs to play one game."""

    white: PlayerSpec
    black: PlayerSpec
    opening: Opening
    tc: TimeControl
    rules: GameRules = field(default_factory=GameRules)
    event: str = "treestrap match"
    round: str = "?"


@dataclass
class GameRecord:
    white: str
    black: str
    result: str  # "1-0", "0-1", "1/2-1/2"
    termination: str
    opening: str
    pgn: str
    plies: int
    time_loss: bool = False


@dataclass
class _Ending:
    result: str
    termination: str
    time_loss: bool = False


def _loss(side: chess.Color) -> str:
    return "0-1" if side == chess.WHITE else "1-0"


def _forfeit(side: chess.Color, name: str, reason: str) -> _Ending:
    return _Ending(_loss(side), f"{FORFEIT}{reason} ({chess.COLOR_NAMES[side]}, {name})")


def _own_failure(spec: PlayerSpec, setup: GameSetup, exc: BaseException) -> PlayerFailed:
    """The error for one of our in-process players that raised in ``setup``'s game."""
    where = f"{setup.white.name} - {setup.black.name}, opening {setup.opening.name}"
    return PlayerFailed.raised(f"in-process player {spec.name} raised ({where})", exc)


def _natural_end(board: chess.Board) -> _Ending | None:
    outcome = board.outcome(claim_draw=True)
    if outcome is None:
        return None
    return _Ending(outcome.result(), outcome.termination.name.lower().replace("_", " "))


def _timed_move(
    session: Session, board: chess.Board, clocks: Clocks, timeout: float
) -> tuple[Reply | None, float, str | None, Exception | None]:
    """``(reply, seconds, failure, error)``: failure says why the move was not made,
    error is what the engine raised (None when it did not, or when it hung)."""
    barked = threading.Event()

    def bark() -> None:
        barked.set()
        session.kill()

    timer = threading.Timer(timeout, bark)
    timer.daemon = True
    reply, failure, error = None, None, None
    start = time.perf_counter()
    timer.start()
    try:
        reply = session.play(board, clocks)
    except chess.engine.EngineTerminatedError:
        failure = "engine crashed"
    except Exception as exc:  # an in-process engine's error, or a protocol error
        failure, error = f"engine error: {describe(exc)}", exc
    finally:
        timer.cancel()
    spent = time.perf_counter() - start
    if barked.is_set():  # stopped by the watchdog: whatever it raised then is no bug
        failure, error = f"engine hung for {timeout:.1f} s", None
    return reply, spent, failure, error


def _legal_move(reply: Reply | None, board: chess.Board) -> chess.Move | str:
    """The reply's move, or why it cannot be played."""
    if reply is None or reply.move is None:
        return "no move"
    if reply.move not in board.legal_moves:
        return f"illegal move {reply.move.uci()}"
    return reply.move


def _note(score: float | None, spent: float) -> str:
    """PGN comment: the mover's score in pawns and its thinking time."""
    if score is None:
        return f"{spent:.2f}s"
    if abs(score) >= MATE_SCORE / 2:
        return f"{'+' if score > 0 else '-'}mate {spent:.2f}s"
    return f"{score / 100:+.2f} {spent:.2f}s"


def _start(setup: GameSetup, sessions: dict[chess.Color, Session]) -> _Ending | None:
    for side, spec in ((chess.WHITE, setup.white), (chess.BLACK, setup.black)):
        self_play = side == chess.BLACK and spec.engine_key() == setup.white.engine_key()
        try:
            sessions[side] = open_session(spec, setup.tc, slot=int(self_play))
        except Exception as exc:
            if spec.kind == IN_PROCESS:
                raise _own_failure(spec, setup, exc) from exc
            return _forfeit(side, spec.name, f"engine failed to start: {describe(exc)}")
    return None


def _play(
    setup: GameSetup,
    board: chess.Board,
    sessions: dict[chess.Color, Session],
    notes: list[str],
) -> _Ending | None:
    """Play until the game ends (the ending) or reaches ``max_plies`` (None)."""
    tc, rules = setup.tc, setup.rules
    clocks = {chess.WHITE: tc.base or 0.0, chess.BLACK: tc.base or 0.0}
    history: list[ScoredMove] = []
    while True:
        ending = _natural_end(board)
        if ending is not None:
            return ending
        verdict = adjudicate(history, len(board.move_stack), rules.adjudication)
        if verdict is not None:
            return _Ending(*verdict)
        if len(board.move_stack) >= rules.max_plies:
            return None
        side = board.turn
        session = sessions[side]
        timeout = clocks[side] + WATCHDOG_GRACE if tc.is_clock else rules.move_timeout
        reply, spent, failure, error = _timed_move(session, board, clocks, timeout)
        spec = setup.white if side == chess.WHITE else setup.black
        if error is not None and spec.kind == IN_PROCESS:
            raise _own_failure(spec, setup, error) from error
        if failure is not None:
            return _forfeit(side, session.name, failure)
        if tc.is_clock:
            clocks[side] -= spent
            if clocks[side] < 0:
                return _Ending(_loss(side), TIME_FORFEIT, time_loss=True)
            clocks[side] += tc.increment
        if reply is not None and reply.resigned:
            return _Ending(_loss(side), f"resigned ({chess.COLOR_NAMES[side]}, {session.name})")
        move = _legal_move(reply, board)
        if isinstance(move, str):
            return _forfeit(side, session.name, move)
        score = reply.score if reply is not None else None
        board.push(move)
        notes.append(_note(score, spent))
        history.append((side, score))


def _finisher_failed(
    setup: GameSetup, ref: PlayerSpec, why: str, exc: Exception | None
) -> NoReturn:
    """Raise for a reference engine that failed: our own is a bug (``PlayerFailed``),
    an external one leaves the game without a result (``FinisherFailed``)."""
    if ref.kind == IN_PROCESS and exc is not None:
        raise _own_failure(ref, setup, exc) from exc
    raise FinisherFailed(f"finisher {ref.name} failed: {why}") from exc


def _finish(setup: GameSetup, board: chess.Board, notes: list[str]) -> _Ending:
    """The reference engine plays both sides on, to the end or to its own cap (a
    draw); ``FinisherFailed`` or ``PlayerFailed`` if it fails."""
    rules = setup.rules
    ref = rules.finisher
    if ref is None:
        return _Ending(DRAW, MAX_LENGTH)
    try:
        session = open_session(ref, rules.finish_tc)
    except Exception as exc:
        _finisher_failed(setup, ref, f"failed to start: {describe(exc)}", exc)
    tc = rules.finish_tc
    first = len(board.move_stack)
    try:
        while True:
            ending = _natural_end(board)
            if ending is not None:
                return _Ending(ending.result, f"finished by {ref.name} ({ending.termination})")
            if len(board.move_stack) - first >= rules.finish_plies:
                return _Ending(DRAW, f"{MAX_LENGTH} (not finished by {ref.name})")
            # The reference is no contestant: it gets a full clock every move.
            clocks = {chess.WHITE: tc.base or 0.0, chess.BLACK: tc.base or 0.0}
            timeout = (tc.base or 0.0) + WATCHDOG_GRACE if tc.is_clock else rules.move_timeout
            reply, spent, failure, error = _timed_move(session, board, clocks, timeout)
            move = failure or _legal_move(reply, board)
            if isinstance(move, str):
                _finisher_failed(setup, ref, move, error)
            board.push(move)
            note = _note(reply.score if reply is not None else None, spent)
            notes.append(
                f"{ref.name} finishes: {note}" if len(board.move_stack) == first + 1 else note
            )
    finally:
        with contextlib.suppress(Exception):
            session.close()


def _pgn(setup: GameSetup, board: chess.Board, notes: list[str], ending: _Ending) -> str:
    game = chess.pgn.Game()
    game.setup(board.root())  # adds FEN and SetUp unless it is the start position
    book = len(board.move_stack) - len(notes)
    node: chess.pgn.GameNode = game
    for i, move in enumerate(board.move_stack):
        node = node.add_variation(move, comment=notes[i - book] if i >= book else "")
    game.headers.update(
        {
            "Event": setup.event,
            "Site": socket.gethostname() or "?",
            "Date": datetime.date.today().strftime("%Y.%m.%d"),
            "Round": setup.round,
            "White": setup.white.name,
            "Black": setup.black.name,
            "Result": ending.result,
            "TimeControl": setup.tc.pgn_tag(),
            "Opening": setup.opening.name,
            "Termination": ending.termination,
            "PlyCount": str(len(board.move_stack)),
        }
    )
    return str(game)


def play_game(setup: GameSetup) -> GameRecord:
    """Play one game from ``setup.opening``. An external engine's failure is a
    forfeit; ``PlayerFailed`` when one of our in-process players raises,
    ``FinisherFailed`` when the reference engine cannot finish the game."""
    board = setup.opening.board()
    notes: list[str] = []  # one per move after the opening line
    sessions: dict[chess.Color, Session] = {}
    try:
        ending = _start(setup, sessions) or _play(setup, board, sessions, notes)
    finally:
        for session in sessions.values():
            with contextlib.suppress(Exception):
                session.close()
    if ending is None:
        ending = _finish(setup, board, notes)
    return GameRecord(
        setup.white.name,
        setup.black.name,
        ending.result,
        ending.termination,
        setup.opening.name,
        _pgn(setup, board, notes, ending),
        len(board.move_stack),
        ending.time_loss,
    )
