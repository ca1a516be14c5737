"""Soak the UCI engine under a fast Fischer clock: many games, the runner keeps the clocks.

Plays ``treestrap uci`` (a real subprocess, its default preset unless ``--engine`` names
another player) against itself and against Stockfish (levels with ``--opponent``, which
repeats) with ``treestrap tournament`` and then reads every game back from the
tournament's database. Prints, per pairing and in total: games, losses on time (the
goal is 0), crashes and other forfeits, illegal moves, and the worst move-time overrun:
how far a move's thinking time went past the hard limit our time manager
(``treestrap.search.timeman.allocate``) gave it, with the clock it had at that move.
The move times are the PGN comments' (rounded to 10 ms), the clock is rebuilt from them.

    python benchmarks/soak.py --games 100 --tc 2+0.02
    python benchmarks/soak.py --games 20 --opponent stockfish:1700 --out runs/soak
    python benchmarks/soak.py --games 250 --workers 2 --opponent stockfish:1700 \
        --opponent stockfish:2000 --opponent stockfish:2200 --out runs/soak   # 1000 games

Resumable: run the same command with the same ``--out`` to finish an interrupted soak.
It is a benchmark, not a test: it times moves, so run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import io
import re
import sqlite3
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import chess.pgn

from treestrap.play.timecontrol import parse_time_control
from treestrap.search.timeman import DEFAULT_OVERHEAD, SearchLimits, allocate

#: Our player: the UCI engine as a GUI starts it, with its default preset.
ENGINE = "treestrap-uci"
_SPENT = re.compile(r"(\d+\.\d+)s\s*$")


@dataclass
class Tally:
    games: int = 0
    time_losses: int = 0
    crashes: int = 0
    illegal: int = 0
    other_forfeits: int = 0
    moves: int = 0
    worst_overrun: float = float("-inf")  # seconds past the hard limit (negative: under)
    worst_move: str = ""
    least_clock: float = float("inf")  # the lowest clock left after one of our moves
    notes: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.games += other.games
        self.time_losses += other.time_losses
        self.crashes += other.crashes
        self.illegal += other.illegal
        self.other_forfeits += other.other_forfeits
        self.moves += other.moves
        if other.worst_overrun > self.worst_overrun:
            self.worst_overrun, self.worst_move = other.worst_overrun, other.worst_move
        self.least_clock = min(self.least_clock, other.least_clock)

    def line(self, label: str) -> str:
        return (
            f"{label}: games {self.games}, time losses {self.time_losses}, crashes "
            f"{self.crashes}, illegal moves {self.illegal}, other forfeits "
            f"{self.other_forfeits}, our moves {self.moves}, worst overrun "
            f"{1000 * self.worst_overrun:+.0f} ms ({self.worst_move}), least clock left "
            f"{1000 * self.least_clock:.0f} ms"
        )


def count_ending(tally: Tally, termination: str, loser_is_ours: bool) -> None:
    if termination == "time forfeit" and loser_is_ours:
        tally.time_losses += 1
    elif termination.startswith("forfeit") and loser_is_ours:
        if "illegal" in termination:
            tally.illegal += 1
        elif any(w in termination for w in ("crash", "error", "hung", "failed")):
            tally.crashes += 1
        else:
            tally.other_forfeits += 1


def read_game(pgn: str, ours: set[str], base: float, inc: float, game_id: int) -> Tally:
    """One game's moves by our engine: overruns against the time manager's hard limit."""
    tally = Tally(games=1)
    game = chess.pgn.read_game(io.StringIO(pgn))
    if game is None:
        return tally
    names = {chess.WHITE: game.headers.get("White"), chess.BLACK: game.headers.get("Black")}
    clocks = {chess.WHITE: base, chess.BLACK: base}
    board = game.board()
    for node in game.mainline():
        side = board.turn
        found = _SPENT.search(node.comment or "")
        fullmove = board.fullmove_number
        board.push(node.move)
        if not found:
            continue  # a move by the finishing engine or a book move
        spent = float(found.group(1))
        if names[side] in ours:
            limits = SearchLimits(
                wtime=clocks[chess.WHITE],
                btime=clocks[chess.BLACK],
                winc=inc,
                binc=inc,
                fullmove=fullmove,
            )
            hard = allocate(limits, side == chess.WHITE, DEFAULT_OVERHEAD).hard or 0.0
            tally.moves += 1
            if spent - hard > tally.worst_overrun:
                tally.worst_overrun = spent - hard
                tally.worst_move = (
                    f"game {game_id}, ply {board.ply()}: {spent:.2f} s against a "
                    f"{hard:.3f} s limit with {clocks[side]:.2f} s left"
                )
            tally.least_clock = min(tally.least_clock, clocks[side] - spent)
        clocks[side] += inc - spent
    result = game.headers.get("Result", "*")
    termination = game.headers.get("Termination", "")
    if result in ("1-0", "0-1"):
        loser = names[chess.BLACK if result == "1-0" else chess.WHITE]
        count_ending(tally, termination, loser in ours)
    return tally


def soak(out: Path, engine: str, opponent: str, games: int, tc: str, workers: int) -> Tally:
    """Play (or finish) one pairing in ``out`` and read it back."""
    a, b = f"ours-a={engine}", opponent if "=" in opponent else f"opponent={opponent}"
    command = [sys.executable, "-m", "treestrap.cli", "tournament"]
    if (out / "results.sqlite").exists():
        command += ["--resume", str(out)]
    else:
        command += [
            "--out", str(out), "--tc", tc, "--games-per-pair", str(games),
            "--workers", str(workers), "--quiet", a, b,
        ]  # fmt: skip
    subprocess.run(command, check=True)
    clock = parse_time_control(tc)
    ours = {"ours-a", "ours-b"}
    total = Tally()
    with sqlite3.connect(out / "results.sqlite") as db:
        rows = db.execute("SELECT id, pgn FROM games ORDER BY id").fetchall()
    for game_id, pgn in rows:
        total.add(read_game(pgn or "", ours, clock.base or 0.0, clock.increment, game_id))
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games per pairing (even)")
    parser.add_argument("--tc", default="2+0.02", help="Fischer clock BASE+INC seconds")
    parser.add_argument(
        "--opponent",
        action="append",
        help="a pairing against this player (repeats; default: stockfish)",
    )
    parser.add_argument("--engine", default=ENGINE, help=f"our player (default {ENGINE})")
    parser.add_argument("--workers", type=int, default=1, help="games at once per pairing")
    parser.add_argument("--out", type=Path, help="directory to keep (default: a temporary one)")
    args = parser.parse_args()
    if not parse_time_control(args.tc).is_clock:
        parser.error("--tc must be a clock (BASE+INC): the soak is about time")
    with tempfile.TemporaryDirectory() as scratch:
        root = args.out or Path(scratch)
        pairings = {"self-play": f"ours-b={args.engine}"}
        pairings.update({f"vs {o}": o for o in args.opponent or ["stockfish"]})
        total = Tally()
        for i, (label, opponent) in enumerate(pairings.items()):
            tally = soak(
                root / f"pairing-{i}", args.engine, opponent, args.games, args.tc, args.workers
            )
            print(tally.line(label), flush=True)
            total.add(tally)
        print(total.line(f"total at {args.tc}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
