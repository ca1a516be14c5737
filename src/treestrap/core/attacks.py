"""Attack sets of every piece, from precomputed tables.

Leapers (knight, king, pawn captures) are one lookup. Sliders use "fancy" magic
bitboards: the relevant blockers ``occupied & mask`` are multiplied by a magic number
and shifted to index a per-square sub-table of attack sets. The magic numbers are found
at start-up by a seeded random search (:func:`fill_attack_tables`), so nothing here is
copied from elsewhere and the result is the same on every machine.
"""

from __future__ import annotations

import numpy as np

from treestrap.core.bitboard import EMPTY, ONE, square_bb
from treestrap.core.jit import njit
from treestrap.core.tables import (
    BETWEEN,
    BISHOP_BASE,
    BISHOP_MAGIC,
    BISHOP_MASK,
    BISHOP_SHIFT,
    BISHOP_TABLE_SIZE,
    KING,
    KNIGHT,
    LINE,
    PAWN,
    ROOK_BASE,
    ROOK_MAGIC,
    ROOK_MASK,
    ROOK_SHIFT,
    ROOK_TABLE_SIZE,
    SLIDER,
)

# Ray directions as (file step, rank step).
_ROOK_DIRS = np.array([[1, 0], [-1, 0], [0, 1], [0, -1]], dtype=np.int64)
_BISHOP_DIRS = np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]], dtype=np.int64)
_KNIGHT_STEPS = np.array(
    [[1, 2], [2, 1], [2, -1], [1, -2], [-1, -2], [-2, -1], [-2, 1], [-1, 2]], dtype=np.int64
)
_KING_STEPS = np.array(
    [[1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1], [0, -1], [1, -1]], dtype=np.int64
)
#: Seed of the magic-number search; any seed works, a fixed one makes tables reproducible.
_MAGIC_SEED = np.uint64(0x9E37_79B9_7F4A_7C15)

# Magic multipliers found by ``find_magics()`` below with ``_MAGIC_SEED`` (a search
# of about a second); stored so that start-up only has to fill the tables. Each one
# is verified while filling, and a square whose stored magic fails is searched again.
ROOK_MAGICS = np.array(
    [
        0x1080004008801020,
        0x0840092002C03000,
        0x1900200010400900,
        0x0880100008000480,
        0x4200100420080200,
        0x8100020100080400,
        0x0200040110886200,
        0x0200008040220411,
        0x0404800084400220,
        0x0000401000402000,
        0x0086001081220440,
        0x0408800800100280,
        0x000A001201040820,
        0x8848800200840080,
        0x4001000100040200,
        0x0442000102105084,
        0x9080010020804100,
        0x0040404000201009,
        0x0000808010002009,
        0x2200090021D00100,
        0x0008008008040080,
        0x0004004002010040,
        0x0011040008015042,
        0x00000A0001768104,
        0x0000800080204009,
        0x2010004140002001,
        0x9800200280100080,
        0x1000100080080080,
        0x0442000A00049020,
        0x2100040080020080,
        0x0800120400900148,
        0x0010040A00128541,
        0x2800804000800030,
        0x1010002000400041,
        0x4000200011004100,
        0x0610008410800800,
        0x0400802402800800,
        0xC100020080800400,
        0x0002000802000401,
        0x0182085882000401,
        0x0220204000808000,
        0x2860100040024022,
        0x0001002004110040,
        0x99101042000A0020,
        0x0004080004008080,
        0x0010040002008080,
        0x2012004881020004,
        0x8300842444820011,
        0x0088403882010200,
        0x0820400080210100,
        0x0110910040A00300,
        0x0801100280080480,
        0x0242009008200600,
        0x1002000489500200,
        0x0040800200010080,
        0x0091800041000080,
        0x0000209300488001,
        0x04C1002414824001,
        0x020020000B001041,
        0x7000100004200901,
        0x8002002004100802,
        0x30010002084C0007,
        0x0888221800813004,
        0x4000002840840112,
    ],
    dtype=np.uint64,
)
BISHOP_MAGICS = np.array(
    [
        0xA010041108003100,
        0x006082020A002900,
        0x6810010619200000,
        0x08281A0520000408,
        0x0001104001000400,
        0x0018901008048400,
        0x00040A0210245280,
        0x000200210808A402,
        0x9140048410821200,
        0x0800091010820041,
        0x20504804832202C0,
        0x0100091401081000,
        0x8021011140000012,
        0x0810020804450400,
        0x208B0542109008A2,
        0x0080084A08040204,
        0x0040E2A80811244C,
        0x2505022008008108,
        0x0430220100420040,
        0x010A040420220040,
        0x1105000290400000,
        0x0093001200822120,
        0x4000A62048043004,
        0x280120048A015004,
        0x006090002A020814,
        0x44042000240800D0,
        0x01102800040A4400,
        0x1004080080220040,
        0x0001001011004024,
        0x0010044000805040,
        0x0914041200820100,
        0x0004821012821480,
        0x0024040500C05021,
        0x0088611002080200,
        0x0116080A00040020,
        0x4000020080080080,
        0x2450450140840040,
        0x0000880201484100,
        0x0222020404020092,
        0x8081110600002E00,
        0x2842101105000801,
        0x1100809008001025,
        0x00020202221C0400,
        0x0422014022009020,
        0x0210046102100C00,
        0xC004008082029102,
        0x00AA461801101200,
        0x0404080080201108,
        0x020542108C205002,
        0x0410544804100100,
        0x0040910841100000,
        0x0400200042021100,
        0x00004204850400C0,
        0x0200100410A42102,
        0x1040020801210102,
        0x0805040410420000,
        0x2884804130100200,
        0x800C262201242000,
        0x1058000194108800,
        0x0014221054420204,
        0x0104000012A02200,
        0x0200881003300100,
        0x0140400202840100,
        0x0402020801010201,
    ],
    dtype=np.uint64,
)


# --- lookups used by every kernel -------------------------------------------------


@njit(inline="always")
def knight_attacks(T: np.ndarray, sq: int) -> np.uint64:
    return T[KNIGHT + sq]


@njit(inline="always")
def king_attacks(T: np.ndarray, sq: int) -> np.uint64:
    return T[KING + sq]


@njit(inline="always")
def pawn_attacks(T: np.ndarray, color: int, sq: int) -> np.uint64:
    """Squares a pawn of ``color`` on ``sq`` attacks."""
    return T[PAWN + color * 64 + sq]


@njit(inline="always")
def rook_attacks(T: np.ndarray, sq: int, occupied: np.uint64) -> np.uint64:
    index = ((occupied & T[ROOK_MASK + sq]) * T[ROOK_MAGIC + sq]) >> T[ROOK_SHIFT + sq]
    return T[np.int64(T[ROOK_BASE + sq]) + np.int64(index)]


@njit(inline="always")
def bishop_attacks(T: np.ndarray, sq: int, occupied: np.uint64) -> np.uint64:
    index = ((occupied & T[BISHOP_MASK + sq]) * T[BISHOP_MAGIC + sq]) >> T[BISHOP_SHIFT + sq]
    return T[np.int64(T[BISHOP_BASE + sq]) + np.int64(index)]


@njit(inline="always")
def queen_attacks(T: np.ndarray, sq: int, occupied: np.uint64) -> np.uint64:
    return rook_attacks(T, sq, occupied) | bishop_attacks(T, sq, occupied)


@njit(inline="always")
def between(T: np.ndarray, a: int, b: int) -> np.uint64:
    """Squares strictly between ``a`` and ``b`` on a rank, file or diagonal, else empty."""
    return T[BETWEEN + a * 64 + b]


@njit(inline="always")
def line(T: np.ndarray, a: int, b: int) -> np.uint64:
    """The full line (edge to edge) through ``a`` and ``b`` if aligned, else empty."""
    return T[LINE + a * 64 + b]


# --- table builders (run once per process) ----------------------------------------


@njit
def _on_board(f: int, r: int) -> bool:
    return 0 <= f < 8 and 0 <= r < 8


@njit
def _step_attacks(sq: int, steps: np.ndarray) -> np.uint64:
    f, r = sq % 8, sq // 8
    bb = EMPTY
    for i in range(steps.shape[0]):
        nf, nr = f + steps[i, 0], r + steps[i, 1]
        if _on_board(nf, nr):
            bb |= square_bb(nr * 8 + nf)
    return bb


@njit
def _ray_attacks(sq: int, occupied: np.uint64, dirs: np.ndarray) -> np.uint64:
    """Slow reference slider attacks: walk each ray until a blocker (included)."""
    bb = EMPTY
    for i in range(dirs.shape[0]):
        f, r = sq % 8 + dirs[i, 0], sq // 8 + dirs[i, 1]
        while _on_board(f, r):
            s = square_bb(r * 8 + f)
            bb |= s
            if occupied & s:
                break
            f += dirs[i, 0]
            r += dirs[i, 1]
    return bb


@njit
def _relevant_mask(sq: int, dirs: np.ndarray) -> np.uint64:
    """Ray squares whose occupancy matters: each ray without its last (edge) square."""
    bb = EMPTY
    for i in range(dirs.shape[0]):
        f, r = sq % 8 + dirs[i, 0], sq // 8 + dirs[i, 1]
        while _on_board(f + dirs[i, 0], r + dirs[i, 1]):
            bb |= square_bb(r * 8 + f)
            f += dirs[i, 0]
            r += dirs[i, 1]
    return bb


@njit
def _xorshift(state: np.ndarray) -> np.uint64:
    """xorshift64* step; ``state`` is a one-element uint64 array."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(0x2545_F491_4F6C_DD1D)


@njit(allocates=True)
def _fill_magics(
    T: np.ndarray,
    dirs: np.ndarray,
    mask_off: int,
    magic_off: int,
    shift_off: int,
    base_off: int,
    table_start: int,
    known: np.ndarray,
    rng: np.ndarray,
) -> int:
    """Fill each square's attack sub-table, trying the ``known`` magic first and
    searching (sparse random candidates) where it is zero or fails; returns the end
    offset."""
    occupancies = np.empty(4096, dtype=np.uint64)
    references = np.empty(4096, dtype=np.uint64)
    used_epoch = np.zeros(4096, dtype=np.int64)
    base = table_start
    epoch = 0
    for sq in range(64):
        mask = _relevant_mask(sq, dirs)
        bits = 0
        m = mask
        while m:
            bits += 1
            m &= m - ONE
        size = 1 << bits
        # Enumerate every subset of the mask (Carry-Rippler trick).
        subset = EMPTY
        for i in range(size):
            occupancies[i] = subset
            references[i] = _ray_attacks(sq, subset, dirs)
            subset = (subset - mask) & mask
        shift = np.uint64(64 - bits)
        magic = known[sq]
        while True:
            if magic == EMPTY:
                magic = _xorshift(rng) & _xorshift(rng) & _xorshift(rng)  # sparse
                # Quick reject: the top byte of mask * magic must be dense enough.
                top = (mask * magic) >> np.uint64(56)
                cnt = 0
                while top:
                    cnt += 1
                    top &= top - ONE
                if cnt < 6:
                    magic = EMPTY
                    continue
            epoch += 1
            ok = True
            for i in range(size):
                idx = np.int64((occupancies[i] * magic) >> shift)
                if used_epoch[idx] != epoch:
                    used_epoch[idx] = epoch
                    T[base + idx] = references[i]
                elif T[base + idx] != references[i]:
                    ok = False
                    break
            if ok:
                break
            magic = EMPTY
        T[mask_off + sq] = mask
        T[magic_off + sq] = magic
        T[shift_off + sq] = shift
        T[base_off + sq] = np.uint64(base)
        base += size
    return base


@njit(allocates=True)
def fill_attack_tables(T: np.ndarray, rook_magics: np.ndarray, bishop_magics: np.ndarray) -> None:
    """Fill the leaper, magic and between/line regions of ``T`` (see :mod:`tables`),
    starting from the given magics (zeros mean: search)."""
    for sq in range(64):
        T[KNIGHT + sq] = _step_attacks(sq, _KNIGHT_STEPS)
        T[KING + sq] = _step_attacks(sq, _KING_STEPS)
        f, r = sq % 8, sq // 8
        white = EMPTY
        black = EMPTY
        for df in (-1, 1):
            if _on_board(f + df, r + 1):
                white |= square_bb((r + 1) * 8 + f + df)
            if _on_board(f + df, r - 1):
                black |= square_bb((r - 1) * 8 + f + df)
        T[PAWN + sq] = white
        T[PAWN + 64 + sq] = black
    rng = np.array([_MAGIC_SEED], dtype=np.uint64)
    end = _fill_magics(
        T, _ROOK_DIRS, ROOK_MASK, ROOK_MAGIC, ROOK_SHIFT, ROOK_BASE, SLIDER, rook_magics, rng
    )
    assert end == SLIDER + ROOK_TABLE_SIZE
    end = _fill_magics(
        T,
        _BISHOP_DIRS,
        BISHOP_MASK,
        BISHOP_MAGIC,
        BISHOP_SHIFT,
        BISHOP_BASE,
        end,
        bishop_magics,
        rng,
    )
    assert end == SLIDER + ROOK_TABLE_SIZE + BISHOP_TABLE_SIZE
    for a in range(64):
        for b in range(64):
            T[BETWEEN + a * 64 + b] = EMPTY
            T[LINE + a * 64 + b] = EMPTY
            if a == b:
                continue
            bb_b = square_bb(b)
            for dirs in (_ROOK_DIRS, _BISHOP_DIRS):
                if _ray_attacks(a, EMPTY, dirs) & bb_b:
                    T[BETWEEN + a * 64 + b] = _ray_attacks(a, bb_b, dirs) & _ray_attacks(
                        b, square_bb(a), dirs
                    )
                    T[LINE + a * 64 + b] = (
                        (_ray_attacks(a, EMPTY, dirs) & _ray_attacks(b, EMPTY, dirs))
                        | square_bb(a)
                        | bb_b
                    )


def find_magics() -> tuple[np.ndarray, np.ndarray]:
    """Search all magics from scratch with ``_MAGIC_SEED``: how the stored
    ``ROOK_MAGICS``/``BISHOP_MAGICS`` were made (print them to regenerate)."""
    from treestrap.core.tables import TABLES_SIZE

    T = np.zeros(TABLES_SIZE, dtype=np.uint64)
    zeros = np.zeros(64, dtype=np.uint64)
    fill_attack_tables(T, zeros, zeros)
    return T[ROOK_MAGIC : ROOK_MAGIC + 64].copy(), T[BISHOP_MAGIC : BISHOP_MAGIC + 64].copy()
