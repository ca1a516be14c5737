"""A player at the board for one game: ``play(board, clocks) -> Reply``.

External engines (UCI or xboard) start as a fresh process per game, in their own
process group so the runner's watchdog can kill a hung one with everything it
started. In-process players keep one loaded :class:`treestrap.engine.engine.Engine` per
weight set in each worker process across games (loading the compiled kernels costs
a second per process; a new game only clears the transposition table).

A UCI engine that names itself as ours (``id name treestrap ...``) is ours like an
in-process player (``Session.ours``): an ``info string error`` line from it (how our
engine reports a search that raised, before it plays some legal move) is
:class:`OwnEngineFailed`, not a move, and the last lines of its standard error (the
traceback) are kept for the report.

Scores are centipawns from the mover's point of view, as the engine itself reports
them; a mate is ``+-MATE_SCORE``, beyond any adjudication threshold.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import chess
import chess.engine

from treestrap.play.players import IN_PROCESS, XBOARD, PlayerSpec
from treestrap.play.timecontrol import TimeControl
from treestrap.version import ENGINE_FAMILY

if TYPE_CHECKING:
    from treestrap.core.position import Position
    from treestrap.engine.engine import Engine
    from treestrap.evaluation.network_weights import NetworkModel
    from treestrap.evaluation.weights import LinearModel

#: A mate, in centipawns: larger than any threshold anyone would set.
MATE_SCORE = 100_000.0
#: Seconds an engine may take to start, answer ``isready`` (our UCI engine may be
#: compiling its kernels) and take its options.
STARTUP_TIMEOUT = 300.0
#: Seconds an engine gets to quit before its process is killed.
QUIT_TIMEOUT = 5.0
#: How our UCI engine begins a line that reports a failure
#: (:meth:`treestrap.engine.uci.UciEngine.error`).
ERROR_INFO = "info string error"
#: Lines of a UCI engine's standard error kept for the report of a failure.
STDERR_LINES = 80
#: In-process engines kept per worker process (each holds a transposition table).
ENGINE_CACHE_SIZE = 8
IN_PROCESS_HASH_MB = 16

Clocks = dict[chess.Color, float]


@dataclass
class Reply:
    move: chess.Move | None
    score: float | None  # centipawns for the mover; None when the engine gave none
    resigned: bool = False


class OwnEngineFailed(Exception):
    """Our engine, run as a UCI subprocess, reported an error (``line``, its ``info
    string error ...``): a bug, never a game result. ``stderr`` holds the last lines
    of its standard error, where it wrote the traceback; ``id_name`` its ``id name``."""

    def __init__(self, line: str, stderr: str, id_name: str = "") -> None:
        super().__init__(line, stderr, id_name)  # args match __init__: it pickles
        self.line, self.stderr, self.id_name = line, stderr, id_name

    def __str__(self) -> str:
        return f'it sent "{self.line}"'


class Session(Protocol):
    """One player for one game. ``ours`` (optional, False if absent): one of our
    engines, whose failures stop the run instead of losing the game."""

    name: str

    def play(self, board: chess.Board, clocks: Clocks) -> Reply: ...

    def kill(self) -> None:
        """Make a ``play`` that does not return give up (called from another thread)."""

    def close(self) -> None: ...


def open_session(
    spec: PlayerSpec, tc: TimeControl, slot: int = 0, other_tc: TimeControl | None = None
) -> Session:
    """Start ``spec`` for one game under its own ``tc``; ``other_tc`` is the opponent's
    when it differs (time odds: the engine is told both increments). ``slot`` keeps two
    in-process players of the same weights (self-play) on separate engines."""
    if spec.kind == IN_PROCESS:
        return InProcessSession(spec, tc, slot, other_tc)
    return EngineProcess(spec, tc, other_tc)


def increments(board: chess.Board, tc: TimeControl, other_tc: TimeControl) -> Clocks:
    """Each side's increment, the mover's from its own time control."""
    return {board.turn: tc.increment, not board.turn: other_tc.increment}


def check_player(spec: PlayerSpec) -> None:
    """Start the player once and stop it, so a bad one fails before any game:
    ``ValueError`` with the reason."""
    try:
        if spec.kind == IN_PROCESS:
            load_model(spec)
        else:
            EngineProcess(spec, TimeControl(depth=1)).close()
    except ValueError:
        raise
    except Exception as exc:
        raise ValueError(f"player {spec.name} cannot start: {_describe(exc)}") from None


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# --- engines over UCI / xboard ------------------------------------------------------


class EngineProcess:
    """One external engine process for one game."""

    def __init__(
        self, spec: PlayerSpec, tc: TimeControl, other_tc: TimeControl | None = None
    ) -> None:
        self.name = spec.name
        self.tc = tc
        self.other_tc = other_tc or tc
        self.ours = False  # set once its id name is known
        command = list(spec.command)
        if spec.kind == XBOARD:
            self.engine = chess.engine.SimpleEngine.popen_xboard(
                command, timeout=STARTUP_TIMEOUT, setpgrp=True
            )
        else:
            self.engine = chess.engine.SimpleEngine.popen(
                WatchedUci, command, timeout=STARTUP_TIMEOUT, setpgrp=True, stderr=subprocess.PIPE
            )
        self.id_name = self.engine.id.get("name", "")
        try:
            family = self.id_name.split(" ")[0] == ENGINE_FAMILY
            self.ours = family and isinstance(self.engine.protocol, WatchedUci)
            if spec.options:
                self.engine.configure(dict(spec.options))
            self.engine.ping()  # start-up work must not count against the clock
            if family:
                warm_up(self.engine)
            self.check()  # an option it refused, a warm-up search that raised
        except BaseException:
            self.close()
            raise
        self.engine.timeout = None  # the runner's watchdog limits each move instead
        self._game = object()

    def check(self) -> None:
        """``OwnEngineFailed`` if this is our engine and it has sent an ``info string
        error`` line."""
        protocol = self.engine.protocol
        if not self.ours or not isinstance(protocol, WatchedUci) or not protocol.errors:
            return
        # It wrote the traceback before the line: a round trip lets it arrive.
        timeout, self.engine.timeout = self.engine.timeout, QUIT_TIMEOUT
        with contextlib.suppress(Exception):  # gone or stuck: report what came
            self.engine.ping()
        self.engine.timeout = timeout
        raise OwnEngineFailed(protocol.errors[0], self.stderr(), self.id_name)

    def stderr(self) -> str:
        """The last lines the engine wrote to its standard error (UCI engines only)."""
        protocol = self.engine.protocol
        return "\n".join(protocol.stderr) if isinstance(protocol, WatchedUci) else ""

    def play(self, board: chess.Board, clocks: Clocks) -> Reply:
        tc = self.tc
        if tc.is_clock:
            inc = increments(board, tc, self.other_tc)
            limit = chess.engine.Limit(
                white_clock=max(clocks[chess.WHITE], 0.001),
                black_clock=max(clocks[chess.BLACK], 0.001),
                white_inc=inc[chess.WHITE],
                black_inc=inc[chess.BLACK],
            )
        else:
            limit = chess.engine.Limit(depth=tc.depth, nodes=tc.nodes)
        played = self.engine.play(board, limit, info=chess.engine.INFO_SCORE, game=self._game)
        self.check()  # our engine plays a move after a failed search: the error decides
        pov = played.info.get("score")
        score = None if pov is None else float(pov.relative.score(mate_score=int(MATE_SCORE)))
        return Reply(played.move, score, played.resigned)

    def kill(self) -> None:
        # The engine leads its own process group (setpgrp): kill the whole group.
        with contextlib.suppress(OSError):
            os.killpg(self.engine.transport.get_pid(), signal.SIGKILL)

    def close(self) -> None:
        self.engine.timeout = QUIT_TIMEOUT
        with contextlib.suppress(Exception):
            self.engine.quit()
        self.engine.close()  # kills the process if it is still there


class WatchedUci(chess.engine.UciProtocol):
    """UCI as python-chess speaks it, keeping what the engine says went wrong: its
    ``info string error`` lines, and the last lines of its standard error, which go
    on to ours as they come (as when the engine wrote to it directly)."""

    def __init__(self) -> None:
        super().__init__()
        self.errors: list[str] = []
        self.stderr: deque[str] = deque(maxlen=STDERR_LINES)

    def line_received(self, line: str) -> None:
        if line.startswith(ERROR_INFO):
            self.errors.append(line)
        super().line_received(line)

    def error_line_received(self, line: str) -> None:
        self.stderr.append(line)
        with contextlib.suppress(OSError, ValueError):  # no stderr left to write to
            print(line, file=sys.stderr, flush=True)


def warm_up(engine: chess.engine.SimpleEngine) -> None:
    """One search without a clock, before the game's: our engine answers a timed ``go``
    with a quick move in plain Python until its kernels are compiled (half a minute from a
    cold cache), and a game at a fast clock ends before that, so from a cold cache every
    game would be played without the search. A ``go`` without a clock waits for the
    compiled search, off the game's clock; from a warm cache it takes about a second."""
    engine.play(chess.Board(), chess.engine.Limit(depth=1), game=object())


# --- our engine in this process -------------------------------------------------------

_ENGINES: OrderedDict[tuple[object, ...], Engine] = OrderedDict()


def load_model(spec: PlayerSpec) -> LinearModel | NetworkModel:
    """The weights of an in-process player (``WeightFileError`` if unusable)."""
    from treestrap.evaluation.presets import preset_model
    from treestrap.evaluation.weight_files import load_weights

    if spec.weights is not None:
        return load_weights(spec.weights)
    return preset_model(spec.preset, seed=spec.seed)


def _cached_engine(spec: PlayerSpec, slot: int) -> Engine:
    from treestrap.core.notation import STARTING_FEN, parse_fen
    from treestrap.engine.engine import Engine
    from treestrap.search.timeman import SearchLimits

    key = (*spec.engine_key(), slot)
    engine = _ENGINES.pop(key, None)
    if engine is None:
        engine = Engine(load_model(spec).evaluator(), hash_mb=IN_PROCESS_HASH_MB)
        # Load (or, with a cold cache, compile) the kernels now, not on a move's clock.
        engine.go(parse_fen(STARTING_FEN), SearchLimits(depth=1))
    _ENGINES[key] = engine  # most recently used last
    while len(_ENGINES) > ENGINE_CACHE_SIZE:
        _ENGINES.popitem(last=False)
    return engine


class InProcessSession:
    """Our engine, searching in this process."""

    ours = True

    def __init__(
        self, spec: PlayerSpec, tc: TimeControl, slot: int, other_tc: TimeControl | None = None
    ) -> None:
        self.name = spec.name
        self.tc = tc
        self.other_tc = other_tc or tc
        self.engine = _cached_engine(spec, slot)
        self.engine.new_game()
        self._pos: Position | None = None
        self._moves: list[chess.Move] = []  # the moves self._pos has seen

    def _position(self, board: chess.Board) -> Position:
        """The game so far as our position, with its history (for repetitions):
        only the moves since the last call are made."""
        from treestrap.core.makemove import make_move
        from treestrap.core.notation import parse_uci_move, position_from_board

        seen = len(self._moves)
        if self._pos is None or board.move_stack[:seen] != self._moves:
            self._pos = position_from_board(board)
        else:
            for move in board.move_stack[seen:]:
                make_move(self._pos, parse_uci_move(self._pos, move.uci()))
        self._moves = list(board.move_stack)
        return self._pos

    def play(self, board: chess.Board, clocks: Clocks) -> Reply:
        from treestrap.search.timeman import SearchLimits
        from treestrap.search.value import MATE_BOUND

        tc = self.tc
        if tc.is_clock:
            inc = increments(board, tc, self.other_tc)
            limits = SearchLimits(
                wtime=max(clocks[chess.WHITE], 0.0),
                btime=max(clocks[chess.BLACK], 0.0),
                winc=inc[chess.WHITE],
                binc=inc[chess.BLACK],
            )
        else:
            limits = SearchLimits(depth=tc.depth, nodes=tc.nodes)
        outcome = self.engine.go(self._position(board), limits)  # go() keeps pos as is
        move = chess.Move.from_uci(outcome.best_move) if outcome.best_move else None
        score = outcome.score
        if abs(score) >= MATE_BOUND:
            score = MATE_SCORE if score > 0 else -MATE_SCORE
        return Reply(move, score)

    def kill(self) -> None:
        self.engine.stop()

    def close(self) -> None:
        pass  # the engine stays loaded for this worker's next game
