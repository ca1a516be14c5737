"""Nodes per second of the treestrap engine (hand-set meep weights) and of Sunfish,
measured in the same run on the same positions through UCI, and their ratio.

    python benchmarks/engine_speed.py [--movetime 3]      # needs: pip install --no-deps sunfish

Each engine thinks ``movetime`` seconds per position; the nps of its last ``info``
line is taken (engines count nodes a little differently: Sunfish counts its own
searched nodes, treestrap main plus quiescence nodes). Sunfish is a Python program, so
its "build" is the interpreter that runs it: the benchmark prints that interpreter and
its version beside the results. Against Stockfish, see ``engine_vs_stockfish.py``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

import chess
import chess.engine

from treestrap.play.players import find_engine

POSITIONS = {
    "start": chess.STARTING_FEN,
    "kiwipete": "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "italian": "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 1 5",
    "endgame": "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
}


def measure(command: list[str], movetime: float) -> dict[str, int]:
    rates = {}
    with chess.engine.SimpleEngine.popen_uci(command, timeout=300) as engine:
        engine.analyse(chess.Board(), chess.engine.Limit(depth=2))  # warm up / compile
        for name, fen in POSITIONS.items():
            info = engine.analyse(chess.Board(fen), chess.engine.Limit(time=movetime))
            nps = info.get("nps") or int(
                info.get("nodes", 0) / max(info.get("time", movetime), 1e-9)
            )
            rates[name] = int(nps)
    return rates


def interpreter_line(script: str) -> str:
    """The interpreter a script's ``#!`` line names, and its version."""
    try:
        with open(script, "rb") as f:
            first = f.readline().decode("utf-8", "replace").strip()
    except OSError as exc:
        return f"unknown ({exc.strerror})"
    if not first.startswith("#!"):
        return "not a script"
    words = first[2:].split()
    if not words:
        return "not a script"
    try:
        done = subprocess.run(
            [*words, "--version"], capture_output=True, text=True, timeout=20, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return " ".join(words)
    return f"{' '.join(words)} ({(done.stdout or done.stderr).strip()})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--movetime", type=float, default=3.0)
    args = parser.parse_args()
    sunfish = find_engine("sunfish-uci")
    if not sunfish:
        print("sunfish-uci not found: pip install --no-deps sunfish", file=sys.stderr)
        return 2
    print(f"sunfish: {sunfish}, run by {interpreter_line(sunfish)}")
    ours = measure([sys.executable, "-m", "treestrap.cli", "uci"], args.movetime)
    theirs = measure([sunfish], args.movetime)
    print(f"{'position':10s} {'treestrap':>12s} {'sunfish':>10s} {'ratio':>7s}")
    for name in POSITIONS:
        print(f"{name:10s} {ours[name]:12,d} {theirs[name]:10,d} {ours[name] / theirs[name]:7.1f}")
    a, b = statistics.mean(ours.values()), statistics.mean(theirs.values())
    print(f"{'mean':10s} {a:12,.0f} {b:10,.0f} {a / b:7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
