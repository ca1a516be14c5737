"""Two-engine matches over UCI, with clocks kept by the runner.

Each game starts both engines afresh (a crash costs one game, not the match), plays
from an opening line, charges each side the wall-clock time its engine took per move
(Fischer: plus the increment after the move), and records losses on time as such.
Games run in parallel worker processes. Every game is kept as PGN.
"""

from __future__ import annotations

import concurrent.futures as futures
import contextlib
import datetime
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.engine
import chess.pgn

from treestrap.experiments.elo import MatchScore
from treestrap.experiments.openings import Opening

#: Longest game before it is adjudicated a draw (plies): beyond any real game here.
MAX_PLIES = 600
#: Debian installs its engines under /usr/games, which is often not on PATH.
EXTRA_ENGINE_DIRS = ("/usr/games",)


def find_engine(name: str) -> str | None:
    """Path of an engine command, looking in /usr/games too."""
    found = shutil.which(name)
    if found:
        return found
    for folder in EXTRA_ENGINE_DIRS:
        candidate = os.path.join(folder, name)
        if os.access(candidate, os.X_OK):
            return candidate
    return None


@dataclass(frozen=True)
class EngineSpec:
    """How to start one player: a UCI command line and options to set."""

    name: str
    command: tuple[str, ...]
    options: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True)
class TimeControl:
    """Fischer clock (seconds), or fixed depth / nodes per move."""

    base: float | None = None
    increment: float = 0.0
    depth: int | None = None
    nodes: int | None = None

    def describe(self) -> str:
        if self.base is not None:
            return f"{self.base:g}+{self.increment:g}"
        if self.depth is not None:
            return f"depth {self.depth}"
        return f"nodes {self.nodes}"

    def pgn_tag(self) -> str:
        if self.base is not None:
            return f"{self.base:g}+{self.increment:g}"
        return "-"


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
class MatchResult:
    """Results from the first engine's point of view."""

    first: str
    second: str
    games: list[GameRecord] = field(default_factory=list)

    def score(self) -> MatchScore:
        w = d = lo = 0
        for g in self.games:
            first_white = g.white == self.first
            if g.result == "1/2-1/2":
                d += 1
            elif (g.result == "1-0") == first_white:
                w += 1
            else:
                lo += 1
        return MatchScore(w, d, lo)

    def time_losses(self, name: str) -> int:
        return sum(
            1
            for g in self.games
            if g.time_loss
            and ((g.white == name and g.result == "0-1") or (g.black == name and g.result == "1-0"))
        )


def _open(spec: EngineSpec) -> chess.engine.SimpleEngine:
    engine = chess.engine.SimpleEngine.popen_uci(list(spec.command), timeout=600)
    if spec.options:
        engine.configure(dict(spec.options))
    return engine


def play_game(
    white: EngineSpec, black: EngineSpec, opening: Opening, tc: TimeControl
) -> GameRecord:
    """One game; the runner's wall clock decides losses on time."""
    board = opening.board()
    engines = {chess.WHITE: _open(white), chess.BLACK: _open(black)}
    clocks = {chess.WHITE: tc.base or 0.0, chess.BLACK: tc.base or 0.0}
    termination, result, time_loss = "", "*", False
    try:
        while True:
            outcome = board.outcome(claim_draw=True)
            if outcome is not None:
                result = outcome.result()
                termination = outcome.termination.name.lower().replace("_", " ")
                break
            if board.ply() >= MAX_PLIES:
                result, termination = "1/2-1/2", "adjudicated: maximum length"
                break
            side = board.turn
            if tc.base is not None:
                limit = chess.engine.Limit(
                    white_clock=max(clocks[chess.WHITE], 0.001),
                    black_clock=max(clocks[chess.BLACK], 0.001),
                    white_inc=tc.increment,
                    black_inc=tc.increment,
                )
            else:
                limit = chess.engine.Limit(depth=tc.depth, nodes=tc.nodes)
            start = time.perf_counter()
            try:
                played = engines[side].play(board, limit)
            except (chess.engine.EngineError, chess.engine.EngineTerminatedError) as exc:
                result = "0-1" if side == chess.WHITE else "1-0"
                termination = f"engine failure: {type(exc).__name__}"
                break
            spent = time.perf_counter() - start
            if tc.base is not None:
                clocks[side] -= spent
                if clocks[side] < 0:
                    result = "0-1" if side == chess.WHITE else "1-0"
                    termination, time_loss = "time forfeit", True
                    break
                clocks[side] += tc.increment
            if played.move is None or played.move not in board.legal_moves:
                result = "0-1" if side == chess.WHITE else "1-0"
                termination = f"illegal move {played.move}"
                break
            board.push(played.move)
    finally:
        for engine in engines.values():
            with contextlib.suppress(Exception):
                engine.quit()
    game = chess.pgn.Game.from_board(board)
    game.headers.update(
        {
            "Event": "treestrap match",
            "Date": datetime.date.today().strftime("%Y.%m.%d"),
            "White": white.name,
            "Black": black.name,
            "Result": result,
            "TimeControl": tc.pgn_tag(),
            "Opening": opening.name,
            "Termination": termination,
        }
    )
    if opening.fen != chess.STARTING_FEN:
        game.headers["FEN"] = opening.fen
    return GameRecord(
        white.name,
        black.name,
        result,
        termination,
        opening.name,
        str(game),
        board.ply(),
        time_loss,
    )


def play_match(
    first: EngineSpec,
    second: EngineSpec,
    openings: list[Opening],
    tc: TimeControl,
    workers: int = 2,
    pgn_path: str | Path | None = None,
    progress: bool = True,
) -> MatchResult:
    """Each opening twice with colours reversed; games in ``workers`` processes."""
    jobs = []
    for opening in openings:
        jobs.append((first, second, opening, tc))
        jobs.append((second, first, opening, tc))
    result = MatchResult(first.name, second.name)
    pgn_file = open(pgn_path, "a", encoding="utf-8") if pgn_path else None  # noqa: SIM115
    try:
        with futures.ProcessPoolExecutor(max_workers=workers) as pool:
            pending = [pool.submit(play_game, *job) for job in jobs]
            for done in futures.as_completed(pending):
                game = done.result()
                result.games.append(game)
                if pgn_file:
                    pgn_file.write(game.pgn + "\n\n")
                    pgn_file.flush()
                if progress:
                    print(
                        f"[{len(result.games)}/{len(jobs)}] {game.white} - {game.black} "
                        f"{game.result} ({game.termination}); {result.score().describe()}",
                        flush=True,
                    )
    finally:
        if pgn_file:
            pgn_file.close()
    return result
