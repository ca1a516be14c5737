"""Layout of the one lookup array ``T`` that every core kernel reads.

All precomputed tables (leaper attacks, magic-bitboard data, between/line masks,
Zobrist keys) live in a single ``uint64`` array so that kernels take one argument for
them instead of a dozen. Numba freezes globals at compile time, so tables are never
globals inside kernels: they are passed in, as the position's ``tables`` field.

Each constant below is an offset into ``T``; the builders in :mod:`attacks` and
:mod:`zobrist` fill their regions, and :func:`treestrap.core.position.core_tables`
assembles the array once per process.
"""

from __future__ import annotations

KNIGHT = 0  # 64 entries: knight attacks from each square
KING = 64  # 64: king attacks
PAWN = 128  # 2 x 64: pawn captures, indexed colour * 64 + square
ROOK_MASK = 256  # 64: relevant occupancy for rook magics (edges excluded)
ROOK_MAGIC = 320  # 64: magic multipliers
ROOK_SHIFT = 384  # 64: 64 - number of relevant bits
ROOK_BASE = 448  # 64: offset in T of each square's attack sub-table
BISHOP_MASK = 512
BISHOP_MAGIC = 576
BISHOP_SHIFT = 640
BISHOP_BASE = 704
BETWEEN = 768  # 64 x 64: squares strictly between two aligned squares, else empty
LINE = BETWEEN + 4096  # 64 x 64: the whole line through two aligned squares, else empty
ZOBRIST = LINE + 4096  # 793 keys, layout in zobrist.py
ZOBRIST_SIZE = 12 * 64 + 16 + 8 + 1
SLIDER = ZOBRIST + ZOBRIST_SIZE  # rook then bishop attack sub-tables
ROOK_TABLE_SIZE = 102_400  # sum over squares of 2**bits for rooks ("fancy" magics)
BISHOP_TABLE_SIZE = 5_248
TABLES_SIZE = SLIDER + ROOK_TABLE_SIZE + BISHOP_TABLE_SIZE
