"""Bitboards: 64-bit sets of squares, and the bit tricks that act on them.

Squares are numbered ``a1 = 0, b1 = 1, ..., h8 = 63`` (rank * 8 + file), the same as
python-chess and Polyglot. Every bitboard is an ``np.uint64``, constants included:
numba types ``uint64 op int64`` as int64, whose right shift copies the sign bit, so a
plain ``1`` must never meet a bitboard.

``popcount`` and ``lsb`` compile to single instructions through LLVM intrinsics. With
``NUMBA_DISABLE_JIT=1`` they fall back to plain Python so tracebacks stay readable.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from treestrap.core.jit import JIT_DISABLED, njit

Bitboard = np.uint64
Square = int

SQUARE_NB = 64
FILE_NB = 8
RANK_NB = 8
NO_SQUARE = -1

EMPTY = np.uint64(0)
ONE = np.uint64(1)
FULL = np.uint64(0xFFFF_FFFF_FFFF_FFFF)

FILE_A = np.uint64(0x0101_0101_0101_0101)
FILE_H = np.uint64(0x8080_8080_8080_8080)
RANK_1 = np.uint64(0x0000_0000_0000_00FF)
RANK_2 = np.uint64(0x0000_0000_0000_FF00)
RANK_3 = np.uint64(0x0000_0000_00FF_0000)
RANK_4 = np.uint64(0x0000_0000_FF00_0000)
RANK_5 = np.uint64(0x0000_00FF_0000_0000)
RANK_6 = np.uint64(0x0000_FF00_0000_0000)
RANK_7 = np.uint64(0x00FF_0000_0000_0000)
RANK_8 = np.uint64(0xFF00_0000_0000_0000)
NOT_FILE_A = FULL ^ FILE_A
NOT_FILE_H = FULL ^ FILE_H
#: Dark squares (a1 is dark); used by the insufficient-material rule for bishops.
DARK_SQUARES = np.uint64(0xAA55_AA55_AA55_AA55)

SQUARE_NAMES = [f + r for r in "12345678" for f in "abcdefgh"]


def square_name(sq: int) -> str:
    """``0 -> 'a1'``, ``63 -> 'h8'``."""
    return SQUARE_NAMES[sq]


def parse_square(name: str) -> int:
    """``'e4' -> 28``; raises ``ValueError`` for anything that is not a square."""
    if len(name) != 2 or name[0] not in "abcdefgh" or name[1] not in "12345678":
        raise ValueError(f"not a square: {name!r}")
    return (ord(name[1]) - ord("1")) * 8 + ord(name[0]) - ord("a")


if JIT_DISABLED:

    def popcount(bb):  # type: ignore[no-untyped-def]
        return int(bb).bit_count()

    def lsb(bb):  # type: ignore[no-untyped-def]
        bb = int(bb)
        return (bb & -bb).bit_length() - 1 if bb else 64

else:

    @intrinsic
    def popcount(typingctx, bb):  # type: ignore[no-untyped-def]
        """Number of set bits (``llvm.ctpop``: one POPCNT instruction)."""
        if not isinstance(bb, types.Integer):
            return None

        def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
            arg = builder.zext(args[0], ir.IntType(64)) if bb.bitwidth < 64 else args[0]
            fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64)])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.ctpop.i64")
            return builder.call(fn, [arg])

        return types.int64(bb), codegen

    @intrinsic
    def lsb(typingctx, bb):  # type: ignore[no-untyped-def]
        """Index of the lowest set bit (``llvm.cttz``: one TZCNT); 64 for an empty set."""
        if not isinstance(bb, types.Integer):
            return None

        def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
            arg = builder.zext(args[0], ir.IntType(64)) if bb.bitwidth < 64 else args[0]
            fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64), ir.IntType(1)])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.cttz.i64")
            return builder.call(fn, [arg, ir.Constant(ir.IntType(1), 0)])

        return types.int64(bb), codegen


@njit(inline="always")
def square_bb(sq: int) -> np.uint64:
    """The bitboard with only ``sq`` set."""
    return ONE << np.uint64(sq)


@njit(inline="always")
def pop_lsb(bb: np.uint64) -> np.uint64:
    """``bb`` without its lowest set bit (the loop step of ``while bb: ...``)."""
    return bb & (bb - ONE)


@njit(inline="always")
def more_than_one(bb: np.uint64) -> bool:
    return (bb & (bb - ONE)) != EMPTY


@njit(inline="always")
def shift_north(bb: np.uint64) -> np.uint64:
    return bb << np.uint64(8)


@njit(inline="always")
def shift_south(bb: np.uint64) -> np.uint64:
    return bb >> np.uint64(8)


@njit(inline="always")
def shift_east(bb: np.uint64) -> np.uint64:
    return (bb & NOT_FILE_H) << ONE


@njit(inline="always")
def shift_west(bb: np.uint64) -> np.uint64:
    return (bb & NOT_FILE_A) >> ONE


def bitboard_squares(bb: int) -> list[int]:
    """Python helper: the squares of a bitboard in ascending order."""
    bb = int(bb)
    out = []
    while bb:
        low = bb & -bb
        out.append(low.bit_length() - 1)
        bb ^= low
    return out
