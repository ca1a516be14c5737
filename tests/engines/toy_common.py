"""What the toy test engines share: options for misbehaving, and move choice.

The engines are real programs on stdin/stdout (python-chess only keeps them legal):
they let the tournament tests crash, hang and kill processes on purpose.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import time
from pathlib import Path

import chess


def parse_args(description: str) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--style", choices=["random", "first", "mobility"], default="random")
    p.add_argument("--score", type=int, help="report this score (cp, own view) every move")
    p.add_argument("--crash-after", type=int, help="exit abruptly at move N+1")
    p.add_argument("--hang-after", type=int, help="stop answering at move N+1")
    p.add_argument("--kill-parent-once", metavar="FILE", help="first move: kill the parent")
    p.add_argument("--delay", type=float, default=0.0, help="seconds per move")
    p.add_argument("--tag", help="ignored: lets a test find this process")
    p.add_argument("--our-name", action="store_true", help="name itself as treestrap does")
    p.add_argument(
        "--error-after",
        type=int,
        help="UCI, at go N+1: as treestrap uci after a search that raised, a traceback on "
        "stderr and an 'info string error' line, then a legal move anyway",
    )
    p.add_argument("--log", metavar="FILE", help="append every command received to FILE")
    return p.parse_args()


class Misbehaviour:
    """Counts this process's moves and misbehaves on cue."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.moves = 0

    def before_move(self) -> None:
        self.moves += 1
        a = self.args
        if a.kill_parent_once and not Path(a.kill_parent_once).exists():
            Path(a.kill_parent_once).write_text("killed\n")
            os.kill(os.getppid(), signal.SIGKILL)  # the worker process that started us
            os._exit(1)
        if a.crash_after is not None and self.moves > a.crash_after:
            os._exit(3)
        if a.hang_after is not None and self.moves > a.hang_after:
            while True:  # a hang: no answer, no reading, until killed
                time.sleep(3600)
        if a.delay:
            time.sleep(a.delay)


def choose(board: chess.Board, style: str, rng: random.Random) -> chess.Move:
    moves = sorted(board.legal_moves, key=lambda m: m.uci())
    if style == "first":
        return moves[0]
    if style == "mobility":  # mate if possible, else leave the opponent fewest replies
        best, best_key = moves[0], None
        for move in moves:
            board.push(move)
            replies = board.legal_moves.count()
            mate, stalemate = board.is_checkmate(), replies == 0 and not board.is_check()
            board.pop()
            key = (not mate, stalemate, replies, rng.random())
            if best_key is None or key < best_key:
                best, best_key = move, key
        return best
    return rng.choice(moves)


def send(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()
