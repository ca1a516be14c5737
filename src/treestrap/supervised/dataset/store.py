"""The on-disk dataset: compressed NumPy shards plus a JSON manifest, and loading a split.

Layout of ``DATA_DIR``::

    manifest.json              written when a build finishes (counts, options, hashes)
    build.json                 the build's options and sources, written when it starts
    shards/CHUNK.json          a finished chunk: its counts and skip reasons
    shards/CHUNK.SPLIT.npz     that chunk's positions of one split (train/validation/test)

A chunk is a run of consecutive games of one source file, named by the file's SHA-256
and its place there, so a resumed build knows which are done.

Arrays of a shard (``n`` positions, in game order):

=================  =============  ===================================================
``bits``           uint8 (n, 97)  the 769 ``bitboard`` indicators, ``np.packbits(...,
                                  bitorder="little")``; index ``piece * 64 + square``,
                                  768 = white to move
``meep_idx``       int32          active ``meep`` features, all positions concatenated
``meep_val``       float32        their values (side-to-move relative)
``meep_count``     int32 (n,)     active meep features of each position
``white_to_move``  bool (n,)
``ply``            int16 (n,)     plies played before the position (0 = game start)
``result``         int8 (n,)      the label: 0 white wins, 1 draw, 2 black wins
``pgn_result``     int8 (n,)      the game's PGN result (differs from ``result`` only
                                  for games completed by a rollout)
``game_id``        int32 (n,)     unique over the whole dataset
``rollout``        bool (n,)      appended by rollout completion
``sf_score``       float32 (n,)   only with ``--stockfish-score``: centipawns for White
=================  =============  ===================================================

A dataset written in another format version, or with feature layouts other than the
running code's, is refused by name: its arrays would mean something else.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from treestrap.supervised.dataset.errors import DatasetError
from treestrap.supervised.dataset.split import SPLIT_NAMES

__all__ = ["DatasetError", "Split", "load_manifest", "load_split"]

FORMAT = "treestrap-dataset"
#: Bumped whenever the arrays or the manifest change meaning.
FORMAT_VERSION = 1
MANIFEST, BUILD_STATE, SHARDS = "manifest.json", "build.json", "shards"
#: The feature sets whose layout the arrays depend on.
LAYOUT_SETS = ("meep", "bitboard")


@dataclass
class Split:
    """The positions of one split, as arrays (see the module docstring)."""

    bits: np.ndarray
    meep_idx: np.ndarray
    meep_val: np.ndarray
    meep_start: np.ndarray  # int64 (n+1,): position i's meep features are [start[i], start[i+1])
    white_to_move: np.ndarray
    ply: np.ndarray
    result: np.ndarray
    game_id: np.ndarray
    rollout: np.ndarray
    sf_score: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.result)

    def subset(self, mask_or_indices: np.ndarray | list[int]) -> Split:
        """The positions selected by a boolean mask or by indices, in that order."""
        sel = np.asarray(mask_or_indices)
        idx = np.flatnonzero(sel) if sel.dtype == bool else sel.astype(np.int64)
        begin, end = self.meep_start[idx], self.meep_start[idx + 1]
        counts = end - begin
        start = np.zeros(len(idx) + 1, dtype=np.int64)
        np.cumsum(counts, out=start[1:])
        # Position k's features sit at begin[k] + 0..counts[k]-1 in the old arrays.
        gather = np.repeat(begin - start[:-1], counts) + np.arange(start[-1])
        return Split(
            bits=self.bits[idx],
            meep_idx=self.meep_idx[gather],
            meep_val=self.meep_val[gather],
            meep_start=start,
            white_to_move=self.white_to_move[idx],
            ply=self.ply[idx],
            result=self.result[idx],
            game_id=self.game_id[idx],
            rollout=self.rollout[idx],
            sf_score=None if self.sf_score is None else self.sf_score[idx],
        )


def current_layouts() -> dict[str, str]:
    """The layout hash of every stored feature set, as the running code defines them."""
    from treestrap.evaluation.feature_sets import get_feature_set

    return {name: get_feature_set(name).layout_hash for name in LAYOUT_SETS}


def check_compatible(header: dict[str, Any], where: str | Path) -> None:
    """DatasetError unless ``header`` (a manifest or build state) was written in this
    format, with this code's feature layouts."""
    if header.get("format") != FORMAT:
        raise DatasetError(f"{where} is not a treestrap dataset")
    version = header.get("format_version")
    if version != FORMAT_VERSION:
        raise DatasetError(
            f"{where} is in dataset format {version}, this treestrap reads format "
            f"{FORMAT_VERSION}: rebuild it with treestrap dataset build"
        )
    stored = header.get("feature_layouts", {})
    for name, layout in current_layouts().items():
        if stored.get(name) != layout:
            raise DatasetError(
                f"{where} was built with another {name} feature layout (dataset "
                f"{stored.get(name)}, this code {layout}): rebuild it"
            )


def read_json(path: Path) -> dict[str, Any]:
    """A JSON object from ``path``; unreadable or broken files are DatasetErrors."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise
    except (OSError, ValueError) as exc:
        raise DatasetError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict):
        raise DatasetError(f"{path}: expected a JSON object")
    return data


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write atomically, so an interrupted build never leaves half a file."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def load_manifest(data_dir: str | Path) -> dict[str, Any]:
    """The manifest of a finished, compatible dataset."""
    root = Path(data_dir)
    if not root.is_dir():
        raise DatasetError(f"dataset directory not found: {root}")
    try:
        manifest = read_json(root / MANIFEST)
    except FileNotFoundError:
        if (root / BUILD_STATE).exists():
            raise DatasetError(
                f"{root}: the build has not finished; run treestrap dataset build again "
                "with --resume"
            ) from None
        raise DatasetError(f"{root} is not a dataset (no {MANIFEST})") from None
    check_compatible(manifest, root)
    return manifest


def shard_path(data_dir: Path, chunk: str, split: str) -> Path:
    return data_dir / SHARDS / f"{chunk}.{split}.npz"


def write_shard(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Save compressed, atomically (a killed worker leaves only a ``.tmp`` file)."""
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, **arrays)
    os.replace(tmp, path)


def load_split(data_dir: str | Path, split: str, rollout: bool = True) -> Split:
    """The positions of ``split`` ("train", "validation" or "test").

    ``rollout=False`` gives the dataset as if built without ``--rollout``: positions
    appended by rollouts are dropped and every position is labelled with its game's PGN
    result (Serban's non-simulated variant). Without rollouts in the build both are the
    same.
    """
    if split not in SPLIT_NAMES:
        raise DatasetError(f"unknown split {split!r} (expected {', '.join(SPLIT_NAMES)})")
    root = Path(data_dir)
    manifest = load_manifest(root)
    parts = []
    for chunk in manifest["shards"][split]:
        path = shard_path(root, chunk, split)
        try:
            with np.load(path) as npz:
                parts.append({key: npz[key] for key in npz.files})
        except (OSError, ValueError, KeyError) as exc:
            raise DatasetError(f"cannot read shard {path}: {exc}") from None
    split_data = _concatenate(parts, scored=manifest["options"].get("score_depth") is not None)
    if not rollout:
        keep = ~split_data.rollout
        pgn = np.concatenate([p["pgn_result"] for p in parts]) if parts else split_data.result
        split_data.result = pgn.astype(np.int8)
        split_data = split_data.subset(keep)
    return split_data


def _concatenate(parts: list[dict[str, np.ndarray]], scored: bool) -> Split:
    def cat(key: str, dtype: Any, shape: tuple[int, ...] = (0,)) -> np.ndarray:
        if not parts:
            return np.zeros(shape, dtype=dtype)
        return np.concatenate([p[key] for p in parts]).astype(dtype, copy=False)

    counts = cat("meep_count", np.int64)
    start = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=start[1:])
    return Split(
        bits=cat("bits", np.uint8, (0, 97)),
        meep_idx=cat("meep_idx", np.int32),
        meep_val=cat("meep_val", np.float32),
        meep_start=start,
        white_to_move=cat("white_to_move", bool),
        ply=cat("ply", np.int16),
        result=cat("result", np.int8),
        game_id=cat("game_id", np.int32),
        rollout=cat("rollout", bool),
        sf_score=cat("sf_score", np.float32) if scored else None,
    )


#: The field names of :class:`Split`, for code that walks them.
SPLIT_FIELDS = tuple(f.name for f in fields(Split))
