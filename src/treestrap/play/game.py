"""One chess game between two engines, as matches and engine tournaments play it: the
game loop of :mod:`treestrap.play.loop`, filled with python-chess's board and engines
under clocks.

The runner keeps the clocks: each side is charged the wall-clock time its engine
took per move (Fischer: plus the increment after the move), and a side whose clock
runs out loses on time. A watchdog stops a move that takes longer than the mover's
clock plus ``WATCHDOG_GRACE`` (or ``move_timeout`` under a depth or node limit): an
external engine's process is killed, an in-process search is told to stop, and that
side forfeits. So do external engines that crash, raise, or play an illegal move; the
termination says who and why (:mod:`treestrap.play.forfeits` counts them by reason).
One of our own players that fails is a bug, not a loss: the game stops with
:class:`~treestrap.play.errors.PlayerFailed`, its traceback kept. Ours are the
in-process players and a UCI engine that names itself as ours (``Session.ours``);
failing is raising, playing an illegal move or none, and for our UCI engine also an
``info string error`` line (a search that raised) or a crash. A game too long by
``max_plies`` is a draw, unless a reference engine is given to play both sides from
there to the end (Serban 2014 finished games with Stockfish this way); a reference
engine that fails makes the game fail (:class:`FinisherFailed`), never a draw.
"""

from __future__ import annotations

import contextlib
import datetime
import re
import socket
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import NoReturn

import chess
import chess.engine
import chess.pgn

from treestrap.play.adjudication import Adjudication, adjudicate
from treestrap.play.errors import PlayerFailed, describe
from treestrap.play.forfeits import FORFEIT, TIME_FORFEIT
from treestrap.play.loop import Ending, History, Turn, play_out
from treestrap.play.openings import Opening
from treestrap.play.players import IN_PROCESS, PlayerSpec
from treestrap.play.sessions import (
    MATE_SCORE,
    Clocks,
    OwnEngineFailed,
    Reply,
    Session,
    open_session,
)
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
    # Time odds: a player's own time control, by name, in place of ``tc``.
    player_tcs: dict[str, TimeControl] = field(default_factory=dict)

    def spec_of(self, side: chess.Color) -> PlayerSpec:
        return self.white if side == chess.WHITE else self.black

    def tc_of(self, side: chess.Color) -> TimeControl:
        """The time control ``side``'s player plays under."""
        return self.player_tcs.get(self.spec_of(side).name, self.tc)


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


def _loss(side: chess.Color) -> str:
    return "0-1" if side == chess.WHITE else "1-0"


def _forfeit(side: chess.Color, name: str, reason: str) -> Ending:
    return Ending(_loss(side), f"{FORFEIT}{reason} ({chess.COLOR_NAMES[side]}, {name})")


def _where(setup: GameSetup) -> str:
    return f"{setup.white.name} - {setup.black.name}, opening {setup.opening.name}"


def _spec_is_ours(spec: PlayerSpec) -> bool:
    """Whether a player is ours before it starts: an in-process one (a UCI engine
    shows whether it is ours by its ``id name``, once started: :func:`_ours`)."""
    return spec.kind == IN_PROCESS


def _ours(session: Session | None) -> bool:
    """Whether ``session`` is one of our players (a stand-in without the flag is not)."""
    return bool(getattr(session, "ours", False))


def _stderr_of(session: Session | None) -> str:
    """What a UCI engine last wrote to its standard error ("" for other players)."""
    read = getattr(session, "stderr", None)
    return read() if callable(read) else ""


def _with_stderr(details: str, stderr: str) -> str:
    if not stderr:
        return details
    return f"{details}\nthe engine's standard error (its last lines):\n{stderr}\n"


def _own_failure(
    spec: PlayerSpec, setup: GameSetup, exc: BaseException, session: Session | None = None
) -> PlayerFailed:
    """The error for one of our players that failed in ``setup``'s game: an in-process
    one that raised, or our UCI engine (its error line, a crash, a bad move)."""
    if spec.kind == IN_PROCESS:
        return PlayerFailed.raised(f"in-process player {spec.name} raised ({_where(setup)})", exc)
    if isinstance(exc, OwnEngineFailed):
        who, reason, stderr = _our_engine(spec, exc.id_name), str(exc), exc.stderr
    else:
        who, reason, stderr = _our_engine(spec, session), describe(exc), _stderr_of(session)
    message = f"{who} failed ({_where(setup)}): {reason}"
    details = f"{message}\n\n" + "".join(traceback.format_exception(exc))
    return PlayerFailed(message, _with_stderr(details, stderr))


def _our_engine(spec: PlayerSpec, named: Session | str | None) -> str:
    """``our engine NAME (id name ID)``: the player, and how the engine named itself."""
    id_name = named if isinstance(named, str) else getattr(named, "id_name", "")
    return f"our engine {spec.name}" + (f" (id name {id_name})" if id_name else "")


def _own_bad_move(
    spec: PlayerSpec, setup: GameSetup, board: chess.Board, why: str, session: Session
) -> PlayerFailed:
    """The error for one of our players whose move the board refused (``why``:
    ``illegal move MOVE`` or ``no move``): the position's FEN and the move."""
    in_process = spec.kind == IN_PROCESS
    who = f"in-process player {spec.name}" if in_process else _our_engine(spec, session)
    did = f"played an {why}" if why.startswith("illegal") else "gave no move"
    message = f"{who} {did} in {board.fen()} ({_where(setup)})"
    moves = " ".join(move.uci() for move in board.move_stack)
    details = f"{message}\n\nthe game: {board.root().fen()} moves {moves}\n"
    return PlayerFailed(message, _with_stderr(details, _stderr_of(session)))


class BoardTable:
    """A chess game's position as the loop asks it: python-chess's board, whose
    outcome knows the claims of repetition and the fifty-move rule."""

    def __init__(self, board: chess.Board) -> None:
        self.board = board

    def ending(self) -> Ending | None:
        outcome = self.board.outcome(claim_draw=True)
        if outcome is None:
            return None
        return Ending(outcome.result(), outcome.termination.name.lower().replace("_", " "))

    def side(self) -> chess.Color:
        return self.board.turn

    def plies(self) -> int:
        return len(self.board.move_stack)

    def refusal(self, move: chess.Move | None) -> str | None:
        if move is None:
            return "no move"
        if move not in self.board.legal_moves:
            return f"illegal move {move.uci()}"
        return None

    def make(self, move: chess.Move) -> None:
        self.board.push(move)


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
    except chess.engine.EngineTerminatedError as exc:
        failure, error = "engine crashed", exc  # kept: a crash of ours is a bug
    except Exception as exc:  # an in-process engine's error, or a protocol error
        failure, error = f"engine error: {describe(exc)}", exc
    finally:
        timer.cancel()
    spent = time.perf_counter() - start
    if barked.is_set():  # stopped by the watchdog: whatever it raised then is no bug
        failure, error = f"engine hung for {timeout:.1f} s", None
    return reply, spent, failure, error


#: A move's note ends in the mover's thinking time (:func:`_note`).
_THINKING = re.compile(r"(\d+\.\d+)s \}")


def thinking_seconds(pgn: str) -> float:
    """Both sides' thinking time in a game this runner wrote, from its move notes."""
    return sum(float(spent) for spent in _THINKING.findall(pgn))


def _note(score: float | None, spent: float) -> str:
    """PGN comment: the mover's score in pawns and its thinking time."""
    if score is None:
        return f"{spent:.2f}s"
    if abs(score) >= MATE_SCORE / 2:
        return f"{'+' if score > 0 else '-'}mate {spent:.2f}s"
    return f"{score / 100:+.2f} {spent:.2f}s"


class _Contestant:
    """One side's engine under its clock (which the runner keeps) and the watchdog: a
    crash, a hang, a flag fall, a resignation or an illegal move ends the game."""

    def __init__(
        self, setup: GameSetup, side: chess.Color, session: Session, clocks: Clocks
    ) -> None:
        self.setup = setup
        self.side = side
        self.session = session
        self.clocks = clocks
        self.spec = setup.spec_of(side)
        self.ours = _spec_is_ours(self.spec) or _ours(session)

    def turn(self, table: BoardTable) -> Turn:
        tc, side, clocks = self.setup.tc_of(self.side), self.side, self.clocks
        timeout = clocks[side] + WATCHDOG_GRACE if tc.is_clock else self.setup.rules.move_timeout
        reply, spent, failure, error = _timed_move(self.session, table.board, clocks, timeout)
        if error is not None and self.ours:
            raise _own_failure(self.spec, self.setup, error, self.session) from error
        if failure is not None:
            return Turn(ending=self.refused(failure))
        if self.ours and not (reply is not None and reply.resigned):
            why = table.refusal(None if reply is None else reply.move)
            if why is not None:  # our bug, not a loss: raised with the position and move
                raise _own_bad_move(self.spec, self.setup, table.board, why, self.session)
        if tc.is_clock:
            clocks[side] -= spent
            if clocks[side] < 0:
                return Turn(ending=Ending(_loss(side), TIME_FORFEIT, time_loss=True))
            clocks[side] += tc.increment
        if reply is None:
            return Turn()  # no answer: the table refuses it as no move
        if reply.resigned:
            name = self.session.name
            return Turn(ending=Ending(_loss(side), f"resigned ({chess.COLOR_NAMES[side]}, {name})"))
        return Turn(reply.move, score=reply.score, note=_note(reply.score, spent))

    def refused(self, why: str) -> Ending:
        return _forfeit(self.side, self.session.name, why)


def _start(setup: GameSetup, sessions: dict[chess.Color, Session]) -> Ending | None:
    for side, spec in ((chess.WHITE, setup.white), (chess.BLACK, setup.black)):
        self_play = side == chess.BLACK and spec.engine_key() == setup.white.engine_key()
        try:
            own, other = setup.tc_of(side), setup.tc_of(not side)
            sessions[side] = open_session(spec, own, slot=int(self_play), other_tc=other)
        except Exception as exc:
            if _spec_is_ours(spec) or isinstance(exc, OwnEngineFailed):
                raise _own_failure(spec, setup, exc) from exc
            return _forfeit(side, spec.name, f"engine failed to start: {describe(exc)}")
    return None


def _play(
    setup: GameSetup,
    board: chess.Board,
    sessions: dict[chess.Color, Session],
    notes: list[str],
) -> Ending | None:
    """Play until the game ends (the ending) or reaches ``max_plies`` (None)."""
    clocks = {side: setup.tc_of(side).base or 0.0 for side in (chess.WHITE, chess.BLACK)}
    movers = {side: _Contestant(setup, side, sessions[side], clocks) for side in sessions}
    rules = setup.rules

    def referee(history: History, plies: int) -> Ending | None:
        verdict = adjudicate(history, plies, rules.adjudication)
        return None if verdict is None else Ending(*verdict)

    turns: list[Turn] = []
    try:
        return play_out(BoardTable(board), movers, rules.max_plies, referee, turns)
    finally:
        notes.extend(turn.note for turn in turns)


def _finisher_failed(
    setup: GameSetup,
    ref: PlayerSpec,
    why: str,
    exc: Exception | None,
    session: Session | None = None,
) -> NoReturn:
    """Raise for a reference engine that failed: our own is a bug (``PlayerFailed``),
    an external one leaves the game without a result (``FinisherFailed``)."""
    ours = _spec_is_ours(ref) or _ours(session) or isinstance(exc, OwnEngineFailed)
    if exc is not None and ours:
        raise _own_failure(ref, setup, exc, session) from exc
    raise FinisherFailed(f"finisher {ref.name} failed: {why}") from exc


class _Finisher:
    """The reference engine, playing both sides: no contestant, it gets a full clock
    every move, and a failure leaves the game without a result."""

    def __init__(self, setup: GameSetup, ref: PlayerSpec, session: Session) -> None:
        self.setup = setup
        self.ref = ref
        self.session = session

    def turn(self, table: BoardTable) -> Turn:
        rules = self.setup.rules
        tc = rules.finish_tc
        base = tc.base or 0.0
        clocks = {chess.WHITE: base, chess.BLACK: base}
        timeout = base + WATCHDOG_GRACE if tc.is_clock else rules.move_timeout
        reply, spent, failure, error = _timed_move(self.session, table.board, clocks, timeout)
        if failure is not None:
            _finisher_failed(self.setup, self.ref, failure, error, self.session)
        if _spec_is_ours(self.ref) or _ours(self.session):
            why = table.refusal(None if reply is None else reply.move)
            if why is not None:
                raise _own_bad_move(self.ref, self.setup, table.board, why, self.session)
        if reply is None:
            return Turn()  # no answer: the table refuses it as no move
        return Turn(reply.move, score=reply.score, note=_note(reply.score, spent))

    def refused(self, why: str) -> Ending:
        _finisher_failed(self.setup, self.ref, why, None, self.session)


def _finish(setup: GameSetup, board: chess.Board, notes: list[str]) -> Ending:
    """The reference engine plays both sides on, to the end or to its own cap (a
    draw); ``FinisherFailed`` or ``PlayerFailed`` if it fails."""
    rules = setup.rules
    ref = rules.finisher
    if ref is None:
        return Ending(DRAW, MAX_LENGTH)
    try:
        session = open_session(ref, rules.finish_tc)
    except Exception as exc:
        _finisher_failed(setup, ref, f"failed to start: {describe(exc)}", exc)
    finisher = _Finisher(setup, ref, session)
    turns: list[Turn] = []
    table = BoardTable(board)
    try:
        cap = table.plies() + rules.finish_plies
        ending = play_out(table, (finisher, finisher), cap, None, turns)
    finally:
        with contextlib.suppress(Exception):
            session.close()
        finished = [turn.note for turn in turns]
        if finished:
            finished[0] = f"{ref.name} finishes: {finished[0]}"
        notes.extend(finished)
    if ending is None:
        return Ending(DRAW, f"{MAX_LENGTH} (not finished by {ref.name})")
    return Ending(ending.result, f"finished by {ref.name} ({ending.termination})")


def _pgn(setup: GameSetup, board: chess.Board, notes: list[str], ending: Ending) -> str:
    game = chess.pgn.Game()
    game.setup(board.root())  # adds FEN and SetUp unless it is the start position
    book = len(board.move_stack) - len(notes)
    node: chess.pgn.GameNode = game
    for i, move in enumerate(board.move_stack):
        node = node.add_variation(move, comment=notes[i - book] if i >= book else "")
    headers = {
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
    white_tc, black_tc = setup.tc_of(chess.WHITE), setup.tc_of(chess.BLACK)
    if white_tc != setup.tc or black_tc != setup.tc:  # time odds: each side's own
        headers["WhiteTimeControl"] = white_tc.pgn_tag()
        headers["BlackTimeControl"] = black_tc.pgn_tag()
    game.headers.update(headers)
    return str(game)


def play_game(setup: GameSetup) -> GameRecord:
    """Play one game from ``setup.opening``. An external engine's failure is a
    forfeit; ``PlayerFailed`` when one of our players fails (an in-process one raises
    or plays an illegal move or none; our UCI engine sends ``info string error``,
    crashes or plays a bad move), ``FinisherFailed`` when an external reference engine
    cannot finish the game."""
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
