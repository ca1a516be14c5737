"""Compiled feed-forward networks on the ``bitboard`` inputs, with an NNUE-style
accumulator for the first layer.

A network is logistic regression (one layer) or an MLP (tanh or clipped-ReLU hidden
layers) over the
769 ``bitboard`` inputs of :mod:`treestrap.evaluation.feature_sets.bitboard`, ending in one
output: the log-odds ``z_win - z_loss`` in white's frame, which
:mod:`treestrap.evaluation.outcome` turns into a side-to-move score.

One array. Compiled code sees a network as a single float64 array ``buf`` (the
evaluator's ``weights``, so the evaluator tuple has the same fields for every model and
a linear search pays nothing for networks). :func:`pack_network` lays it out as

=============  =====================================================================
``header``     ``HEADER`` slots: the ``H_*`` values below (integers stored as floats)
parameters     layer 0 as ``W0[inputs, size0]`` (row ``i`` is the *column* of input
               ``i``: what a piece on a square adds), then ``b0[size0]``; each further
               layer ``k`` as ``Wk[size_k, size_k-1]`` then ``bk[size_k]``; the last
               layer has size 1 (the same order as a network weight file)
accumulators   ``ACC_SLOTS`` rows of ``size0`` (one per ply modulo ``ACC_SLOTS``), then
               two scratch rows of the widest layer
diffs          ``DIFF_WIDTH`` slots per ply: the inputs a move switched on (+) or off (-)
tags           ``2 * ACC_SLOTS`` slots: the Zobrist key each row belongs to, as its high and
               low 32 bits (exact in float64, and read without a uint64 view of the array)
linear part    optional: the weights theta of a linear evaluation over another feature
               set, added to the network's score (a hybrid: see
               :mod:`treestrap.evaluation.model`)
=============  =====================================================================

The accumulator. Layer 0's pre-activation ``b0 + sum of the columns of the active
inputs`` of the position at ply ``p`` lives in row ``p % ACC_SLOTS``, tagged with the
position's key. Evaluating a position whose row is not tagged with its key walks back
through the moves of ``pos.hist`` (each records the piece that moved and the one it
took) to the nearest ancestor whose row is, then fills every row on the way forward by
adding the columns of pieces that arrived and subtracting those that left (and the
side-to-move column; a position one move from a tagged parent, the usual case, takes
that one step in one pass over the row): Stockfish's lazy update, with no search code
that knows about networks. A row is trusted only while its tag matches, so rows left by
another line, another search or another position object cost a recomputation, never a
wrong value. When no ancestor within ``ACC_SLOTS`` plies has a row, the position's row
is computed from scratch and the rows of the ancestors walked through are filled
backwards from it. After any change of the parameters call
:func:`invalidate_accumulators`.

Exact sums. Layer-0 parameters are rounded to a binary grid when a network is packed
(:func:`quantize_first_layer`): multiples of ``2**(e - 52)`` where ``2**e`` is at least
:data:`ACC_TERMS` times the largest of them. Every sum of at most that many is then exact
in float64 (53-bit mantissa), in any order and with subtractions, so an incrementally
kept row equals a recomputed one bit for bit and searches do not depend on the order
they visit nodes in (alpha-beta equals minimax exactly). For parameters of order 1 the
grid is 2**-46, far below the float32 precision the supervised models are trained in.
"""

from __future__ import annotations

import math

import numpy as np

from treestrap.core.bitboard import lsb, pop_lsb
from treestrap.core.jit import njit
from treestrap.core.layer_sizes import check_layer_sizes, parameter_count
from treestrap.core.move import (
    captured_square,
    castling_rook_squares,
    is_castling,
    is_promotion,
    move_from,
    move_to,
    promotion_type,
)
from treestrap.core.piece import NO_PIECE, ROOK, WHITE
from treestrap.core.position import H_CAPTURED, H_MOVE, H_MOVED, ST_PLY, ST_SIDE, Position
from treestrap.evaluation.feature_sets.bitboard import BITBOARD_SIZE, SIDE_TO_MOVE

# Slots of the header.
H_LAYERS = 0  # number of layers (1 = logistic regression)
H_INPUTS = 1  # inputs (769)
H_INCREMENTAL = 2  # 1: keep accumulators; 0: recompute layer 0 at every evaluation
H_ACC = 3  # offset of the accumulator rows
H_WIDTH = 4  # widest layer (the scratch rows' length)
H_DIFFS = 5  # offset of the per-ply move differences
H_TAGS = 6  # offset of the row tags
H_SIZES = 7  # the layer sizes, one slot each
MAX_LAYERS = 8
H_LINEAR = H_SIZES + MAX_LAYERS  # offset of a linear part's weights; 0: none
H_LINEAR_SET = H_LINEAR + 1  # the linear part's feature set id
H_ACTIVATION = H_LINEAR_SET + 1  # the hidden units' activation: TANH or CRELU
HEADER = H_ACTIVATION + 1

#: Hidden-unit activations (the header's codes, and the names files and options use).
TANH = 0
CRELU = 1  # clipped ReLU, min(max(x, 0), 1): NNUE's; a few cycles where tanh takes ~7 ns
ACTIVATIONS = {"tanh": TANH, "crelu": CRELU}

#: Accumulator rows, indexed by ply modulo this: more than any search's depth (MAX_PLY
#: is 96), a power of two so the index is a mask.
ACC_SLOTS = 128
_MASK = ACC_SLOTS - 1
#: Inputs one move switches at most: the mover off and on, a capture, a castling rook
#: off and on, and the side to move.
DIFF_WIDTH = 6
#: Bound on the terms of an accumulator sum while it is updated: a position has at most
#: 34 (bias, 32 pieces, side to move) and a move adds a few; a power of two above.
ACC_TERMS = 64


def quantize_first_layer(params: np.ndarray, inputs: int, size0: int) -> np.ndarray:
    """``params`` with layer 0 (weights and bias) rounded to the grid of the module
    docstring, so that accumulator sums are exact."""
    out = np.array(params, dtype=np.float64)
    n = (inputs + 1) * size0
    biggest = float(np.max(np.abs(out[:n]))) if n else 0.0
    if biggest > 0.0 and np.isfinite(biggest):
        e = math.ceil(math.log2(ACC_TERMS * biggest))
        quantum = 2.0 ** (e - 52)
        out[:n] = np.round(out[:n] / quantum) * quantum
    return out


def check_sizes(sizes: list[int]) -> None:
    """``ValueError`` unless ``sizes`` fit the compiled chess network."""
    check_layer_sizes(sizes, MAX_LAYERS)


def pack_network(
    params: np.ndarray,
    sizes: list[int],
    incremental: bool = True,
    linear: np.ndarray | None = None,
    linear_set: int = -1,
    activation: str = "tanh",
) -> np.ndarray:
    """The one array compiled code evaluates (layout in the module docstring);
    ``linear``: the weights of a linear part over feature set id ``linear_set``;
    ``activation``: a name of :data:`ACTIVATIONS`."""
    check_sizes(sizes)
    if activation not in ACTIVATIONS:
        raise ValueError(f"unknown activation {activation!r} (known: {', '.join(ACTIVATIONS)})")
    n_params = parameter_count(BITBOARD_SIZE, sizes)
    if params.shape != (n_params,):
        raise ValueError(f"{params.shape} parameters do not fit layers {sizes} ({n_params})")
    width = max(sizes)
    acc = HEADER + n_params
    diffs = acc + ACC_SLOTS * sizes[0] + 2 * width
    tags = diffs + ACC_SLOTS * DIFF_WIDTH
    end = tags + 2 * ACC_SLOTS
    extra = 0 if linear is None else linear.size
    buf = np.zeros(end + extra, dtype=np.float64)
    if linear is not None:
        if linear_set < 0:
            raise ValueError("a linear part needs its feature set")
        buf[H_LINEAR] = end
        buf[H_LINEAR_SET] = linear_set
        buf[end:] = linear
    buf[H_LAYERS] = len(sizes)
    buf[H_INPUTS] = BITBOARD_SIZE
    buf[H_INCREMENTAL] = 1.0 if incremental else 0.0
    buf[H_ACTIVATION] = ACTIVATIONS[activation]
    buf[H_ACC] = acc
    buf[H_WIDTH] = width
    buf[H_DIFFS] = diffs
    buf[H_TAGS] = tags
    buf[tags:end] = -1.0  # no row tagged yet: no key's half is negative
    buf[H_SIZES : H_SIZES + len(sizes)] = sizes
    buf[HEADER:acc] = params
    return buf


def packed_parameters(buf: np.ndarray) -> np.ndarray:
    """The parameter part of a packed network (a view: writing it changes the network;
    call :func:`invalidate_accumulators` after)."""
    return buf[HEADER : int(buf[H_ACC])]


@njit
def invalidate_accumulators(buf: np.ndarray) -> None:
    """Forget every accumulator row (after the parameters changed)."""
    tags = int(buf[H_TAGS])
    buf[tags : tags + 2 * ACC_SLOTS] = -1.0


@njit(inline="always")
def _add_column(dst: np.ndarray, buf: np.ndarray, col: int, sign: float) -> None:
    """``dst += sign * column``, the column of ``dst.size`` slots at ``col``. Views,
    not offsets into ``buf``: indices from ``range`` on a view need no wraparound
    test, so the loop vectorizes (twice as fast)."""
    src = buf[col : col + dst.size]
    for j in range(dst.size):
        dst[j] += sign * src[j]


@njit(inline="always")
def _copy_column(dst: np.ndarray, buf: np.ndarray, col: int) -> None:
    """``dst[:] = `` the ``dst.size`` slots at ``col`` (a loop: the runtime a slice
    assignment would allocate in is not compiled in)."""
    src = buf[col : col + dst.size]
    for j in range(dst.size):
        dst[j] = src[j]


@njit
def refresh_accumulator(pos: Position, buf: np.ndarray, row: int) -> None:
    """Layer 0's pre-activation of ``pos`` computed from scratch into ``row``."""
    size0 = int(buf[H_SIZES])
    inputs = int(buf[H_INPUTS])
    a = int(buf[H_ACC]) + row * size0
    dst = buf[a : a + size0]
    bias = HEADER + inputs * size0
    _copy_column(dst, buf, bias)
    for piece in range(12):
        pieces = pos.bb[piece]
        while pieces:
            _add_column(dst, buf, HEADER + (piece * 64 + lsb(pieces)) * size0, 1.0)
            pieces = pop_lsb(pieces)
    if pos.st[ST_SIDE] == WHITE:
        _add_column(dst, buf, HEADER + SIDE_TO_MOVE * size0, 1.0)


@njit(inline="always")
def _record(buf: np.ndarray, slot: int, n: int, feature: int, sign: float) -> int:
    buf[slot + n] = sign * (feature + 1)
    return n + 1


@njit(inline="always")
def move_inputs(pos: Position, ply: int) -> tuple[int, int, int, int, int, int]:
    """The inputs move ``ply - 1`` (from ``pos.hist``) switched, as feature indices
    (-1: none): the mover off and on, the piece it took, a castling rook off and on; and
    the move's code (0 for a null move, which only passes the turn)."""
    h = pos.hist[ply - 1]
    move = np.int64(h[H_MOVE])
    if move == 0:
        return 0, -1, -1, -1, -1, -1
    moved = np.int64(h[H_MOVED])
    us = moved // 6
    arrived = us * 6 + promotion_type(move) if is_promotion(move) else moved
    taken = -1
    captured = np.int64(h[H_CAPTURED])
    if captured != NO_PIECE:
        taken = captured * 64 + captured_square(move, us)
    rook_off = rook_on = -1
    if is_castling(move):
        rook = us * 6 + ROOK
        rook_from, rook_to = castling_rook_squares(move)
        rook_off, rook_on = rook * 64 + rook_from, rook * 64 + rook_to
    off = moved * 64 + move_from(move)
    on = arrived * 64 + move_to(move)
    return move, off, on, taken, rook_off, rook_on


@njit
def _record_step(pos: Position, buf: np.ndarray, ply: int, side: int) -> None:
    """Record the inputs that move ``ply - 1`` switched, as signed codes in the
    differences of ``ply`` (``side`` to move at ``ply``)."""
    slot = int(buf[H_DIFFS]) + (ply & _MASK) * DIFF_WIDTH
    n = 0
    move, off, on, taken, rook_off, rook_on = move_inputs(pos, ply)
    if move != 0:
        n = _record(buf, slot, n, off, -1.0)
        n = _record(buf, slot, n, on, 1.0)
        if taken >= 0:
            n = _record(buf, slot, n, taken, -1.0)
        if rook_off >= 0:
            n = _record(buf, slot, n, rook_off, -1.0)
            n = _record(buf, slot, n, rook_on, 1.0)
    n = _record(buf, slot, n, SIDE_TO_MOVE, 1.0 if side == WHITE else -1.0)
    for j in range(n, DIFF_WIDTH):
        buf[slot + j] = 0.0


@njit
def _apply_step(buf: np.ndarray, ply: int, sign: float) -> None:
    """Row ``ply`` from row ``ply - 1`` (``sign`` +1) or back (``sign`` -1)."""
    size0 = int(buf[H_SIZES])
    acc = int(buf[H_ACC])
    if sign > 0:
        src = acc + ((ply - 1) & _MASK) * size0
        dst = acc + (ply & _MASK) * size0
    else:
        src = acc + (ply & _MASK) * size0
        dst = acc + ((ply - 1) & _MASK) * size0
    row = buf[dst : dst + size0]
    _copy_column(row, buf, src)
    slot = int(buf[H_DIFFS]) + (ply & _MASK) * DIFF_WIDTH
    for i in range(DIFF_WIDTH):
        code = buf[slot + i]
        if code == 0.0:
            break
        s = sign if code > 0 else -sign
        _add_column(row, buf, HEADER + (int(abs(code)) - 1) * size0, s)


@njit(inline="always")
def _sub_add(dst: np.ndarray, buf: np.ndarray, off: int, on: int) -> None:
    """``dst += column on - column off``, the columns of ``dst.size`` slots."""
    a = buf[off : off + dst.size]
    b = buf[on : on + dst.size]
    for j in range(dst.size):
        dst[j] += b[j] - a[j]


@njit
def _step_from_parent(pos: Position, buf: np.ndarray, ply: int, side: int) -> None:
    """Row ``ply`` from row ``ply - 1`` by the move between them (``side`` to move at
    ``ply``): what :func:`_record_step` and :func:`_apply_step` do, with no differences
    written and one pass over the row for the usual case (the mover off and on, the
    side to move), one more for a capture and for castling. Every partial sum is on the
    grid (see :func:`quantize_first_layer`), so the row is the same float for float."""
    size0 = int(buf[H_SIZES])
    acc = int(buf[H_ACC])
    s = acc + ((ply - 1) & _MASK) * size0
    d = acc + (ply & _MASK) * size0
    src = buf[s : s + size0]
    dst = buf[d : d + size0]
    side_col = HEADER + SIDE_TO_MOVE * size0
    stm = buf[side_col : side_col + size0]
    sign = 1.0 if side == WHITE else -1.0
    move, off_f, on_f, taken, rook_off, rook_on = move_inputs(pos, ply)
    if move == 0:
        for j in range(size0):
            dst[j] = src[j] + sign * stm[j]
        return
    off = buf[HEADER + off_f * size0 : HEADER + (off_f + 1) * size0]
    on = buf[HEADER + on_f * size0 : HEADER + (on_f + 1) * size0]
    for j in range(size0):
        dst[j] = src[j] + sign * stm[j] + on[j] - off[j]
    if taken >= 0:
        _add_column(dst, buf, HEADER + taken * size0, -1.0)
    if rook_off >= 0:
        _sub_add(dst, buf, HEADER + rook_off * size0, HEADER + rook_on * size0)


@njit(inline="always")
def _tagged(buf: np.ndarray, t0: int, slot: int, key: np.uint64) -> bool:
    """Whether row ``slot`` is tagged with ``key``."""
    hi = float(key >> np.uint64(32))
    return buf[t0 + 2 * slot] == hi and buf[t0 + 2 * slot + 1] == float(key & np.uint64(0xFFFFFFFF))


@njit(inline="always")
def _tag(buf: np.ndarray, t0: int, slot: int, key: np.uint64) -> None:
    buf[t0 + 2 * slot] = float(key >> np.uint64(32))
    buf[t0 + 2 * slot + 1] = float(key & np.uint64(0xFFFFFFFF))


@njit(inline="always")
def accumulator_row(pos: Position, buf: np.ndarray) -> int:
    """The row holding ``pos``'s accumulator, brought up to date (see the module
    docstring); recomputed every time when the network is not incremental. The test
    of the row's tag is inlined into the caller; the update is a call."""
    ply = pos.st[ST_PLY]
    row = ply & _MASK
    if buf[H_INCREMENTAL] != 0.0 and _tagged(buf, int(buf[H_TAGS]), row, pos.keys[ply]):
        return row
    return _update_row(pos, buf)


@njit
def _update_row(pos: Position, buf: np.ndarray) -> int:
    """:func:`accumulator_row` for a row whose tag is not the position's key."""
    ply = pos.st[ST_PLY]
    row = ply & _MASK
    if buf[H_INCREMENTAL] == 0.0:
        refresh_accumulator(pos, buf, row)
        return row
    t0 = int(buf[H_TAGS])
    side = pos.st[ST_SIDE]
    if ply > 0 and _tagged(buf, t0, (ply - 1) & _MASK, pos.keys[ply - 1]):
        # the parent's row is up to date (the usual case in a search): one step from
        # it, in one pass over the row
        _step_from_parent(pos, buf, ply, side)
        _tag(buf, t0, row, pos.keys[ply])
        return row
    lowest = max(0, ply - _MASK)
    k = ply - 1
    while k >= lowest and not _tagged(buf, t0, k & _MASK, pos.keys[k]):
        k -= 1
    if k >= lowest:
        # forward from the tagged ancestor, a step from the parent each ply
        mover = side ^ ((ply - k - 1) & 1)  # to move at ply k + 1
        for j in range(k + 1, ply + 1):
            _step_from_parent(pos, buf, j, mover)
            _tag(buf, t0, j & _MASK, pos.keys[j])
            mover = 1 - mover
        return row
    # none: from scratch, then the ancestors' rows backwards from it
    refresh_accumulator(pos, buf, row)
    _tag(buf, t0, row, pos.keys[ply])
    for j in range(ply, lowest, -1):
        _record_step(pos, buf, j, side)
        side = 1 - side
        _apply_step(buf, j, -1.0)
        _tag(buf, t0, (j - 1) & _MASK, pos.keys[j - 1])
    return row


@njit(inline="always")
def activate(v: float, crelu: bool) -> float:
    """A hidden unit's output: clipped ReLU or tanh."""
    if crelu:
        return min(max(v, 0.0), 1.0)
    return np.tanh(v)


@njit(inline="always")
def _dot(w: np.ndarray, x: np.ndarray) -> float:
    """``sum w[j] x[j]`` over ``w.size`` in four interleaved partial sums, a fixed
    order whose four chains of multiply-adds run side by side (one chain waits on each
    addition before the next)."""
    n = w.size
    s0 = s1 = s2 = s3 = 0.0
    m = n - n % 4
    for j in range(0, m, 4):
        s0 += w[j] * x[j]
        s1 += w[j + 1] * x[j + 1]
        s2 += w[j + 2] * x[j + 2]
        s3 += w[j + 3] * x[j + 3]
    for j in range(m, n):
        s0 += w[j] * x[j]
    return (s0 + s1) + (s2 + s3)


@njit
def network_logit(buf: np.ndarray, row: int) -> float:
    """The rest of the network on accumulator ``row``: the output ``z_win - z_loss`` in
    white's frame (the activation after every layer but the last)."""
    layers = int(buf[H_LAYERS])
    size0 = int(buf[H_SIZES])
    a = int(buf[H_ACC]) + row * size0
    if layers == 1:
        return buf[a]
    crelu = buf[H_ACTIVATION] == CRELU
    width = int(buf[H_WIDTH])
    x0 = int(buf[H_ACC]) + ACC_SLOTS * size0  # the two scratch rows
    x = buf[x0 : x0 + width]
    y = buf[x0 + width : x0 + 2 * width]
    acc = buf[a : a + size0]
    for j in range(size0):
        x[j] = activate(acc[j], crelu)
    off = HEADER + (int(buf[H_INPUTS]) + 1) * size0
    fan_in = size0
    out = 0.0
    for k in range(1, layers):
        size = int(buf[H_SIZES + k])
        bias = off + size * fan_in
        last = k == layers - 1
        for i in range(size):
            s = buf[bias + i] + _dot(buf[off + i * fan_in : off + (i + 1) * fan_in], x)
            if last:
                out = s
            else:
                y[i] = activate(s, crelu)
        off = bias + size
        fan_in = size
        x, y = y, x
    return out


@njit(inline="always")
def network_value(pos: Position, buf: np.ndarray) -> float:
    """The network's output ``z_win - z_loss`` (white's frame) for ``pos``."""
    return network_logit(buf, accumulator_row(pos, buf))


def accumulator(buf: np.ndarray, row: int) -> np.ndarray:
    """A copy of accumulator ``row`` (for tests and tools)."""
    size0 = int(buf[H_SIZES])
    a = int(buf[H_ACC]) + row * size0
    return buf[a : a + size0].copy()
