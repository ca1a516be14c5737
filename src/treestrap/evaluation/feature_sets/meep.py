"""The ``meep`` feature set: about 1800 sparse, mostly binary features in the spirit of
Meep (Veness et al. 2009, section 5): material, piece-square tables, pawn structure,
mobility and king safety, plus piece threats and a tempo bit.

Colour handling. Every feature is computed twice, once for each colour ``c`` from
``c``'s own point of view (squares mirrored vertically for black, so "rank 2" is always
the pawns' home rank), giving ``f_c(s)``. The feature vector is

    phi(s) = f_us(s) - f_them(s) + e_TEMPO        (us = the side to move)

so one weight vector serves both colours, the score ``theta . phi(s)`` is from the side
to move's point of view, and flipping the colours of a position (mirror the board, swap
the piece colours and the side to move) leaves phi unchanged: the white-relative score
is negated.

Index ranges (a per-phase block holds the opening, middlegame and endgame copies one
after the other; ``meep_feature_names()`` names every index, e.g.
``psqt/endgame/knight/f3``)::

    material      0 -    4      pawns       1158 - 1325     threats   1788 - 1823
    bishop_pair   5             mobility    1326 - 1550     hanging   1824 - 1828
    psqt          6 - 1157      king        1551 - 1787     tempo     1829

Specification (the tests hold an independent implementation of exactly this). For the
colour ``c``, with ``rel(sq) = sq`` for white and ``sq ^ 56`` for black, relative rank
``r = rel(sq) // 8``, file ``f = sq % 8``, and attacks computed on the full occupancy:

* phase ``p``: ``npm = #knights + #bishops + 2 #rooks + 4 #queens`` over both colours;
  ``p = 0`` if ``npm >= 17``, ``1`` if ``npm >= 9``, else ``2``. Blocks marked
  "per phase" have one copy per phase and only the copy of the current phase is active.
* ``material`` (5, values are counts): own pawns, knights, bishops, rooks, queens.
* ``bishop_pair`` (1): own bishops >= 2.
* ``psqt`` (per phase, 6 x 64): one per own piece at ``type * 64 + rel(sq)``.
* ``pawns`` (per phase, 56), one per own pawn unless said otherwise:
  passed by rank (6, index ``r - 1``): no enemy pawn ahead (relative rank > r) on files
  f-1..f+1; passed by file (8); passed with the square ahead empty, by rank (6); passed
  and defended by an own pawn, by rank (6); doubled (8): one per file holding two or
  more own pawns; isolated by file (8): no own pawn on adjacent files; backward by file
  (8): not isolated, no own pawn on adjacent files at relative rank <= r, and the square
  ahead attacked by an enemy pawn; connected by rank (6): an own pawn beside it on the
  same rank or defending it.
* ``mobility`` (per phase, 75): one per own knight, bishop, rook, queen, king at bucket
  ``popcount(attacks & ~own pieces)`` clipped to 8, 13, 14, 27, 8 (blocks of 9, 14,
  15, 28, 9).
* ``king`` (per phase, 79), about the own king on ``k`` (rank ``kr``, file ``kf``),
  zone = ``k`` and its neighbours:
  zone attackers (8): enemy knights/bishops/rooks/queens attacking the zone, clipped
  to 7; attack weight (16): sum over those pieces of attacked zone squares times 2, 2,
  3, 5 (N, B, R, Q), clipped to 15; shield (6, ``(df + 1) * 2 + dr - 1``): own pawn at
  file ``kf + df`` (df in -1, 0, 1), relative rank ``kr + dr`` (dr in 1, 2); storm
  (9, ``(df + 1) * 3 + dr - 1``): enemy pawn at file ``kf + df``, rank ``kr + dr``
  (dr in 1..3); open files (6, ``(df + 1) * 2 + kind``): file ``kf + df`` without own
  pawns, kind 0 if it has no enemy pawn either, 1 if it has; castling (2): own
  king-side, queen-side right; tropism (32, ``type * 8 + d``): one per enemy knight,
  bishop, rook, queen (type 0..3) at king distance ``d`` (Chebyshev).
* ``threats`` (41): ``a * 6 + v`` counts the own pieces of type ``a`` attack of enemy
  pieces of type ``v`` (pawn .. king; 36); hanging (5): own pawn..queen attacked by an
  enemy piece and defended by none of ours.
* ``tempo`` (1): the side to move.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from treestrap.core.attacks import (
    bishop_attacks,
    king_attacks,
    knight_attacks,
    pawn_attacks,
    rook_attacks,
)
from treestrap.core.bitboard import (
    EMPTY,
    FILE_A,
    FULL,
    lsb,
    pop_lsb,
    popcount,
    shift_east,
    shift_north,
    shift_south,
    shift_west,
    square_bb,
)
from treestrap.core.jit import njit
from treestrap.core.piece import BISHOP, KING, KNIGHT, PAWN, QUEEN, ROOK, WHITE
from treestrap.core.position import OCC_WHITE, ST_CASTLING, ST_SIDE, Position
from treestrap.evaluation.feature_sets.feature_set import PERSPECTIVE_SIDE_TO_MOVE, FeatureSet
from treestrap.evaluation.feature_sets.sink import emit

# --- layout ------------------------------------------------------------------------
PHASE_NB = 3
MATERIAL = 0
BISHOP_PAIR = 5
PSQT = 6
PSQT_SIZE = 6 * 64
PAWNS = PSQT + PHASE_NB * PSQT_SIZE
PAWNS_SIZE = 56
P_PASSED_RANK, P_PASSED_FILE, P_PASSED_FREE, P_PASSED_DEFENDED = 0, 6, 14, 20
P_DOUBLED, P_ISOLATED, P_BACKWARD, P_CONNECTED = 26, 34, 42, 50
MOBILITY = PAWNS + PHASE_NB * PAWNS_SIZE
MOBILITY_SIZE = 75
#: Mobility block start and largest bucket per piece type (pawn has none).
MOBILITY_BASE = (0, 0, 9, 23, 38, 66)
MOBILITY_CAP = (0, 8, 13, 14, 27, 8)
KING_SAFETY = MOBILITY + PHASE_NB * MOBILITY_SIZE
KING_SIZE = 79
K_ZONE_ATTACKERS, K_ATTACK_WEIGHT, K_SHIELD, K_STORM = 0, 8, 24, 30
K_OPEN, K_CASTLING, K_TROPISM = 39, 45, 47
#: Weight of each attacked king-zone square by attacker type (N, B, R, Q): the usual
#: ordering of how dangerous a piece near the king is.
ZONE_WEIGHT = (0, 2, 2, 3, 5, 0)
THREATS = KING_SAFETY + PHASE_NB * KING_SIZE
THREATS_SIZE = 41
HANGING = THREATS + 36
TEMPO = THREATS + THREATS_SIZE
MEEP_SIZE = TEMPO + 1

#: Most (index, value) pairs one extraction can write: per colour at most 6 material,
#: 16 psqt, 56 pawn, 16 mobility, 40 king, 96 threat and 16 hanging entries (246),
#: times two, plus tempo; rounded up.
MEEP_MAX_ACTIVE = 512


def meep_feature_names() -> list[str]:
    """One readable name per feature index, e.g. ``psqt/mg/knight/f3``."""
    types = ["pawn", "knight", "bishop", "rook", "queen", "king"]
    squares = [f + r for r in "12345678" for f in "abcdefgh"]
    phases = ["opening", "middlegame", "endgame"]
    names = [f"material/{t}" for t in types[:5]] + ["bishop_pair"]
    for ph in phases:
        names += [f"psqt/{ph}/{t}/{sq}" for t in types for sq in squares]
    for ph in phases:
        names += [f"pawns/{ph}/passed_rank/{r}" for r in range(2, 8)]
        names += [f"pawns/{ph}/passed_file/{f}" for f in "abcdefgh"]
        names += [f"pawns/{ph}/passed_free_rank/{r}" for r in range(2, 8)]
        names += [f"pawns/{ph}/passed_defended_rank/{r}" for r in range(2, 8)]
        names += [f"pawns/{ph}/doubled/{f}" for f in "abcdefgh"]
        names += [f"pawns/{ph}/isolated/{f}" for f in "abcdefgh"]
        names += [f"pawns/{ph}/backward/{f}" for f in "abcdefgh"]
        names += [f"pawns/{ph}/connected_rank/{r}" for r in range(2, 8)]
    for ph in phases:
        for t in range(1, 6):
            names += [f"mobility/{ph}/{types[t]}/{m}" for m in range(MOBILITY_CAP[t] + 1)]
    for ph in phases:
        names += [f"king/{ph}/zone_attackers/{n}" for n in range(8)]
        names += [f"king/{ph}/attack_weight/{n}" for n in range(16)]
        names += [f"king/{ph}/shield/{df:+d}/{dr}" for df in (-1, 0, 1) for dr in (1, 2)]
        names += [f"king/{ph}/storm/{df:+d}/{dr}" for df in (-1, 0, 1) for dr in (1, 2, 3)]
        names += [
            f"king/{ph}/{kind}_file/{df:+d}" for df in (-1, 0, 1) for kind in ("open", "half_open")
        ]
        names += [f"king/{ph}/castling/{side}" for side in ("king_side", "queen_side")]
        names += [f"king/{ph}/tropism/{t}/{d}" for t in types[1:5] for d in range(8)]
    names += [f"threats/{a}_attacks_{v}" for a in types for v in types]
    names += [f"threats/hanging/{t}" for t in types[:5]]
    names += ["tempo"]
    assert len(names) == MEEP_SIZE
    return names


# --- extraction --------------------------------------------------------------------


@njit(inline="always")
def _attacks(T: np.ndarray, ptype: int, color: int, sq: int, occ: np.uint64) -> np.uint64:
    if ptype == PAWN:
        return pawn_attacks(T, color, sq)
    if ptype == KNIGHT:
        return knight_attacks(T, sq)
    if ptype == BISHOP:
        return bishop_attacks(T, sq, occ)
    if ptype == ROOK:
        return rook_attacks(T, sq, occ)
    if ptype == QUEEN:
        return rook_attacks(T, sq, occ) | bishop_attacks(T, sq, occ)
    return king_attacks(T, sq)


@njit(inline="always")
def _file_bb(f: int) -> np.uint64:
    return FILE_A << np.uint64(f)


@njit(inline="always")
def _adjacent_files(f: int) -> np.uint64:
    bb = EMPTY
    if f > 0:
        bb |= _file_bb(f - 1)
    if f < 7:
        bb |= _file_bb(f + 1)
    return bb


@njit(inline="always")
def _rel_rank(color: int, sq: int) -> int:
    return (sq >> 3) if color == WHITE else 7 - (sq >> 3)


@njit(inline="always")
def _ranks_ahead(color: int, rank: int) -> np.uint64:
    """Squares on (absolute) ranks strictly ahead of ``rank`` for ``color``."""
    if color == WHITE:
        return FULL << np.uint64(8 * (rank + 1)) if rank < 7 else EMPTY
    return FULL >> np.uint64(8 * (8 - rank)) if rank > 0 else EMPTY


@njit(inline="always")
def _ranks_not_ahead(color: int, rank: int) -> np.uint64:
    """Squares on ranks at or behind ``rank`` for ``color``."""
    return ~_ranks_ahead(color, rank)


@njit(inline="always")
def _pawn_attack_set(pawns: np.uint64, color: int) -> np.uint64:
    """Every square the ``pawns`` of ``color`` attack (the union of their attacks)."""
    ahead = shift_north(pawns) if color == WHITE else shift_south(pawns)
    return shift_east(ahead) | shift_west(ahead)


@njit
def _pawn_features(
    pos: Position, c: int, p: int, sign: float, idx: np.ndarray, val: np.ndarray, n: Any
) -> Any:
    bb = pos.bb
    o = 1 - c
    own = bb[c * 6 + PAWN]
    enemy = bb[o * 6 + PAWN]
    occ = bb[OCC_WHITE] | bb[OCC_WHITE + 1]
    base = PAWNS + p * PAWNS_SIZE
    own_att = _pawn_attack_set(own, c)
    enemy_att = _pawn_attack_set(enemy, o)
    for f in range(8):
        if popcount(own & _file_bb(f)) >= 2:
            n = emit(idx, val, n, base + P_DOUBLED + f, sign)
    pawns = own
    while pawns:
        sq = lsb(pawns)
        pawns = pop_lsb(pawns)
        f = sq & 7
        rank = sq >> 3
        r = _rel_rank(c, sq)
        b = square_bb(sq)
        ahead = _ranks_ahead(c, rank)
        span = (_file_bb(f) | _adjacent_files(f)) & ahead
        stop = sq + 8 if c == WHITE else sq - 8
        defended = (own_att & b) != EMPTY
        if not (enemy & span):
            n = emit(idx, val, n, base + P_PASSED_RANK + r - 1, sign)
            n = emit(idx, val, n, base + P_PASSED_FILE + f, sign)
            if not (occ & square_bb(stop)):
                n = emit(idx, val, n, base + P_PASSED_FREE + r - 1, sign)
            if defended:
                n = emit(idx, val, n, base + P_PASSED_DEFENDED + r - 1, sign)
        neighbours = own & _adjacent_files(f)
        if not neighbours:
            n = emit(idx, val, n, base + P_ISOLATED + f, sign)
        elif not (neighbours & _ranks_not_ahead(c, rank)) and (enemy_att & square_bb(stop)):
            n = emit(idx, val, n, base + P_BACKWARD + f, sign)
        rank_bb = np.uint64(0xFF) << np.uint64(8 * rank)
        if defended or (neighbours & rank_bb):
            n = emit(idx, val, n, base + P_CONNECTED + r - 1, sign)
    return n


@njit
def _king_features(
    pos: Position,
    c: int,
    p: int,
    sign: float,
    zone_attackers: int,
    zone_weight: int,
    idx: np.ndarray,
    val: np.ndarray,
    n: Any,
) -> Any:
    bb = pos.bb
    o = 1 - c
    base = KING_SAFETY + p * KING_SIZE
    ksq = lsb(bb[c * 6 + KING])
    kf = ksq & 7
    kr = _rel_rank(c, ksq)
    own_pawns = bb[c * 6 + PAWN]
    enemy_pawns = bb[o * 6 + PAWN]
    n = emit(idx, val, n, base + K_ZONE_ATTACKERS + min(zone_attackers, 7), sign)
    n = emit(idx, val, n, base + K_ATTACK_WEIGHT + min(zone_weight, 15), sign)
    for df in range(-1, 2):
        g = kf + df
        if g < 0 or g > 7:
            continue
        for dr in range(1, 4):
            rr = kr + dr
            if rr > 7:
                break
            abs_rank = rr if c == WHITE else 7 - rr
            s = square_bb(abs_rank * 8 + g)
            if dr <= 2 and own_pawns & s:
                n = emit(idx, val, n, base + K_SHIELD + (df + 1) * 2 + dr - 1, sign)
            if enemy_pawns & s:
                n = emit(idx, val, n, base + K_STORM + (df + 1) * 3 + dr - 1, sign)
        if not (own_pawns & _file_bb(g)):
            kind = 1 if enemy_pawns & _file_bb(g) else 0
            n = emit(idx, val, n, base + K_OPEN + (df + 1) * 2 + kind, sign)
    rights = pos.st[ST_CASTLING]
    if rights & (1 << (2 * c)):
        n = emit(idx, val, n, base + K_CASTLING, sign)
    if rights & (2 << (2 * c)):
        n = emit(idx, val, n, base + K_CASTLING + 1, sign)
    for t in range(KNIGHT, KING):
        pieces = bb[o * 6 + t]
        while pieces:
            sq = lsb(pieces)
            pieces = pop_lsb(pieces)
            d = max(abs((sq & 7) - kf), abs((sq >> 3) - (ksq >> 3)))
            n = emit(idx, val, n, base + K_TROPISM + (t - KNIGHT) * 8 + d, sign)
    return n


@njit(inline="always")
def _phase(bb: np.ndarray) -> int:
    """0 opening, 1 middlegame, 2 endgame, by the non-pawn material on the board."""
    npm = (
        popcount(bb[KNIGHT] | bb[6 + KNIGHT] | bb[BISHOP] | bb[6 + BISHOP])
        + 2 * popcount(bb[ROOK] | bb[6 + ROOK])
        + 4 * popcount(bb[QUEEN] | bb[6 + QUEEN])
    )
    return 0 if npm >= 17 else (1 if npm >= 9 else 2)


@njit(inline="always")
def _material(bb: np.ndarray, c: int, sign: float, idx: np.ndarray, val: np.ndarray, n: Any) -> Any:
    """Colour ``c``'s material counts and bishop pair."""
    for t in range(5):
        cnt = popcount(bb[c * 6 + t])
        if cnt:
            n = emit(idx, val, n, MATERIAL + t, sign * cnt)
    if popcount(bb[c * 6 + BISHOP]) >= 2:
        n = emit(idx, val, n, BISHOP_PAIR, sign)
    return n


@njit
def _pressure(pos: Position, c: int, occ: np.uint64) -> tuple[np.uint64, int, int]:
    """Squares colour ``c`` attacks, and its knights/bishops/rooks/queens attacking the
    enemy king zone: (attacked, how many pieces, weighted attacked zone squares)."""
    T = pos.tables
    bb = pos.bb
    eksq = lsb(bb[(1 - c) * 6 + KING])
    zone = king_attacks(T, eksq) | square_bb(eksq)
    attacked = _pawn_attack_set(bb[c * 6 + PAWN], c)
    count = 0
    weight = 0
    for t in range(KNIGHT, KING + 1):
        pieces = bb[c * 6 + t]
        while pieces:
            sq = lsb(pieces)
            pieces = pop_lsb(pieces)
            att = _attacks(T, t, c, sq, occ)
            attacked |= att
            if KNIGHT <= t <= QUEEN and att & zone:
                count += 1
                weight += popcount(att & zone) * ZONE_WEIGHT[t]
    return attacked, count, weight


@njit
def _meep(pos: Position, idx: np.ndarray, val: np.ndarray, n: Any) -> Any:
    """phi(s) into the sink of :mod:`~treestrap.evaluation.feature_sets.sink` that
    ``(idx, val, n)`` is: pairs from ``n = 0`` or a score from ``n = 0.0``."""
    T = pos.tables
    bb = pos.bb
    us = pos.st[ST_SIDE]
    occ = bb[OCC_WHITE] | bb[OCC_WHITE + 1]
    p = _phase(bb)

    # Pass 1: each side's attacked squares, and its pressure on the enemy king zone.
    att_w, zone_n_w, zone_w_w = _pressure(pos, WHITE, occ)
    att_b, zone_n_b, zone_w_b = _pressure(pos, 1 - WHITE, occ)

    # Pass 2: features of each side, added for the side to move, subtracted for the other.
    for c in range(2):
        o = 1 - c
        sign = 1.0 if c == us else -1.0
        own_occ = bb[OCC_WHITE + c]
        enemy_occ = bb[OCC_WHITE + o]
        own_att, enemy_att = (att_w, att_b) if c == WHITE else (att_b, att_w)
        enemy_zone_n, enemy_zone_w = (zone_n_b, zone_w_b) if c == WHITE else (zone_n_w, zone_w_w)
        n = _material(bb, c, sign, idx, val, n)
        mirror = 0 if c == WHITE else 56
        for t in range(6):
            pieces = bb[c * 6 + t]
            while pieces:
                sq = lsb(pieces)
                pieces = pop_lsb(pieces)
                n = emit(idx, val, n, PSQT + p * PSQT_SIZE + t * 64 + (sq ^ mirror), sign)
                att = _attacks(T, t, c, sq, occ)
                if t != PAWN:
                    m = min(popcount(att & ~own_occ), MOBILITY_CAP[t])
                    n = emit(idx, val, n, MOBILITY + p * MOBILITY_SIZE + MOBILITY_BASE[t] + m, sign)
                if att & enemy_occ:  # most pieces attack no enemy: skip the six tests
                    for v in range(6):
                        k = popcount(att & bb[o * 6 + v])
                        if k:
                            n = emit(idx, val, n, THREATS + t * 6 + v, sign * k)
                if t != KING and (enemy_att & square_bb(sq)) and not (own_att & square_bb(sq)):
                    n = emit(idx, val, n, HANGING + t, sign)
        n = _pawn_features(pos, c, p, sign, idx, val, n)
        n = _king_features(pos, c, p, sign, enemy_zone_n, enemy_zone_w, idx, val, n)
    n = emit(idx, val, n, TEMPO, 1.0)
    return n


@njit
def meep_features(pos: Position, idx: np.ndarray, val: np.ndarray) -> int:
    """Write phi(s) as (index, value) pairs into ``idx``/``val`` (at least
    ``MEEP_MAX_ACTIVE`` long); returns the count. An index may repeat: values add."""
    return _meep(pos, idx, val, 0)


@njit
def meep_score(pos: Position, weights: np.ndarray) -> float:
    """theta . phi(s) for the side to move, equal bit for bit to the sum over
    :func:`meep_features`' pairs in their order (``idx`` is unused by a score sink)."""
    return _meep(pos, weights, weights, 0.0)


@njit
def meep_material_score(pos: Position, weights: np.ndarray) -> float:
    """The material, bishop pair, piece-square and tempo terms of theta . phi(s): the
    part a lazy evaluation estimates the whole score by (the rest, mobility, threats,
    pawn structure and king safety, costs ten times as much to extract)."""
    bb = pos.bb
    us = pos.st[ST_SIDE]
    p = _phase(bb)
    score = weights[TEMPO]
    for c in range(2):
        sign = 1.0 if c == us else -1.0
        score = _material(bb, c, sign, weights, weights, score)
        mirror = 0 if c == WHITE else 56
        for t in range(6):
            pieces = bb[c * 6 + t]
            while pieces:
                sq = lsb(pieces)
                pieces = pop_lsb(pieces)
                score += weights[PSQT + p * PSQT_SIZE + t * 64 + (sq ^ mirror)] * sign
    return score


# Scores are for the side to move already (see the module docstring), so a linear
# model's gradient is phi(s) itself.
FEATURE_SET = FeatureSet(
    name="meep",
    size=MEEP_SIZE,
    max_active=MEEP_MAX_ACTIVE,
    perspective=PERSPECTIVE_SIDE_TO_MOVE,
    description="material, piece-square tables, pawn structure, mobility, king safety, threats",
    feature_names=meep_feature_names,
    extract=meep_features,
    gradient=meep_features,
    score=meep_score,
)
