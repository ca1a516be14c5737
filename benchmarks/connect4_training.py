"""A first look at what the learning rules learn on Connect Four: each rule trains by
self-play (``treestrap train --game connect4``, depth 4, from the same random start),
then plays the 1000 positions of ``connect4/solved-1000.txt`` with a depth-2 and a
depth-4 search: how often its move is a best move, and how often it keeps the
game-theoretic result (win, draw, loss). The random start and the hand-written
evaluation are the references. One seed, a short run: a first look, not the
measurement against perfect play.

Examples (from the repository root)::

    python benchmarks/connect4_training.py                          # 200 games a rule
    python benchmarks/connect4_training.py --games 50 --rules treestrap-ab td-leaf

Step sizes are Connect Four's defaults (``step_factors`` in games/connect4_facts.py).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from treestrap.connect4.board import parse_moves
from treestrap.connect4.search import Connect4Search
from treestrap.games.connect4_model import (
    Connect4Model,
    hand_written_connect4_model,
    load_connect4_model,
    random_connect4_model,
)
from treestrap.learn.rules import ALGORITHM_NAMES
from treestrap.training.config import game_config
from treestrap.training.run import train

REFERENCE = Path(__file__).resolve().parents[1] / "reference" / "connect4" / "solved-1000.txt"
RULES = ("treestrap-ab", "treestrap-mm", "rootstrap-ab", "td-leaf")


def shares(model: Connect4Model, rows: list[list[str]], depth: int) -> tuple[float, float]:
    """Percent of positions where the depth-``depth`` move is a best move, and where it
    keeps the result."""
    ev, search = model.evaluator(), Connect4Search(tt_bits=16)
    best = keep = 0
    for moves, *text in rows:
        scores = [int(s) for s in text]
        move = search.search(parse_moves(moves), ev, depth).best_move
        best += scores[move] == max(scores)
        keep += np.sign(scores[move]) == np.sign(max(scores))
    return 100 * best / len(rows), 100 * keep / len(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="training games per rule")
    parser.add_argument("--rules", nargs="+", default=list(RULES), choices=ALGORITHM_NAMES)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rows = [line.split() for line in REFERENCE.read_text().splitlines() if line.strip()]

    def report(name: str, model: Connect4Model, note: str = "") -> None:
        d2, d4 = shares(model, rows, 2), shares(model, rows, 4)
        print(f"| {name} | {d2[0]:.1f} | {d2[1]:.1f} | {d4[0]:.1f} | {d4[1]:.1f} | {note} |")

    print(
        "| evaluation | best move, depth 2 | result kept, depth 2 | best move, depth 4 |"
        " result kept, depth 4 | training |"
    )
    print("|---|---:|---:|---:|---:|---|")
    report("random start", random_connect4_model(seed=args.seed))
    report("hand-written", hand_written_connect4_model())
    with tempfile.TemporaryDirectory() as tmp:
        for rule in args.rules:
            config = game_config(
                "connect4",
                algorithm=rule,
                depth=4,
                games=args.games,
                seed=args.seed,
                minimax_nodes=2000,
            )
            start = time.perf_counter()
            train(config, Path(tmp) / rule)
            seconds = time.perf_counter() - start
            model = load_connect4_model(Path(tmp) / rule / "weights.npz")
            report(rule, model, f"{args.games} games, {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
