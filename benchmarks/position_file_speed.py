"""Speed of the binary position file (``treestrap.distill.position_file``) and of its
text forms (``treestrap data export`` / ``import``).

It writes N records (default 1,000,000) to a temporary file and times:

* ``write``: appending them in blocks of 65,536 with ``PositionWriter``;
* ``read in order`` and ``read shuffled``: streaming them back with ``iter_batches``
  (batch 16,384; shuffled: a random sample of the file per batch, seed 0);
* ``bitboard_rows``: the 769 network inputs of every batch (the conversion alone);
* ``export text``, ``export epd``: every record as a text line (``FEN | score |
  result``, or EPD with ``ce`` and ``c0``) into a file;
* ``import text``, ``import epd``: those files back into position files, checked equal
  to the records they came from.

The records are the positions of random legal games (a pool of a few thousand,
drawn with replacement), with random scores and results. The file was just written,
so reads come from the page cache: they measure the format, not the disk. Each line
prints records per second and MB per second (of the binary records; of the text for
the text forms).

Run from the repository root with the project's virtual environment active::

    python benchmarks/position_file_speed.py                  # 1,000,000 records
    python benchmarks/position_file_speed.py --records 100000
    python benchmarks/position_file_speed.py --no-text        # the binary file alone
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import chess
import numpy as np

from treestrap.core.notation import parse_fen
from treestrap.distill.position_file import (
    RECORD,
    PositionWriter,
    bitboard_rows,
    iter_batches,
    pack_position,
    read_records,
)
from treestrap.distill.position_text import export_positions, import_text

BLOCK = 65_536


def position_pool(games: int, seed: int) -> np.ndarray:
    """Records of every position of ``games`` random legal games."""
    rng = random.Random(seed)
    records = []
    for _ in range(games):
        board = chess.Board()
        while not board.is_game_over() and board.ply() < 160:
            board.push(rng.choice(list(board.legal_moves)))
            pos = parse_fen(board.fen(en_passant="xfen"))
            records.append(pack_position(pos, 0.0, 0, board.ply()))
    return np.concatenate(records)


def synthetic_records(count: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    pool = position_pool(games=40, seed=seed)
    records = pool[rng.integers(len(pool), size=count)]
    records["score"] = rng.integers(-2000, 2001, size=count)
    records["result"] = rng.integers(-1, 2, size=count)
    return records


def report(name: str, count: int, size: int, seconds: float) -> None:
    print(
        f"{name:<18} {seconds:7.2f} s  {count / seconds:>12,.0f} records/s  "
        f"{size / seconds / 1e6:8.1f} MB/s"
    )


def timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def binary_figures(records: np.ndarray, path: Path, batch: int) -> None:
    count, size = len(records), records.nbytes

    def write() -> None:
        with PositionWriter(path, {"source": "benchmark"}) as writer:
            for start in range(0, count, BLOCK):
                writer.write(records[start : start + BLOCK])

    report("write", count, size, timed(write))
    assert np.array_equal(read_records(path), records)
    for name, seed in (("read in order", None), ("read shuffled", 0)):
        seen = 0

        def read(seed: int | None = seed) -> None:
            nonlocal seen
            for b in iter_batches([path], batch, seed=seed):
                seen += len(b)

        report(name, count, size, timed(read))
        assert seen == count
    convert = 0.0
    for b in iter_batches([path], batch):
        convert += timed(lambda b=b: bitboard_rows(b))
    report("bitboard_rows", count, size, convert)


def text_figures(records: np.ndarray, path: Path, folder: Path) -> None:
    count = len(records)
    for form in ("text", "epd"):
        text = folder / f"positions.{form}"
        seconds = timed(lambda text=text, form=form: export_positions([path], text, form))
        report(f"export {form}", count, text.stat().st_size, seconds)
        back = folder / f"back-{form}.tspos"
        seconds = timed(lambda text=text, back=back: import_text([text], back))
        report(f"import {form}", count, text.stat().st_size, seconds)
        assert np.array_equal(read_records(back), records), f"{form}: not the same records"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000, help="records (1,000,000)")
    parser.add_argument("--batch", type=int, default=16_384, help="read batch (16384)")
    parser.add_argument("--no-text", action="store_true", help="skip export and import")
    args = parser.parse_args()
    records = synthetic_records(args.records, seed=0)
    print(f"{args.records:,} records of {RECORD.itemsize} bytes ({records.nbytes / 1e6:.0f} MB)")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "positions.tspos"
        binary_figures(records, path, args.batch)
        if not args.no_text:
            text_figures(records, path, Path(folder))


if __name__ == "__main__":
    main()
