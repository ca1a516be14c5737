"""The UCI front end: ``treestrap uci`` speaks the Universal Chess Interface.

The main thread reads commands from stdin; a ``go`` starts a worker thread that calls
:meth:`treestrap.engine.engine.Engine.go` (the compiled search releases the GIL), so
``stop``, ``ponderhit``, ``isready`` and ``quit`` are answered while it searches. Every
line written is flushed at once. A bad command never ends the engine: it answers
``info string error: ...`` and keeps its state (a malformed ``position`` leaves the
previous position in place).

The search kernels come from numba's compile cache (a second or two). With a cold
cache the session starts a compile job in a process of its own
(:mod:`treestrap.engine.compile_job`), which goes on if the session is ended, so the next
engine finds the cache filled; the session loads the kernels when the job is done.
``readyok`` waits for them at most :data:`READY_WAIT` seconds (a GUI's ready check times
out long before a compile is done). A timed ``go`` that comes before they are ready is
answered at once by a small search in plain Python with the engine's own evaluation
where numpy can compute it (:mod:`treestrap.engine.quick_move`,
:mod:`treestrap.engine.quick_evaluation`), with an ``info string`` that says so; a
``go`` with no clock (depth, nodes, infinite, ponder) waits for the compiled search.

Beyond the protocol: ``d`` prints the board, its FEN and its Polyglot key; ``bench
[depth]`` runs :func:`treestrap.engine.bench.run_bench` with the session's ``Threads``.
"""

from __future__ import annotations

import io
import re
import sys
import threading
import traceback
from collections.abc import Iterable
from dataclasses import replace
from typing import TextIO

import chess

from treestrap.core.move import move_to_uci
from treestrap.core.notation import (
    format_fen,
    legal_moves,
)
from treestrap.core.position import Position, current_key
from treestrap.engine import compile_job
from treestrap.engine.engine import Engine, SearchInfo, SearchOutcome
from treestrap.engine.lazy_smp import max_threads
from treestrap.engine.quick_evaluation import own_scorer
from treestrap.engine.quick_move import (
    material_score,
    position_board,
    quick_move,
    quick_move_time,
)
from treestrap.engine.uci_protocol import (
    GoCommand,
    UciError,
    format_info,
    mate_moves,
    parse_go,
    parse_position,
)
from treestrap.evaluation import presets
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.preset_names import DEFAULT_PRESET, PRESET_NAMES
from treestrap.evaluation.weight_file_format import WeightFileError
from treestrap.evaluation.weight_files import load_weights
from treestrap.evaluation.weights import LinearModel
from treestrap.search.timeman import DEFAULT_OVERHEAD
from treestrap.search.tournament import EngineOptions
from treestrap.search.value import MAX_PLY
from treestrap.version import ENGINE_NAME

ENGINE_AUTHOR = "the treestrap developers"

HASH_DEFAULT, HASH_MIN, HASH_MAX = 16, 1, 4096
OVERHEAD_DEFAULT, OVERHEAD_MAX = round(DEFAULT_OVERHEAD * 1000), 5000
#: Lines a search reports at most (chess positions have at most 218 legal moves).
MULTIPV_MAX = 256
PRESETS = PRESET_NAMES
#: Seed of the ``random`` preset (fixed: the same weights in every process).
RANDOM_PRESET_SEED = 0
#: Seconds ``readyok`` waits at most for the kernels to compile (python-chess, which
#: lichess-bot drives engines with, gives a command ten seconds by default).
READY_WAIT = 3.0
#: An error message is cut at this many characters: it may quote a 100k-character line.
MAX_ERROR_CHARS = 300

_SETOPTION = re.compile(r"^setoption\s+name\s+(?P<name>.*?)(?:\s+value(?:\s+(?P<value>.*))?)?$")


def preset_model(name: str) -> LinearModel | NetworkModel:
    return presets.preset_model(name, seed=RANDOM_PRESET_SEED)


class UciEngine:
    """One UCI session over a pair of text streams."""

    def __init__(
        self,
        out: TextIO,
        model: LinearModel | NetworkModel | None = None,
        weights_path: str = "",
        err: TextIO | None = None,
        search_options: EngineOptions | None = None,
    ) -> None:
        self._out = out
        self._err = err if err is not None else sys.stderr
        self._out_lock = threading.Lock()
        self._closed = False
        self._lock = threading.Lock()  # guards the search state below
        self.weights_path = weights_path
        self.preset = DEFAULT_PRESET
        self.hash_mb = HASH_DEFAULT
        self.ponder_option = False
        self.model = model if model is not None else preset_model(self.preset)
        self.engine = Engine(self.model.evaluator(), hash_mb=HASH_DEFAULT, options=search_options)
        self.engine.overhead = OVERHEAD_DEFAULT / 1000.0
        #: the position of the last ``position`` command, read by our (compiled) parser;
        #: None until the kernels are loaded (then python-chess has checked it)
        self._pos: Position | None = None
        #: the ``position`` arguments of ``pos``, for a quick move before the kernels
        #: are compiled
        self.position_args = ["startpos"]
        # Search state: one search at a time, run by self._worker.
        self._worker: threading.Thread | None = None
        self._stop_requested = False
        self._ponderhit = False
        self._in_ponder = False
        self._ponder_event = threading.Event()  # set by ponderhit and by stop
        self._stop_event = threading.Event()  # set by stop (and quit)
        self._mate_target: int | None = None
        self._quitting = False
        self._warm = threading.Event()
        # The compile job starts before any answer, so an engine ended right after its
        # uciok has started it all the same.
        self._compile_job = None if compile_job.is_ready() else compile_job.start_job()
        threading.Thread(target=self._warm_up, name="uci-warm-up", daemon=True).start()

    # --- output ----------------------------------------------------------------

    def send(self, line: str) -> None:
        with self._out_lock:
            if self._closed:
                return
            try:
                self._out.write(line + "\n")
                self._out.flush()
            except (OSError, ValueError):  # the GUI went away: nobody left to tell
                self._closed = True

    def error(self, message: str) -> None:
        text = " ".join(str(message).split())
        if len(text) > MAX_ERROR_CHARS:
            text = text[: MAX_ERROR_CHARS - 3] + "..."
        self.send("info string error: " + text)

    # --- warm-up ---------------------------------------------------------------

    def _warm_up(self) -> None:
        """Load every kernel a session uses, after a compile job of its own process has
        put them in the cache when they are not there yet (in this process only when
        no job can: nothing is cached, or the job failed)."""
        try:
            if self._compile_job is not None:
                compile_job.wait_for_job(self._compile_job)
            compile_job.compile_kernels()
        except Exception:
            traceback.print_exc(file=self._err)
        finally:
            self._warm.set()

    def wait_warm(self) -> None:
        self._warm.wait()

    # --- the command loop ------------------------------------------------------

    def run(self, lines: Iterable[str]) -> int:
        """Answer commands until ``quit`` or the end of input; returns the exit code."""
        for raw in lines:
            if not self.handle(raw):
                break
        self.shutdown()
        return 0

    def handle(self, raw: str) -> bool:
        """Answer one command line; False once the session should end."""
        line = raw.strip()
        if not line:
            return True
        tokens = line.split()
        cmd, args = tokens[0], tokens[1:]
        if cmd == "quit":
            return False
        handler = getattr(self, "cmd_" + cmd, None)
        try:
            if handler is None:
                raise UciError(f"unknown command {cmd!r}")
            handler(line if cmd == "setoption" else args)
        except UciError as exc:
            self.error(str(exc))
        except Exception as exc:  # keep the engine alive whatever happens
            traceback.print_exc(file=self._err)
            self.error(f"{cmd}: {type(exc).__name__}: {exc}")
        return True

    def shutdown(self) -> None:
        """Stop a running search and wait (briefly) for its thread."""
        self._quitting = True
        worker = self._halt_search()
        if worker is not None:
            worker.join(timeout=5.0)

    # --- commands --------------------------------------------------------------

    def cmd_uci(self, args: list[str]) -> None:
        self.send(f"id name {ENGINE_NAME}")
        self.send(f"id author {ENGINE_AUTHOR}")
        self.send(
            f"option name Hash type spin default {HASH_DEFAULT} min {HASH_MIN} max {HASH_MAX}"
        )
        self.send(f"option name Threads type spin default 1 min 1 max {max_threads()}")
        self.send("option name Ponder type check default false")
        self.send("option name Weights type string default <empty>")
        self.send(
            f"option name Preset type combo default {DEFAULT_PRESET} "
            + " ".join(f"var {p}" for p in PRESETS)
        )
        self.send(
            f"option name Move Overhead type spin default {OVERHEAD_DEFAULT} "
            f"min 0 max {OVERHEAD_MAX}"
        )
        self.send(f"option name MultiPV type spin default 1 min 1 max {MULTIPV_MAX}")
        self.send("uciok")

    def cmd_isready(self, args: list[str]) -> None:
        self._warm.wait(READY_WAIT)
        self.send("readyok")

    def cmd_debug(self, args: list[str]) -> None:
        pass  # nothing more to say in debug mode

    def cmd_ucinewgame(self, args: list[str]) -> None:
        self._finish_search()
        self.engine.new_game()

    def cmd_position(self, args: list[str]) -> None:
        # A new Position object: a search under way keeps the one it was given.
        if self._warm.is_set():
            self._pos = parse_position(args)
        else:
            # Our parser is compiled: until its kernels are loaded, python-chess checks
            # the position, and ours reads it when a search first needs it.
            if not args or position_board(args) is None:
                raise UciError(f"position: cannot read {' '.join(args)!r}")
            self._pos = None
        self.position_args = list(args)

    @property
    def pos(self) -> Position:
        """The current position in our own representation (waits for the kernels)."""
        if self._pos is None:
            self.wait_warm()
            self._pos = parse_position(self.position_args)
        return self._pos

    def cmd_d(self, args: list[str]) -> None:
        fen = format_fen(self.pos)
        for row in str(chess.Board(fen)).splitlines():
            self.send(row)
        self.send(f"Fen: {fen}")
        self.send(f"Key: {int(current_key(self.pos)):016X}")

    def cmd_bench(self, args: list[str]) -> None:
        from treestrap.engine.bench import (
            DEFAULT_DEPTH,
            format_bench_line,
            format_bench_total,
            run_bench,
        )

        depth = DEFAULT_DEPTH
        if args:
            try:
                depth = int(args[0])
            except ValueError:
                raise UciError(f"bench: expected a depth, got {args[0]!r}") from None
            if not 1 <= depth < MAX_PLY:
                raise UciError(f"bench: depth must be in 1..{MAX_PLY - 1}, got {depth}")
        self._finish_search()
        self.wait_warm()
        result = run_bench(
            depth,
            report=lambda i, row: self.send(format_bench_line(i, row)),
            threads=self.engine.threads,
        )
        self.send(format_bench_total(result))

    def cmd_setoption(self, line: str) -> None:
        m = _SETOPTION.match(line)
        if not m or not m.group("name"):
            raise UciError("setoption: expected 'setoption name <id> [value <x>]'")
        name = " ".join(m.group("name").split()).lower()
        value = (m.group("value") or "").strip()
        if name == "hash":
            mb = self._spin("Hash", value, HASH_MIN, HASH_MAX)
            self._finish_search()
            try:
                self.engine.resize(mb)
            except MemoryError:
                raise UciError(f"setoption Hash: cannot allocate {mb} MiB") from None
            self.hash_mb = mb
        elif name == "threads":
            threads = self._spin("Threads", value, 1, max_threads())
            self._finish_search()
            self.engine.threads = threads
        elif name == "ponder":
            if value.lower() not in ("true", "false"):
                raise UciError(f"setoption Ponder: expected true or false, got {value!r}")
            self.ponder_option = value.lower() == "true"
        elif name == "move overhead":
            ms = self._spin("Move Overhead", value, 0, OVERHEAD_MAX)
            self.engine.overhead = ms / 1000.0
        elif name == "multipv":
            lines = self._spin("MultiPV", value, 1, MULTIPV_MAX)
            self._finish_search()
            self.engine.multipv = lines
        elif name == "weights":
            path = "" if value in ("", "<empty>") else value
            model = preset_model(self.preset)
            if path:
                try:
                    model = load_weights(path)
                except WeightFileError as exc:
                    raise UciError(f"setoption Weights: {exc}") from None
            self._set_model(model)
            self.weights_path = path
        elif name == "preset":
            preset = value.lower()
            if preset not in PRESETS:
                raise UciError(
                    f"setoption Preset: expected one of {', '.join(PRESETS)}, got {value!r}"
                )
            self.preset = preset
            if not self.weights_path:
                self._set_model(preset_model(preset))
        else:
            raise UciError(f"setoption: no such option {m.group('name')!r}")

    @staticmethod
    def _spin(name: str, value: str, lo: int, hi: int) -> int:
        try:
            v = int(value)
        except ValueError:
            raise UciError(f"setoption {name}: expected an integer, got {value!r}") from None
        if not lo <= v <= hi:
            raise UciError(f"setoption {name}: must be in {lo}..{hi}, got {v}")
        return v

    def _set_model(self, model: LinearModel | NetworkModel) -> None:
        self._finish_search()
        self.model = model
        self.engine.evaluator = model.evaluator()
        self.engine.new_game()  # table entries scored by other weights mean nothing now

    # --- searching -------------------------------------------------------------

    def cmd_go(self, args: list[str]) -> None:
        go = parse_go(args)
        if go.searchmoves:
            self.send("info string searchmoves is not supported: searching all moves")
        self._finish_search()
        with self._lock:
            self._stop_requested = False
            self._ponderhit = False
            self._in_ponder = go.ponder
            self._ponder_event.clear()
            self._stop_event.clear()
            self._mate_target = go.mate
            # Under the lock, before the thread starts: a stop from now on ends this
            # search even if it comes before the thread has reached Engine.go.
            self.engine.prepare()
            self._worker = threading.Thread(
                target=self._search,
                args=(self._pos, self.position_args, go),
                name="uci-search",
                daemon=True,
            )
            self._worker.start()

    def cmd_stop(self, args: list[str]) -> None:
        self._halt_search()

    def cmd_ponderhit(self, args: list[str]) -> None:
        with self._lock:
            if not self._in_ponder:
                return  # not pondering: nothing to do
            self._ponderhit = True
            self.engine.stop()  # end the ponder search; the real one follows
            self._ponder_event.set()

    def _halt_search(self) -> threading.Thread | None:
        """Ask the search under way (if any) to stop; returns its thread."""
        with self._lock:
            worker = self._worker
            if worker is None or not worker.is_alive():
                return None
            self._stop_requested = True
            self.engine.stop()
            self._ponder_event.set()
            self._stop_event.set()
            return worker

    def _finish_search(self) -> None:
        """Stop the search under way (it answers its bestmove) and wait for it."""
        worker = self._halt_search()
        if worker is not None:
            worker.join()

    def _on_info(self, info: SearchInfo) -> None:
        self.send(format_info(info))
        with self._lock:
            halt = self._in_ponder and self._ponderhit
            best_line = info.multipv is None or info.multipv == 1
            if self._mate_target is not None and not self._in_ponder and best_line:
                moves = mate_moves(info.score)
                halt = halt or (moves is not None and moves <= self._mate_target)
            if halt:
                self.engine.stop()

    def _quick_answer(self, position_args: list[str], go: GoCommand) -> str | None:
        """A bestmove line from :func:`quick_move` when the compiled search is not
        ready yet and ``go`` runs on a clock; None to wait for the compiled search."""
        if self._warm.is_set() or go.ponder or go.limits.infinite:
            return None
        board = position_board(position_args)
        seconds = quick_move_time(board, go.limits, self.engine.overhead)
        if board is None or seconds is None:  # no clock, or time to wait
            return None
        scorer = own_scorer(self.model)
        what = "this engine's evaluation" if scorer is not None else "material only"
        self.send(
            f"info string the search is still compiling (first start): a quick search with {what}"
        )
        move = quick_move(board, seconds, scorer or material_score)
        return f"bestmove {move.uci() if move else '0000'}"

    def _search(self, pos: Position | None, position_args: list[str], go: GoCommand) -> None:
        outcome: SearchOutcome | None = None
        try:
            quick = self._quick_answer(position_args, go)
            if quick is not None:
                if not self._quitting:
                    self.send(quick)
                return
            self.wait_warm()
            if pos is None:  # given before the kernels were loaded
                pos = parse_position(position_args)
            if go.ponder:
                # Search the predicted position with no clock until ponderhit or stop.
                ponder_limits = replace(
                    go.limits, movetime=None, wtime=None, btime=None, infinite=True
                )
                outcome = self.engine.go(pos, ponder_limits, self._on_info)
                self._ponder_event.wait()
                with self._lock:
                    self._in_ponder = False
                    hit = self._ponderhit and not self._stop_requested
                    if hit:  # a stop from now on ends the search that follows
                        self.engine.prepare()
                if hit:  # the move was played: now search it as a plain go
                    outcome = self.engine.go(pos, go.limits, self._on_info)
            else:
                outcome = self.engine.go(pos, go.limits, self._on_info)
            if go.limits.infinite:
                self._stop_event.wait()  # 'go infinite' answers only after 'stop'
        except Exception as exc:
            traceback.print_exc(file=self._err)
            self.error(f"search failed: {type(exc).__name__}: {exc}")
        if self._quitting:
            return
        self.send(self._bestmove_line(pos, outcome))

    @staticmethod
    def _bestmove_line(pos: Position | None, outcome: SearchOutcome | None) -> str:
        if outcome is None:  # the search failed (its error line went first): any legal move
            try:
                moves = legal_moves(pos) if pos is not None else []
            except Exception:  # the move generator failed too: answer the go all the same
                traceback.print_exc()
                moves = []
            return f"bestmove {move_to_uci(moves[0]) if moves else '0000'}"
        if outcome.best_move is None:
            return "bestmove 0000"
        if outcome.ponder:
            return f"bestmove {outcome.best_move} ponder {outcome.ponder}"
        return f"bestmove {outcome.best_move}"


def main(
    weights: str | None = None,
    preset: str | None = None,
    search_options: EngineOptions | None = None,
) -> int:
    """``treestrap uci``: a session on stdin/stdout, with a weight file or a preset's
    weights (``DEFAULT_PRESET``'s, the strongest measured, by default) and the
    tournament search's switches (``search_options``, the defaults of ``EngineOptions``); 2 if the
    weight file is unusable."""
    model = None
    if preset and not weights:
        model = preset_model(preset)
    if weights:
        try:
            model = load_weights(weights)
        except WeightFileError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(errors="replace")  # a stray byte is a bad command, not a crash
    if isinstance(sys.stdout, io.TextIOWrapper):
        # An error message may quote what the console's code page cannot write (the
        # replacement character under cp1252): escape it rather than go silent.
        sys.stdout.reconfigure(errors="backslashreplace")
    session = UciEngine(
        sys.stdout, model=model, weights_path=weights or "", search_options=search_options
    )
    if preset and not weights:
        session.preset = preset
    try:
        return session.run(iter(sys.stdin.readline, ""))
    except KeyboardInterrupt:
        session.shutdown()
        return 130
