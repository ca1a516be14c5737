"""The training side of a dataset: its three splits, checked against this build.

:mod:`treestrap.supervised.dataset.store` owns the format; this module loads the splits a
run needs, refuses a dataset whose stored features were computed with another feature
layout than this build's (the weights would silently mean something else), and names
the dataset by a hash of its manifest, which checkpoints record.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from treestrap.supervised.errors import SupervisedError
from treestrap.supervised.inputs import Encoding, EncodingError, SplitLike, check_split

SPLITS = ("train", "validation", "test")


@dataclass
class Data:
    """The splits of a run, its encoding and the identity of the dataset they came from."""

    train: SplitLike
    validation: SplitLike
    test: SplitLike
    encoding: Encoding
    manifest_hash: str
    name: str = "dataset"

    def split(self, name: str) -> SplitLike:
        return {"train": self.train, "validation": self.validation, "test": self.test}[name]


def manifest_hash(manifest: dict[str, Any]) -> str:
    """First 16 hex digits of SHA-256 over the manifest as canonical JSON: a dataset built
    from other games or with other options has another hash."""
    text = json.dumps(manifest, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def manifest_layouts(manifest: dict[str, Any]) -> dict[str, str]:
    """Feature-set name -> layout hash as recorded by the dataset build."""
    for key in ("layout_hashes", "feature_layouts", "layouts", "feature_sets"):
        table = manifest.get(key)
        if isinstance(table, dict):
            return {
                str(name): str(value.get("layout_hash") if isinstance(value, dict) else value)
                for name, value in table.items()
            }
    return {}


def check_layouts(manifest: dict[str, Any], encoding: Encoding, where: str) -> None:
    """Refuse a dataset whose features were laid out differently from this build's."""
    recorded = manifest_layouts(manifest)
    for fs, ours in encoding.layout_hashes().items():
        theirs = recorded.get(fs)
        if theirs is None:
            raise SupervisedError(f"{where}: the manifest records no layout for feature set {fs!r}")
        if theirs != ours:
            raise SupervisedError(
                f"{where}: built with another layout of feature set {fs!r} (hash {theirs}, "
                f"this build has {ours}); rebuild the dataset with this version"
            )


def check_splits(data: Data) -> None:
    """Every split non-empty where it must be, and encodable as asked."""
    for name in SPLITS:
        split = data.split(name)
        try:
            check_split(split, data.encoding, name)
        except EncodingError as exc:
            raise SupervisedError(f"{data.name}: {exc}") from None
    for name in ("train", "validation"):
        if len(data.split(name)) == 0:
            raise SupervisedError(f"{data.name}: the {name} split holds no positions")


def load_data(data_dir: str | Path, encoding: Encoding, rollout: bool = True) -> Data:
    """Load and check the three splits of ``data_dir`` (rollout positions kept or dropped)."""
    try:
        from treestrap.supervised.dataset import store
    except ImportError as exc:  # the dataset half of the package is missing
        raise SupervisedError(f"cannot read datasets: {exc}") from None
    where = str(data_dir)
    try:
        manifest = store.load_manifest(data_dir)
        check_layouts(manifest, encoding, where)
        splits = {name: store.load_split(data_dir, name, rollout=rollout) for name in SPLITS}
    except store.DatasetError as exc:
        raise SupervisedError(str(exc)) from None
    data = Data(
        splits["train"],
        splits["validation"],
        splits["test"],
        encoding,
        manifest_hash(manifest),
        Path(data_dir).name or where,
    )
    check_splits(data)
    return data
