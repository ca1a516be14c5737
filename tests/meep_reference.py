"""An independent, plain-Python reference implementation of the ``meep`` feature set.

Written from the specification in the docstring of
:mod:`treestrap.evaluation.feature_sets.meep` and its layout constants only (not from
the compiled extractor), with python-chess doing all the chess work, so that the two
can be compared feature by feature.

Interpretations of points the specification leaves open (each marked ``[I1]`` ..
in the code below):

* [I1] "Relative rank" of any square (own or enemy piece) is always taken in the
  frame of the colour ``c`` whose features are computed: ``rel(sq) // 8`` with
  ``rel(sq) = sq ^ 56`` for black. This applies to "ahead" in passed pawns, the
  backward-pawn rank test and to the king storm ranks (``kr + dr`` is a relative rank).
* [I2] "Defended by an own pawn" / "defending it": an own pawn whose attack set
  contains the pawn's square.
* [I3] "The square ahead" of a pawn is one step towards promotion on the same file;
  "empty" means no piece of either colour.
* [I4] Doubled pawns: one entry (value 1) per file holding two or more own pawns, not
  one per pawn. Isolated and backward pawns are one per pawn (two isolated pawns on a
  file give the value 2).
* [I5] King zone attackers and attack weight are one-hot buckets that are *always*
  written, bucket 0 included (no attacker gives bucket 0, value 1), like mobility.
  An attacker counts when its attack set meets the zone; its weight contribution is
  ``popcount(attacks & zone) * ZONE_WEIGHT[type]``.
* [I6] Shield, storm and open-file entries whose file (or relative rank) falls off the
  board are simply absent. Each present pawn / file gives value 1.
* [I7] Castling rights are python-chess's (clean) rights of the colour.
* [I8] Threats ``a * 6 + v`` count (attacker, victim) pairs: for every own piece of
  type ``a``, the number of enemy pieces of type ``v`` in its attack set, summed. (Not
  the popcount of the union of all type-``a`` attacks: two own knights attacking the
  same enemy rook count 2.) King-attacks-king can never happen in a legal position.
* [I9] Hanging: per own pawn..queen (value = count), attacked by at least one enemy
  piece (king and pawns included) and attacked by none of the own pieces (king and
  pawns included), attacks on the full occupancy (no x-rays).
* [I10] Tempo appears in neither ``f_us`` nor ``f_them``; ``phi[TEMPO] = 1`` always.
"""

from __future__ import annotations

import chess
import numpy as np

from treestrap.evaluation.feature_sets import meep as M

PIECE_TYPES = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING)


def _t(piece_type: int) -> int:
    """python-chess piece type (1..6) -> meep type index (0 = pawn .. 5 = king)."""
    return piece_type - 1


def rel(color: chess.Color, sq: int) -> int:
    return sq if color == chess.WHITE else sq ^ 56


def rel_rank(color: chess.Color, sq: int) -> int:
    return rel(color, sq) // 8


def from_rel(color: chess.Color, rank: int, file: int) -> int:
    """The absolute square at relative ``rank`` and ``file`` for ``color``."""
    return rel(color, rank * 8 + file)


def phase(board: chess.Board) -> int:
    npm = 0
    for c in chess.COLORS:
        npm += len(board.pieces(chess.KNIGHT, c)) + len(board.pieces(chess.BISHOP, c))
        npm += 2 * len(board.pieces(chess.ROOK, c)) + 4 * len(board.pieces(chess.QUEEN, c))
    if npm >= 17:
        return 0
    if npm >= 9:
        return 1
    return 2


def _attack_union(board: chess.Board, color: chess.Color) -> int:
    bb = 0
    for sq in chess.SquareSet(board.occupied_co[color]):
        bb |= int(board.attacks(sq))
    return bb


def _pawn_features(board: chess.Board, c: chess.Color, p: int, f: np.ndarray) -> None:
    base = M.PAWNS + p * M.PAWNS_SIZE
    own = list(board.pieces(chess.PAWN, c))
    enemy = list(board.pieces(chess.PAWN, not c))
    enemy_pawn_attacks = 0
    for e in enemy:
        enemy_pawn_attacks |= int(board.attacks(e))
    for sq in own:
        file, r = chess.square_file(sq), rel_rank(c, sq)
        ahead = from_rel(c, r + 1, file)  # [I3]; r <= 6 for a pawn so it exists
        defended = any(sq in board.attacks(o) for o in own if o != sq)  # [I2]
        passed = not any(
            abs(chess.square_file(e) - file) <= 1 and rel_rank(c, e) > r  # [I1]
            for e in enemy
        )
        if passed:
            f[base + M.P_PASSED_RANK + r - 1] += 1
            f[base + M.P_PASSED_FILE + file] += 1
            if board.piece_at(ahead) is None:
                f[base + M.P_PASSED_FREE + r - 1] += 1
            if defended:
                f[base + M.P_PASSED_DEFENDED + r - 1] += 1
        adjacent = [o for o in own if abs(chess.square_file(o) - file) == 1]
        isolated = not adjacent
        if isolated:
            f[base + M.P_ISOLATED + file] += 1
        if (
            not isolated
            and not any(rel_rank(c, o) <= r for o in adjacent)
            and enemy_pawn_attacks & chess.BB_SQUARES[ahead]
        ):
            f[base + M.P_BACKWARD + file] += 1
        beside = any(rel_rank(c, o) == r for o in adjacent)
        if beside or defended:
            f[base + M.P_CONNECTED + r - 1] += 1
    for file in range(8):  # [I4]
        if sum(1 for o in own if chess.square_file(o) == file) >= 2:
            f[base + M.P_DOUBLED + file] += 1


def _mobility_features(board: chess.Board, c: chess.Color, p: int, f: np.ndarray) -> None:
    base = M.MOBILITY + p * M.MOBILITY_SIZE
    own_occ = board.occupied_co[c]
    for pt in PIECE_TYPES[1:]:
        t = _t(pt)
        for sq in board.pieces(pt, c):
            m = bin(int(board.attacks(sq)) & ~own_occ & chess.BB_ALL).count("1")
            f[base + M.MOBILITY_BASE[t] + min(m, M.MOBILITY_CAP[t])] += 1


def _king_features(board: chess.Board, c: chess.Color, p: int, f: np.ndarray) -> None:
    base = M.KING_SAFETY + p * M.KING_SIZE
    k = board.king(c)
    assert k is not None
    kf, kr = chess.square_file(k), rel_rank(c, k)
    zone = chess.BB_KING_ATTACKS[k] | chess.BB_SQUARES[k]
    attackers = weight = 0
    for pt in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN):
        for sq in board.pieces(pt, not c):
            hit = int(board.attacks(sq)) & zone
            if hit:
                attackers += 1
                weight += bin(hit).count("1") * M.ZONE_WEIGHT[_t(pt)]
            # tropism: type 0..3 = knight..queen, Chebyshev distance
            f[base + M.K_TROPISM + (_t(pt) - 1) * 8 + chess.square_distance(k, sq)] += 1
    f[base + M.K_ZONE_ATTACKERS + min(attackers, 7)] += 1  # [I5]
    f[base + M.K_ATTACK_WEIGHT + min(weight, 15)] += 1
    own_pawns = board.pieces_mask(chess.PAWN, c)
    enemy_pawns = board.pieces_mask(chess.PAWN, not c)
    for df in (-1, 0, 1):
        file = kf + df
        if not 0 <= file <= 7:  # [I6]
            continue
        for dr in (1, 2):
            rank = kr + dr
            if rank <= 7 and own_pawns & chess.BB_SQUARES[from_rel(c, rank, file)]:
                f[base + M.K_SHIELD + (df + 1) * 2 + dr - 1] += 1
        for dr in (1, 2, 3):
            rank = kr + dr  # [I1] relative rank
            if rank <= 7 and enemy_pawns & chess.BB_SQUARES[from_rel(c, rank, file)]:
                f[base + M.K_STORM + (df + 1) * 3 + dr - 1] += 1
        if not own_pawns & chess.BB_FILES[file]:
            kind = 1 if enemy_pawns & chess.BB_FILES[file] else 0
            f[base + M.K_OPEN + (df + 1) * 2 + kind] += 1
    if board.has_kingside_castling_rights(c):  # [I7]
        f[base + M.K_CASTLING + 0] += 1
    if board.has_queenside_castling_rights(c):
        f[base + M.K_CASTLING + 1] += 1


def _threat_features(board: chess.Board, c: chess.Color, f: np.ndarray) -> None:
    for apt in PIECE_TYPES:  # [I8]
        for sq in board.pieces(apt, c):
            att = int(board.attacks(sq))
            for vpt in PIECE_TYPES:
                count = bin(att & board.pieces_mask(vpt, not c)).count("1")
                f[M.THREATS + _t(apt) * 6 + _t(vpt)] += count
    own_att = _attack_union(board, c)
    enemy_att = _attack_union(board, not c)
    for pt in PIECE_TYPES[:5]:  # [I9]
        for sq in board.pieces(pt, c):
            bit = chess.BB_SQUARES[sq]
            if enemy_att & bit and not own_att & bit:
                f[M.HANGING + _t(pt)] += 1


def colour_features(board: chess.Board, c: chess.Color, p: int) -> np.ndarray:
    """``f_c(s)`` for the colour ``c`` in phase ``p`` (dense, float64)."""
    f = np.zeros(M.MEEP_SIZE, dtype=np.float64)
    for pt in PIECE_TYPES[:5]:
        f[M.MATERIAL + _t(pt)] = len(board.pieces(pt, c))
    if len(board.pieces(chess.BISHOP, c)) >= 2:
        f[M.BISHOP_PAIR] = 1
    for pt in PIECE_TYPES:
        for sq in board.pieces(pt, c):
            f[M.PSQT + p * M.PSQT_SIZE + _t(pt) * 64 + rel(c, sq)] += 1
    _pawn_features(board, c, p, f)
    _mobility_features(board, c, p, f)
    _king_features(board, c, p, f)
    _threat_features(board, c, f)
    return f


def reference_meep(board: chess.Board) -> np.ndarray:
    """Dense ``phi(s) = f_us(s) - f_them(s) + e_TEMPO`` (float64, length MEEP_SIZE)."""
    p = phase(board)
    us = board.turn
    phi = colour_features(board, us, p) - colour_features(board, not us, p)
    phi[M.TEMPO] += 1.0  # [I10]
    return phi
