"""A toy UCI engine for the tournament tests (see toy_common for its options)."""

from __future__ import annotations

import random
import sys

import chess
from toy_common import Misbehaviour, choose, parse_args, send


def position(tokens: list[str]) -> chess.Board:
    if tokens[1] == "startpos":
        board, rest = chess.Board(), tokens[2:]
    else:
        end = tokens.index("moves") if "moves" in tokens else len(tokens)
        board, rest = chess.Board(" ".join(tokens[2:end])), tokens[end:]
    for uci in rest[1:]:
        board.push_uci(uci)
    return board


def fail_search() -> None:
    """What ``treestrap uci`` says when its search raises (engine/uci.py, _search)."""
    sys.stderr.write(
        "Traceback (most recent call last):\n"
        '  File "toy_uci.py", in search\n'
        "RuntimeError: injected search failure\n"
    )
    sys.stderr.flush()
    send("info string error: search failed: RuntimeError: injected search failure")


def main() -> int:
    args = parse_args(__doc__ or "")
    rng = random.Random(args.seed)
    cue = Misbehaviour(args)
    board = chess.Board()
    for line in sys.stdin:
        if args.log:
            with open(args.log, "a") as log:
                log.write(line)
        tokens = line.split()
        if not tokens:
            continue
        if tokens[0] == "uci":
            send("id name treestrap toy" if args.our_name else "id name toy-uci")
            send("id author the treestrap tests")
            send("uciok")
        elif tokens[0] == "isready":
            send("readyok")
        elif tokens[0] == "position":
            board = position(tokens)
        elif tokens[0] == "go":
            cue.before_move()
            move = choose(board, args.style, rng)
            if args.error_after is not None and cue.moves > args.error_after:
                fail_search()
            if args.score is not None:
                send(f"info depth 1 score cp {args.score} nodes 1 pv {move.uci()}")
            send(f"bestmove {move.uci()}")
        elif tokens[0] == "quit":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
