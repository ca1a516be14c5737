"""From a dataset split to model inputs: one encoding per ``--features`` choice.

A split keeps positions compact (bitboard bits packed, meep features sparse); batches are
made dense only when a model needs them, so a 680,000-position split stays a few hundred
megabytes. Every encoding is a flat float32 vector; the ConvNet turns the ``bitboard``
vector into planes itself (:func:`to_planes`).

=================  =====  ======  ==========================================================
features           size   frame   inputs
=================  =====  ======  ==========================================================
``bitboard``        769   white   12 x 64 piece-square bits in absolute colours, then white
                                  to move (the compiled ``bitboard`` feature set, unpacked)
``meep``           1830   mover   the compiled ``meep`` features, already side-to-move
                                  relative (``f_us - f_them``, tempo always 1)
``bitboard+meep``  2599   mover   the bitboard bits *seen from the side to move*
                                  (``flip_pieces`` applied when black is to move, the
                                  white-to-move bit left as it is), then the meep features
``stockfish``         2   white   Stockfish's score for white / 1000 (Serban's scaling,
                                  section 6.5 note 12), clipped to +-10, and white to move
=================  =====  ======  ==========================================================

Frames. A model predicts three classes in the frame of its inputs. In the *white* frame
they are the dataset's labels (0 white wins, 1 draw, 2 black wins). In the *mover* frame
they are 0 the side to move wins, 1 draw, 2 the side to move loses: a linear model over
side-to-move features can only say "the mover is better", never "white is better", so
its target must be relative too. :func:`to_frame` maps labels into a frame; the same map
brings predictions back (it is its own inverse), so accuracies and contingency tables are
always counted on white / draw / black.

Colour flipping. Flipping a position's colours (mirror the board vertically, swap the
colours of all pieces and the side to move; python-chess ``Board.mirror``) maps the
``bitboard`` encoding by :func:`~treestrap.evaluation.colour_flip.flip_bitboard`: index
``piece * 64 + square`` goes to ``((piece + 6) % 12) * 64 + (square ^ 56)`` and the
white-to-move bit is inverted. The meep features do not change at all, and neither does
the bitboard part of ``bitboard+meep``; only its white-to-move bit is inverted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from treestrap.evaluation.colour_flip import flip_pieces
from treestrap.evaluation.feature_sets import get_feature_set
from treestrap.evaluation.feature_sets.bitboard import BITBOARD_SIZE, SIDE_TO_MOVE
from treestrap.evaluation.feature_sets.meep import MEEP_SIZE
from treestrap.supervised.errors import SupervisedError
from treestrap.supervised.torch_required import require_torch

if TYPE_CHECKING:
    from torch import Tensor

#: Serban scales Stockfish's centipawns by 1e-3 "to avoid arithmetic overflow" (6.5, note
#: 12); the clip keeps mate scores (tens of thousands of centipawns) from dominating a fit
#: whose decisive range is a few pawns.
STOCKFISH_SCALE = 1e-3
STOCKFISH_CLIP = 10.0

WHITE_FRAME = "white"
MOVER_FRAME = "mover"

#: The twelve piece planes: piece codes 0..11 (white pawn .. black king).
PIECE_PLANES = 12


class SplitLike(Protocol):
    """What encoders read from :class:`treestrap.supervised.dataset.store.Split`."""

    bits: np.ndarray
    meep_idx: np.ndarray
    meep_val: np.ndarray
    meep_start: np.ndarray
    white_to_move: np.ndarray
    ply: np.ndarray
    result: np.ndarray
    sf_score: np.ndarray | None

    def __len__(self) -> int: ...


@dataclass(frozen=True)
class Encoding:
    """A ``--features`` choice: its input size, its frame, the feature sets it reads."""

    name: str
    size: int
    frame: str
    feature_sets: tuple[str, ...]

    def layout_hashes(self) -> dict[str, str]:
        """Layout hash of every compiled feature set this encoding reads (this build's)."""
        return {fs: get_feature_set(fs).layout_hash for fs in self.feature_sets}


ENCODINGS: dict[str, Encoding] = {
    "bitboard": Encoding("bitboard", BITBOARD_SIZE, WHITE_FRAME, ("bitboard",)),
    "meep": Encoding("meep", MEEP_SIZE, MOVER_FRAME, ("meep",)),
    "bitboard+meep": Encoding(
        "bitboard+meep", BITBOARD_SIZE + MEEP_SIZE, MOVER_FRAME, ("bitboard", "meep")
    ),
    "stockfish": Encoding("stockfish", 2, WHITE_FRAME, ()),
}


class EncodingError(SupervisedError):
    """A split that cannot be encoded as asked, and why."""


def get_encoding(name: str) -> Encoding:
    try:
        return ENCODINGS[name]
    except KeyError:
        known = ", ".join(ENCODINGS)
        raise EncodingError(f"unknown features {name!r} (known: {known})") from None


def check_split(split: SplitLike, encoding: Encoding, split_name: str = "split") -> None:
    """Refuse a split that lacks what ``encoding`` reads (Stockfish scores, finite values)."""
    if encoding.name == "stockfish":
        if split.sf_score is None:
            raise EncodingError(
                f"the {split_name} split has no Stockfish scores: build the dataset with "
                "Stockfish scoring to use --features stockfish"
            )
        if not np.all(np.isfinite(split.sf_score)):
            raise EncodingError(f"the {split_name} split has missing (NaN) Stockfish scores")
    if len(split) and split.bits.shape != (len(split), (BITBOARD_SIZE + 7) // 8):
        raise EncodingError(
            f"the {split_name} split's packed bitboards have shape {split.bits.shape}, "
            f"expected ({len(split)}, {(BITBOARD_SIZE + 7) // 8})"
        )


def to_frame(result: np.ndarray, white_to_move: np.ndarray, frame: str) -> np.ndarray:
    """Class labels (or predictions) between white/draw/black and ``frame``; an involution."""
    result = np.asarray(result, dtype=np.int64)
    if frame == WHITE_FRAME:
        return result
    return np.where(np.asarray(white_to_move, dtype=bool), result, 2 - result)


def unpack_bitboard(bits: np.ndarray) -> np.ndarray:
    """The 769 0/1 ``bitboard`` features from rows packed with ``np.packbits(..., 'little')``."""
    return np.unpackbits(bits, axis=1, count=BITBOARD_SIZE, bitorder="little").astype(np.float32)


def _meep_dense(split: SplitLike, rows: np.ndarray, out: np.ndarray, offset: int) -> None:
    """Add the meep features of ``rows`` into ``out[:, offset:offset + MEEP_SIZE]``."""
    starts = split.meep_start[rows].astype(np.int64)
    lengths = split.meep_start[rows + 1].astype(np.int64) - starts
    total = int(lengths.sum())
    if total == 0:
        return
    row_of = np.repeat(np.arange(len(rows)), lengths)
    # position k of row r's run sits at starts[r] + k: shift a global arange by each run's start
    run_begin = np.cumsum(lengths) - lengths
    flat = np.arange(total) + np.repeat(starts - run_begin, lengths)
    cols = split.meep_idx[flat].astype(np.int64) + offset
    np.add.at(out, (row_of, cols), split.meep_val[flat])


def encode(split: SplitLike, encoding: Encoding, rows: np.ndarray) -> np.ndarray:
    """Dense float32 inputs ``(len(rows), encoding.size)`` of the chosen positions."""
    rows = np.asarray(rows, dtype=np.int64)
    if encoding.name == "stockfish":
        assert split.sf_score is not None, "check_split first"
        out = np.empty((len(rows), 2), dtype=np.float32)
        score = split.sf_score[rows].astype(np.float32) * STOCKFISH_SCALE
        out[:, 0] = np.clip(score, -STOCKFISH_CLIP, STOCKFISH_CLIP)
        out[:, 1] = split.white_to_move[rows]
        return out
    if encoding.name == "bitboard":
        return unpack_bitboard(split.bits[rows])
    out = np.zeros((len(rows), encoding.size), dtype=np.float32)
    if encoding.name == "meep":
        _meep_dense(split, rows, out, 0)
        return out
    board = unpack_bitboard(split.bits[rows])
    black = ~np.asarray(split.white_to_move[rows], dtype=bool)
    board[black] = flip_pieces(board[black])
    out[:, :BITBOARD_SIZE] = board
    _meep_dense(split, rows, out, BITBOARD_SIZE)
    return out


def to_planes(x: Tensor) -> Tensor:
    """ConvNet input ``(n, 13, 8, 8)`` from ``bitboard`` vectors ``(n, 769)`` (possibly mean
    centred): the 12 piece planes indexed ``[piece, rank, file]`` (square = rank * 8 + file)
    and a 13th plane filled with the white-to-move input (Serban 6.9.3)."""
    torch = require_torch()
    n = x.shape[0]
    pieces = x[:, :SIDE_TO_MOVE].reshape(n, PIECE_PLANES, 8, 8)
    side = x[:, SIDE_TO_MOVE].reshape(n, 1, 1, 1).expand(n, 1, 8, 8)
    return torch.cat([pieces, side], dim=1)
