"""Write an EPD opening book of book lines, each followed by a few random legal plies.

    python tools/random_openings.py reference/openings/lichess_openings.tsv \
        --plies 2 --count 40000 --seed 27 --out runs/sp-openings.epd

Games between fixed weights are deterministic, so a book of a few thousand lines gives
at most that many distinct games. The random plies after each line make almost every
start its own, which is what self-play games played only to collect positions for
``treestrap distill label`` need. The lines are drawn uniformly with replacement;
repeated and finished positions are skipped, reproducibly by ``--seed``.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from treestrap.play.openings import load_openings


def random_openings(book_path: str, plies: int, count: int, seed: int) -> list[str]:
    """``count`` distinct EPD positions: a book line, then ``plies`` random moves."""
    book = load_openings(book_path)
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < count:
        board = book[rng.randrange(len(book))].board()
        for _ in range(plies):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if board.is_game_over():
            continue
        fen = board.fen()
        if fen in seen:
            continue
        seen.add(fen)
        out.append(board.epd())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("book", help="an opening file treestrap reads (.tsv, .pgn, .epd, .bin)")
    parser.add_argument("--plies", type=int, default=2, help="random plies after each line")
    parser.add_argument("--count", type=int, default=40_000, help="positions to write")
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--out", type=Path, required=True, help="EPD file to write")
    args = parser.parse_args()
    lines = random_openings(args.book, args.plies, args.count, args.seed)
    args.out.write_text("\n".join(lines) + "\n")
    print(f"{len(lines)} openings in {args.out}")


if __name__ == "__main__":
    main()
