"""How fast a perspective network is fitted to a position file: positions per second.

    python benchmarks/perspective_fit_speed.py                     # width 256, 200,000 positions
    python benchmarks/perspective_fit_speed.py --positions 50000   # a quick check
    python benchmarks/perspective_fit_speed.py --threads 1         # one torch thread

Positions of random legal games (a pool, repeated to the count asked: the speed depends
on how many pieces positions have, not on their variety), scored by material, are
written to a temporary position file and fitted with ``fit_perspective`` at the given
width for the given epochs, with a small held-out file. Printed: training positions per
second of wall time and per CPU second (of the process, all its threads), the
held-out evaluation's time excluded, and torch's thread count (``--threads``: on cores
that other work keeps busy, one thread can be faster than several).
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

import chess
import numpy as np

from treestrap.core.notation import position_from_board
from treestrap.distill.perspective_fit import (
    PerspectiveFitSettings,
    fit_perspective,
    held_out_errors,
)
from treestrap.distill.position_file import PositionWriter, pack_position

VALUES = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 300, chess.ROOK: 500, chess.QUEEN: 900}


def position_pool(count: int, seed: int) -> np.ndarray:
    """Records of ``count`` positions of random games (at most 80 plies each)."""
    rng = random.Random(seed)
    records: list[np.ndarray] = []
    while len(records) < count:
        board = chess.Board()
        while board.ply() < 80 and not board.is_game_over() and len(records) < count:
            board.push(rng.choice(list(board.legal_moves)))
            lead = sum(
                v * (len(board.pieces(p, board.turn)) - len(board.pieces(p, not board.turn)))
                for p, v in VALUES.items()
            )
            pos = position_from_board(board.copy(stack=False))
            records.append(pack_position(pos, lead, int(np.sign(lead)), board.ply()))
    return np.concatenate(records)


def write_file(path: Path, pool: np.ndarray, count: int) -> None:
    with PositionWriter(path, {"source": "benchmark"}) as writer:
        for start in range(0, count, len(pool)):
            writer.write(pool[: min(len(pool), count - start)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=200_000)
    ap.add_argument("--width", type=int, default=256)
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--activation", default="crelu")
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: its default)")
    args = ap.parse_args()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)

    pool = position_pool(8192, seed=0)
    settings = PerspectiveFitSettings(
        width=args.width, activation=args.activation, epochs=args.epochs, batch=args.batch
    )
    with tempfile.TemporaryDirectory() as tmp:
        train, held_out = Path(tmp) / "train.pos", Path(tmp) / "held-out.pos"
        write_file(train, pool, args.positions)
        write_file(held_out, pool[:4096], 4096)
        wall, cpu = time.perf_counter(), time.process_time()
        model, reports = fit_perspective([train], [held_out], settings)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        # the fit evaluates the held-out file after each epoch: not fitting, taken out
        held_wall, held_cpu = time.perf_counter(), time.process_time()
        held_out_errors(model, [held_out], settings)
        wall -= args.epochs * (time.perf_counter() - held_wall)
        cpu -= args.epochs * (time.process_time() - held_cpu)
    seen = sum(r.positions for r in reports)
    print(
        f"perspective {args.width} {args.activation}, batch {args.batch}, "
        f"{torch.get_num_threads()} torch threads: {seen} positions in {wall:.1f} s"
    )
    print(f"  {seen / wall:,.0f} positions per second, {seen / cpu:,.0f} per CPU second")
    print(f"  held-out loss {reports[-1].held_out_loss:.4f}, {reports[-1].held_out_cp:.1f} cp")


if __name__ == "__main__":
    main()
