"""A perspective network ("NNUE"): ``(768 -> N) x 2 -> 1``, compiled, in int16.

The network. One feature transformer ``W[768, N], b[N]`` reads the 768 piece-square
inputs of a position twice: from white's point of view (input ``piece * 64 + square``,
the ``bitboard`` set's order) and from black's (the colour-flipped input
``((piece + 6) % 12) * 64 + (square ^ 56)``). The two accumulators are concatenated
side to move first, clipped (``crelu``: ``clamp(a, 0, 1)``; ``screlu``: its square) and
read by one output unit of ``B`` (the bucket of the position's piece count, ``B = 1``
by default): the side to move's log-odds ``z = z_win - z_loss``. Colour symmetry is
built in: a position and its colour flip give the same ``z``.

Integers. Every parameter is a multiple of a power of two (the grid of
:func:`quantize`): feature weights and biases of ``1 / QA``, output weights of
``1 / QB``, output biases of ``1 / (QA * QB)`` (``1 / (QA**2 * QB)`` for screlu). The
accumulators are int16 sums of int16 weights, exact in any order, so an incrementally
kept accumulator equals a recomputed one and numba's integer loops vectorise (16 or 32
lanes) where float ones would need fastmath; the output is an exact integer sum scaled
by a power of two, so a float64 torch twin on the same grid gives the same ``z`` bit for
bit (:mod:`treestrap.evaluation.torch_perspective`). Each accumulator's share of the
output is summed in int32 lanes (``vpmaddwd`` for crelu) when no input can take it past
int32, which always holds for crelu and for screlu with output weights of ordinary size,
else in int64 (a third as fast).

One array. As for every model the evaluator's ``weights`` is one float64 array; parts
of it are read as int16 and uint64 through views (no copy). :func:`pack_perspective`
lays it out as

============  ===========================================================================
``header``    ``HEADER`` slots: the ``P_*`` values below (integers stored as floats)
out biases    ``B`` slots, integers in the output's units
tags          ``ACC_SLOTS`` slots read as uint64: the Zobrist key each accumulator row
              belongs to (0: none)
int16 part    from float slot ``P_INTS`` on: ``W`` (row ``f``: what input ``f`` adds),
              ``b``, the output weights ``[B, 2N]`` (the side to move's half first), then
              ``ACC_SLOTS`` accumulator rows of ``2N`` (white's accumulator, black's)
============  ===========================================================================

The update. The accumulators of the position at ply ``p`` live in row ``p % ACC_SLOTS``,
tagged with its key. A position whose row is not tagged steps from its parent's row by
the move between them (the mover's inputs off and on, a capture, a castling rook: one
fused pass per accumulator), walking back through ``pos.hist`` to the nearest tagged
ancestor when the parent's row is stale too. When none within ``ACC_SLOTS`` plies is,
the row is computed from scratch and the ancestors' rows are filled back from it (so
that its siblings step from their parent): :mod:`treestrap.evaluation.network`'s lazy
scheme, with no hook in make/unmake. A null move copies the parent's row.
"""

from __future__ import annotations

import numpy as np

from treestrap.core.bitboard import lsb, pop_lsb, popcount
from treestrap.core.jit import njit
from treestrap.core.piece import WHITE
from treestrap.core.position import ST_PLY, ST_SIDE, Position
from treestrap.evaluation.network import move_inputs

#: Piece-square inputs of one perspective.
INPUTS = 768
#: Scale of the feature weights and biases (an accumulator of ``QA`` is 1.0, where the
#: clipped ReLU saturates) and of the output weights: powers of two, so the integers
#: are the float parameters exactly.
QA = 256
QB = 1024
INT16_MAX = 32767

#: Activations of the accumulators (the header's codes, and the names files use).
CRELU = 0
SCRELU = 1
ACTIVATIONS = {"crelu": CRELU, "screlu": SCRELU}
#: Output buckets: a position with ``pieces`` pieces reads bucket
#: ``(pieces - 1) * B // MAX_PIECES`` (the last for more).
MAX_PIECES = 32

# Slots of the header.
P_WIDTH = 0  # N, one accumulator's width
P_BUCKETS = 1  # B
P_ACTIVATION = 2  # CRELU or SCRELU
P_INCREMENTAL = 3  # 1: keep accumulators; 0: recompute at every evaluation
P_SCALE = 4  # the output's unit: z = output integer * scale (a power of two)
P_BIAS = 5  # float slot of the output biases
P_TAGS = 6  # float slot of the row tags
P_INTS = 7  # float slot where the int16 part begins
P_OUT = 8  # int16 index of the output weights
P_ACC = 9  # int16 index of the accumulator rows
P_NARROW = 10  # 1: each accumulator's share of the output fits int32 (a faster loop)
HEADER = 16  # a multiple of 8: the int16 part starts 64-byte aligned with the array

#: Accumulator rows, indexed by ply modulo this (a power of two above MAX_PLY).
ACC_SLOTS = 128
_MASK = ACC_SLOTS - 1
_NO_TAG = np.uint64(0)


def parameter_count(width: int, buckets: int = 1) -> int:
    """Flat parameters of a network: ``W``, ``b``, output weights and biases."""
    return INPUTS * width + width + buckets * 2 * width + buckets


def output_scale(activation: str) -> float:
    """The value of one unit of the output integer."""
    return 1.0 / (QA * QB * (QA if activation == "screlu" else 1))


def split_parameters(
    params: np.ndarray, width: int, buckets: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Views of the flat parameters: ``W[768, N]``, ``b[N]``, output weights
    ``[B, 2N]`` (the side to move's half first) and output biases ``[B]``."""
    n_w = INPUTS * width
    n_out = buckets * 2 * width
    return (
        params[:n_w].reshape(INPUTS, width),
        params[n_w : n_w + width],
        params[n_w + width : n_w + width + n_out].reshape(buckets, 2 * width),
        params[n_w + width + n_out :],
    )


def quantize(params: np.ndarray, width: int, buckets: int, activation: str) -> np.ndarray:
    """``params`` rounded to the grid of the module docstring, weights clipped to int16
    (a copy). ``ValueError`` when an accumulator could leave int16: a unit whose bias
    and 32 largest weights (a position's pieces at most) add up past ``INT16_MAX / QA``
    in magnitude."""
    out = np.array(params, dtype=np.float64).reshape(-1)
    if out.shape != (parameter_count(width, buckets),):
        raise ValueError(
            f"{out.size} parameters do not fit a perspective network of width {width} "
            f"and {buckets} buckets ({parameter_count(width, buckets)})"
        )
    w, b, ow, ob = split_parameters(out, width, buckets)
    limit = INT16_MAX / QA
    w[...] = np.clip(np.round(w * QA), -INT16_MAX, INT16_MAX) / QA
    b[...] = np.clip(np.round(b * QA), -INT16_MAX, INT16_MAX) / QA
    ow[...] = np.clip(np.round(ow * QB), -INT16_MAX, INT16_MAX) / QB
    unit = output_scale(activation)
    ob[...] = np.round(ob / unit) * unit
    reach = np.abs(b) + np.sort(np.abs(w), axis=0)[-MAX_PIECES:].sum(axis=0)
    if reach.max(initial=0.0) > limit:
        raise ValueError(
            f"an accumulator could reach {reach.max():.1f}, past the int16 range "
            f"(+-{limit:.1f}): smaller first-layer weights"
        )
    return out


def pack_perspective(
    params: np.ndarray,
    width: int,
    buckets: int = 1,
    activation: str = "crelu",
    incremental: bool = True,
) -> np.ndarray:
    """The one array compiled code evaluates, from parameters on the grid of
    :func:`quantize` (layout in the module docstring)."""
    if activation not in ACTIVATIONS:
        raise ValueError(f"unknown activation {activation!r} (known: {', '.join(ACTIVATIONS)})")
    if width < 1 or buckets < 1:
        raise ValueError(f"width {width} and buckets {buckets} must be positive")
    params = quantize(params, width, buckets, activation)
    w, b, ow, ob = split_parameters(params, width, buckets)
    n_ints = (INPUTS + 1) * width + buckets * 2 * width + ACC_SLOTS * 2 * width
    bias = HEADER
    tags = bias + buckets
    ints = -(-(tags + ACC_SLOTS) // 8) * 8  # 64-byte aligned within the array
    buf = np.zeros(ints + -(-n_ints // 4), dtype=np.float64)
    view = buf[ints:].view(np.int16)
    out = (INPUTS + 1) * width
    acc = out + buckets * 2 * width
    view[: INPUTS * width] = np.round(w * QA).reshape(-1)
    view[INPUTS * width : out] = np.round(b * QA)
    view[out:acc] = np.round(ow * QB).reshape(-1)
    buf[P_WIDTH] = width
    buf[P_BUCKETS] = buckets
    buf[P_ACTIVATION] = ACTIVATIONS[activation]
    buf[P_INCREMENTAL] = 1.0 if incremental else 0.0
    buf[P_SCALE] = output_scale(activation)
    buf[P_BIAS] = bias
    buf[P_TAGS] = tags
    buf[P_INTS] = ints
    buf[P_OUT] = out
    buf[P_ACC] = acc
    buf[bias : bias + buckets] = np.round(ob / output_scale(activation))
    buf[P_NARROW] = 1.0 if _fits_int32(ow, activation) else 0.0
    return buf


def _fits_int32(output_weights: np.ndarray, activation: str) -> bool:
    """Whether each accumulator's share of the output fits int32 for every input: the
    largest activation times the sum of the share's weights' magnitudes, in units."""
    top = QA * QA if activation == "screlu" else QA
    halves = np.abs(np.round(output_weights * QB)).reshape(-1, 2, output_weights.shape[1] // 2)
    return bool(top * halves.sum(axis=2).max() <= np.iinfo(np.int32).max)


def unpack_parameters(buf: np.ndarray) -> np.ndarray:
    """The flat float parameters a packed network holds (the inverse of
    :func:`pack_perspective` on parameters already on the grid)."""
    buckets = int(buf[P_BUCKETS])
    view = buf[int(buf[P_INTS]) :].view(np.int16)
    out, acc = int(buf[P_OUT]), int(buf[P_ACC])
    bias = int(buf[P_BIAS])
    return np.concatenate(
        [
            view[:out] / QA,
            view[out:acc] / QB,
            buf[bias : bias + buckets] * buf[P_SCALE],
        ]
    )


def write_parameters(buf: np.ndarray, params: np.ndarray) -> None:
    """New parameters into a packed network in place (rounded to the grid), its
    accumulators forgotten."""
    width, buckets = int(buf[P_WIDTH]), int(buf[P_BUCKETS])
    activation = "screlu" if buf[P_ACTIVATION] == SCRELU else "crelu"
    fresh = pack_perspective(params, width, buckets, activation, buf[P_INCREMENTAL] != 0.0)
    if fresh.shape != buf.shape:
        raise ValueError("the packed network changed its shape")
    buf[:] = fresh


@njit(inline="always")
def _ints(buf: np.ndarray) -> np.ndarray:
    """The int16 part of a packed network."""
    return buf[int(buf[P_INTS]) :].view(np.int16)


@njit(inline="always")
def flip_input(f: int) -> int:
    """Input ``f`` of white's perspective as black sees it (colours swapped, board
    mirrored vertically); its own inverse."""
    return ((f + 384) % INPUTS) ^ 56


@njit(inline="always")
def _column(ints: np.ndarray, f: int, n: int) -> np.ndarray:
    """The weights input ``f`` adds to an accumulator."""
    return ints[f * n : (f + 1) * n]


@njit
def refresh_accumulators(pos: Position, buf: np.ndarray, row: int) -> None:
    """Both accumulators of ``pos`` computed from scratch into ``row``."""
    n = int(buf[P_WIDTH])
    ints = _ints(buf)
    a = int(buf[P_ACC]) + row * 2 * n
    for p in range(2):
        dst = ints[a + p * n : a + (p + 1) * n]
        bias = ints[INPUTS * n : (INPUTS + 1) * n]
        for j in range(n):
            dst[j] = bias[j]
    for piece in range(12):
        pieces = pos.bb[piece]
        while pieces:
            f = piece * 64 + lsb(pieces)
            for p in range(2):
                dst = ints[a + p * n : a + (p + 1) * n]
                col = _column(ints, f if p == WHITE else flip_input(f), n)
                for j in range(n):
                    dst[j] += col[j]
            pieces = pop_lsb(pieces)


@njit(inline="always")
def _fused(
    dst: np.ndarray,
    src: np.ndarray,
    ints: np.ndarray,
    n: int,
    add1: int,
    add2: int,
    sub1: int,
    sub2: int,
) -> None:
    """``dst = src + columns add1, add2 - columns sub1, sub2`` (-1: none; ``add1`` and
    ``sub1`` always given) in one pass. int16 sums wrap, so any order is exact."""
    a = _column(ints, add1, n)
    b = _column(ints, sub1, n)
    if add2 >= 0 and sub2 >= 0:
        c = _column(ints, add2, n)
        d = _column(ints, sub2, n)
        for j in range(n):
            dst[j] = src[j] + a[j] - b[j] + c[j] - d[j]
    elif sub2 >= 0:
        d = _column(ints, sub2, n)
        for j in range(n):
            dst[j] = src[j] + a[j] - b[j] - d[j]
    elif add2 >= 0:
        c = _column(ints, add2, n)
        for j in range(n):
            dst[j] = src[j] + a[j] - b[j] + c[j]
    else:
        for j in range(n):
            dst[j] = src[j] + a[j] - b[j]


@njit
def _step(
    buf: np.ndarray,
    src_row: int,
    dst_row: int,
    move: int,
    add1: int,
    add2: int,
    sub1: int,
    sub2: int,
) -> None:
    """Row ``dst_row`` from row ``src_row``: the columns of white's inputs ``add1, add2``
    added and ``sub1, sub2`` subtracted (-1: none), for black's accumulator those of
    their flips; one pass over each accumulator. ``move`` 0 (a null move) copies.
    Scalars, not the position: a call passing a position costs its arrays' fields."""
    n = int(buf[P_WIDTH])
    ints = _ints(buf)
    acc = int(buf[P_ACC])
    s0 = acc + src_row * 2 * n
    d0 = acc + dst_row * 2 * n
    for p in range(2):
        src = ints[s0 + p * n : s0 + (p + 1) * n]
        dst = ints[d0 + p * n : d0 + (p + 1) * n]
        if move == 0:
            for j in range(n):
                dst[j] = src[j]
            continue
        if p != WHITE:
            add1, sub1 = flip_input(add1), flip_input(sub1)
            add2 = flip_input(add2) if add2 >= 0 else -1
            sub2 = flip_input(sub2) if sub2 >= 0 else -1
        _fused(dst, src, ints, n, add1, add2, sub1, sub2)


@njit(inline="always")
def _step_at(pos: Position, buf: np.ndarray, ply: int, forward: bool) -> None:
    """Row ``ply`` from row ``ply - 1`` by the move between them (``forward``), or row
    ``ply - 1`` back from row ``ply``: the mover off and on, and a capture or a
    castling rook (a move takes or castles, not both)."""
    move, off, on, taken, rook_off, rook_on = move_inputs(pos, ply)
    gone = taken if taken >= 0 else rook_off
    parent, child = (ply - 1) & _MASK, ply & _MASK
    if forward:
        _step(buf, parent, child, move, on, rook_on, off, gone)
    else:
        _step(buf, child, parent, move, off, gone, on, rook_on)


@njit(inline="always")
def _tagged(tags: np.ndarray, t0: int, ply: int, key: np.uint64) -> bool:
    return tags[t0 + (ply & _MASK)] == key and key != _NO_TAG


@njit(inline="always")
def accumulator_row(pos: Position, buf: np.ndarray) -> int:
    """The row holding ``pos``'s accumulators, brought up to date. Inlined into the
    caller: the tests of its row's and its parent's tags and the step from the parent
    (a call that passes numbers); the rarer cases are a call."""
    ply = pos.st[ST_PLY]
    row = ply & _MASK
    if buf[P_INCREMENTAL] != 0.0:
        tags = buf.view(np.uint64)
        t0 = int(buf[P_TAGS])
        if _tagged(tags, t0, ply, pos.keys[ply]):
            return row
        if ply > 0 and _tagged(tags, t0, ply - 1, pos.keys[ply - 1]):
            _step_at(pos, buf, ply, True)
            tags[t0 + row] = pos.keys[ply]
            return row
    return _update_row(pos, buf)


@njit
def _update_row(pos: Position, buf: np.ndarray) -> int:
    """:func:`accumulator_row` when neither the row nor its parent's is up to date."""
    ply = pos.st[ST_PLY]
    row = ply & _MASK
    if buf[P_INCREMENTAL] == 0.0:
        refresh_accumulators(pos, buf, row)
        return row
    tags = buf.view(np.uint64)
    t0 = int(buf[P_TAGS])
    lowest = max(0, ply - _MASK)
    k = ply - 1
    while k >= lowest and not _tagged(tags, t0, k, pos.keys[k]):
        k -= 1
    if k >= lowest:
        for j in range(k + 1, ply + 1):  # forward from the tagged ancestor
            _step_at(pos, buf, j, True)
            tags[t0 + (j & _MASK)] = pos.keys[j]
        return row
    # none: from scratch, then the ancestors' rows back from it, so that the siblings
    # of this position step from their parent
    refresh_accumulators(pos, buf, row)
    tags[t0 + row] = pos.keys[ply]
    for j in range(ply, lowest, -1):
        _step_at(pos, buf, j, False)
        tags[t0 + ((j - 1) & _MASK)] = pos.keys[j - 1]
    return row


@njit(inline="always")
def _dot_wide(x: np.ndarray, w: np.ndarray, square: bool) -> np.int64:
    """``sum clamp(x, 0, QA) * w`` (the clamp squared for screlu) in int64."""
    s = np.int64(0)
    if square:
        for j in range(x.size):
            v = np.int64(min(max(x[j], 0), QA))
            s += v * v * w[j]
    else:
        for j in range(x.size):
            s += np.int64(min(max(x[j], 0), QA)) * w[j]
    return s


@njit(inline="always")
def _dot_narrow(x: np.ndarray, w: np.ndarray, square: bool) -> np.int64:
    """:func:`_dot_wide` in int32, each step truncated so that LLVM narrows the loop
    to 32-bit lanes (``vpmaddwd`` for crelu: three times as fast). Wrapping sums are
    exact when the total fits, which :func:`pack_perspective` checked."""
    s = np.int32(0)
    if square:
        for j in range(x.size):
            v = np.int32(min(max(x[j], 0), QA))
            s = np.int32(s + v * v * np.int32(w[j]))
    else:
        for j in range(x.size):
            s = np.int32(s + np.int32(min(max(x[j], 0), QA)) * np.int32(w[j]))
    return np.int64(s)


@njit(inline="always")
def _half(x: np.ndarray, w: np.ndarray, square: bool, narrow: bool) -> np.int64:
    """One accumulator's share of the output."""
    if narrow:
        return _dot_narrow(x, w, square)
    return _dot_wide(x, w, square)


@njit(inline="always")
def output_bucket(pos: Position, buckets: int) -> int:
    """The output a position reads: by its number of pieces."""
    pieces = popcount(pos.bb[12] | pos.bb[13])
    return min((pieces - 1) * buckets // MAX_PIECES, buckets - 1)


@njit
def output_logit(buf: np.ndarray, row: int, us: int, bucket: int) -> float:
    """The output on accumulator ``row`` with ``us`` to move: ``z_win - z_loss``."""
    n = int(buf[P_WIDTH])
    ints = _ints(buf)
    a = int(buf[P_ACC]) + row * 2 * n
    w = int(buf[P_OUT]) + bucket * 2 * n
    square = buf[P_ACTIVATION] == SCRELU
    narrow = buf[P_NARROW] != 0.0
    ours = _half(ints[a + us * n : a + (us + 1) * n], ints[w : w + n], square, narrow)
    them = 1 - us
    theirs = _half(ints[a + them * n : a + (them + 1) * n], ints[w + n : w + 2 * n], square, narrow)
    total = np.int64(buf[int(buf[P_BIAS]) + bucket]) + ours + theirs
    return float(total) * buf[P_SCALE]


@njit(inline="always")
def perspective_logit(pos: Position, buf: np.ndarray) -> float:
    """The side to move's log-odds ``z_win - z_loss`` of ``pos``. Inlined, so that
    the calls it makes pass a few numbers, not the position's arrays."""
    row = accumulator_row(pos, buf)
    bucket = output_bucket(pos, int(buf[P_BUCKETS]))
    return output_logit(buf, row, pos.st[ST_SIDE], bucket)


def accumulators(buf: np.ndarray, row: int) -> np.ndarray:
    """A copy of accumulator ``row`` as ``[2, N]`` floats, white's first (for tests)."""
    n = int(buf[P_WIDTH])
    view = buf[int(buf[P_INTS]) :].view(np.int16)
    a = int(buf[P_ACC]) + row * 2 * n
    return view[a : a + 2 * n].reshape(2, n) / QA
