"""A toy xboard (CECP) engine for the tournament tests (see toy_common for its options)."""

from __future__ import annotations

import random
import sys

import chess
from toy_common import Misbehaviour, choose, parse_args, send

FEATURES = 'feature ping=1 setboard=1 usermove=1 sigint=0 nps=1 myname="toy-xboard" done=1'
IGNORED = {
    "xboard",
    "accepted",
    "rejected",
    "level",
    "st",
    "sd",
    "nps",
    "time",
    "otim",
    "easy",
    "hard",
    "random",
    "computer",
    "name",
    "rating",
    "result",
    "new_game",
}


def main() -> int:
    args = parse_args(__doc__ or "")
    rng = random.Random(args.seed)
    cue = Misbehaviour(args)
    board, post = chess.Board(), False
    for line in sys.stdin:
        tokens = line.split()
        if not tokens or tokens[0] in IGNORED:
            continue
        command = tokens[0]
        if command == "protover":
            send(FEATURES)
        elif command == "new":
            board = chess.Board()
        elif command == "setboard":
            board = chess.Board(" ".join(tokens[1:]))
        elif command == "usermove":
            board.push_xboard(tokens[1])
        elif command in ("post", "nopost"):
            post = command == "post"
        elif command == "ping":
            send(f"pong {tokens[1]}")
        elif command == "go":
            cue.before_move()
            move = choose(board, args.style, rng)
            if post and args.score is not None:
                send(f"1 {args.score} 0 1 {board.xboard(move)}")  # depth score time nodes pv
            send(f"move {board.xboard(move)}")
            board.push(move)
        elif command == "quit":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
