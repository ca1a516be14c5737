"""Positions -> the arrays a dataset stores, through the compiled feature extractors.

There is one definition of each feature set, the compiled one the engine evaluates
with (:mod:`treestrap.evaluation.feature_sets`), so a model trained on a
dataset sees exactly the features the engine computes. A game is replayed on our own
core position: parsed once from its start FEN with
:func:`treestrap.core.notation.parse_fen`, then moved with ``make_move`` (about seven
times faster than parsing the FEN of every position, and the same position; the tests
check both routes agree).

Stored per position: the 769 ``bitboard`` indicators packed as bits (little bit order,
97 bytes), the active ``meep`` features as (index, value) pairs (side-to-move relative,
as the extractor gives them), the side to move and the ply.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from treestrap.core.makemove import make_move
from treestrap.core.notation import parse_fen, parse_uci_move
from treestrap.core.piece import WHITE
from treestrap.core.position import ST_SIDE
from treestrap.evaluation.feature_sets.bitboard import BITBOARD_SIZE, bitboard_features
from treestrap.evaluation.feature_sets.dispatch import MAX_ACTIVE
from treestrap.evaluation.feature_sets.meep import meep_features

#: Bytes of one packed bitboard vector: 769 bits rounded up to whole bytes.
PACKED_BYTES = (BITBOARD_SIZE + 7) // 8


@dataclass
class EncodedLine:
    """The positions of one line of play, in order (the start position first)."""

    bits: np.ndarray  # uint8 (n, PACKED_BYTES)
    meep_idx: np.ndarray  # int32, all positions concatenated
    meep_val: np.ndarray  # float32
    meep_count: np.ndarray  # int32 (n,): active meep features per position
    white_to_move: np.ndarray  # bool (n,)

    def __len__(self) -> int:
        return len(self.white_to_move)


def encode_line(start_fen: str, moves_uci: Sequence[str]) -> EncodedLine:
    """Every position from ``start_fen`` through each move, the last one included.

    Raises ``ValueError`` if our core refuses the start position or a move (python-chess
    accepted them, so this means a position our engine does not support).
    """
    pos = parse_fen(start_fen)
    n = len(moves_uci) + 1
    dense = np.zeros((n, BITBOARD_SIZE), dtype=np.uint8)
    white = np.zeros(n, dtype=bool)
    counts = np.zeros(n, dtype=np.int32)
    idx = np.zeros(MAX_ACTIVE, dtype=np.int32)
    val = np.zeros(MAX_ACTIVE, dtype=np.float64)
    meep_idx, meep_val = [], []
    for i in range(n):
        if i:
            make_move(pos, parse_uci_move(pos, moves_uci[i - 1]))
        k = bitboard_features(pos, idx, val)
        dense[i, idx[:k]] = 1
        k = meep_features(pos, idx, val)
        meep_idx.append(idx[:k].copy())
        meep_val.append(val[:k].astype(np.float32))
        counts[i] = k
        white[i] = pos.st[ST_SIDE] == WHITE
    return EncodedLine(
        bits=np.packbits(dense, axis=1, bitorder="little"),
        meep_idx=np.concatenate(meep_idx),
        meep_val=np.concatenate(meep_val),
        meep_count=counts,
        white_to_move=white,
    )


def unpack_bits(bits: np.ndarray) -> np.ndarray:
    """The (n, 769) 0/1 bitboard vectors of packed rows (the inverse of the packing)."""
    return np.unpackbits(bits, axis=1, count=BITBOARD_SIZE, bitorder="little")
