"""Weight files: round trips, refusal of every kind of bad file, atomic saves.

Bad files are built by hand here, following the format documented in
:mod:`treestrap.evaluation.weights` (an ``.npz`` with ``weights`` and a UTF-8 JSON
``meta`` stored as uint8 bytes), not with the module's own writer.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from treestrap.core.notation import STARTING_FEN, parse_fen
from treestrap.evaluation.feature_sets import get_feature_set
from treestrap.evaluation.presets import hand_set_model, random_model
from treestrap.evaluation.weight_file_format import FORMAT, VERSION, WeightFileError
from treestrap.evaluation.weight_files import load_weights
from treestrap.evaluation.weights import LinearModel, save_weights

MEEP = get_feature_set("meep")


def good_meta(fs=MEEP, **changes) -> dict:
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "model": "linear",
        "feature_set": fs.name,
        "layout_hash": fs.layout_hash,
        "shape": [fs.size],
        "metadata": {"algorithm": "hand-made"},
    }
    meta.update(changes)
    return meta


def meta_array(meta: dict | bytes) -> np.ndarray:
    raw = meta if isinstance(meta, bytes) else json.dumps(meta).encode()
    return np.frombuffer(raw, dtype=np.uint8)


def write_npz(path: Path, weights=None, meta: dict | bytes | None = None, **members) -> Path:
    """An .npz with ``weights`` and ``meta`` (either omitted when None)."""
    if weights is not None:
        members["weights"] = weights
    if meta is not None:
        members["meta"] = meta_array(meta)
    with open(path, "wb") as fh:  # a handle: np.savez appends no suffix
        np.savez(fh, **members)
    return path


def good_weights(fs=MEEP) -> np.ndarray:
    return np.random.default_rng(0).uniform(-1, 1, fs.size)


def files_in(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())  # dotfiles included


# --- round trips ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["meep", "bitboard"])
def test_round_trip_keeps_weights_and_metadata(tmp_path, name):
    model = random_model(name, seed=5)
    model.metadata.update(
        {"algorithm": "treestrap", "games": 1234, "nested": {"lr": 1e-5, "tags": ["a", "b"]}}
    )
    path = tmp_path / "model.npz"
    model.save(path)
    loaded = load_weights(path)
    assert loaded.feature_set is get_feature_set(name)
    assert loaded.weights.dtype == np.float64
    assert np.array_equal(loaded.weights, model.weights)
    assert loaded.metadata == model.metadata
    pos = parse_fen(STARTING_FEN)
    assert loaded.evaluate(pos) == model.evaluate(pos)


def test_round_trip_of_extreme_values(tmp_path):
    weights = np.zeros(MEEP.size)
    weights[:6] = [5e-324, -0.0, 1.7976931348623157e308, -1e-300, 1 / 3, np.nextafter(1, 2)]
    path = tmp_path / "extreme.npz"
    save_weights(LinearModel(MEEP, weights, {}), path)
    loaded = load_weights(path)
    assert loaded.weights.tobytes() == weights.tobytes()  # bit for bit, -0.0 included
    assert loaded.metadata == {}


def test_hand_made_file_in_the_documented_format_loads(tmp_path):
    weights = good_weights()
    path = write_npz(tmp_path / "hand.npz", weights, good_meta())
    loaded = load_weights(path)
    assert np.array_equal(loaded.weights, weights)
    assert loaded.metadata == {"algorithm": "hand-made"}


def test_save_creates_parent_directories_and_overwrites(tmp_path):
    path = tmp_path / "a" / "b" / "w.npz"
    save_weights(random_model(seed=1), path)
    save_weights(hand_set_model(), path)
    assert np.array_equal(load_weights(path).weights, hand_set_model().weights)
    assert files_in(path.parent) == ["w.npz"]


def test_linear_model_refuses_wrong_shape():
    with pytest.raises(ValueError, match="do not fit"):
        LinearModel(MEEP, np.zeros(MEEP.size + 1))


# --- bad files -----------------------------------------------------------------------


def _missing(tmp_path: Path) -> Path:
    return tmp_path / "nope.npz"


def _empty(tmp_path: Path) -> Path:
    path = tmp_path / "empty.npz"
    path.write_bytes(b"")
    return path


def _random_bytes(tmp_path: Path) -> Path:
    path = tmp_path / "random.npz"
    path.write_bytes(random.Random(0).randbytes(4096))
    return path


def _truncated(tmp_path: Path) -> Path:
    good = tmp_path / "good.npz"
    save_weights(random_model(seed=2), good)
    data = good.read_bytes()
    path = tmp_path / "truncated.npz"
    path.write_bytes(data[: len(data) // 2])
    return path


def _directory(tmp_path: Path) -> Path:
    path = tmp_path / "dir.npz"
    path.mkdir()
    return path


def _plain_npy(tmp_path: Path) -> Path:
    path = tmp_path / "plain.npy"
    with open(path, "wb") as fh:
        np.save(fh, good_weights())
    return path


def _no_meta(tmp_path: Path) -> Path:
    return write_npz(tmp_path / "nometa.npz", good_weights())


def _no_weights(tmp_path: Path) -> Path:
    return write_npz(tmp_path / "noweights.npz", None, good_meta())


def _meta(name: str, **changes):
    def build(tmp_path: Path) -> Path:
        return write_npz(tmp_path / f"{name}.npz", good_weights(), good_meta(**changes))

    build.__name__ = name
    return build


def _raw_meta(name: str, raw: bytes):
    def build(tmp_path: Path) -> Path:
        return write_npz(tmp_path / f"{name}.npz", good_weights(), raw)

    build.__name__ = name
    return build


def _weights(name: str, weights: np.ndarray, **meta_changes):
    def build(tmp_path: Path) -> Path:
        return write_npz(tmp_path / f"{name}.npz", weights, good_meta(**meta_changes))

    build.__name__ = name
    return build


def _with_nan() -> np.ndarray:
    w = good_weights()
    w[17] = np.nan
    return w


def _with_inf() -> np.ndarray:
    w = good_weights()
    w[-1] = -np.inf
    return w


BAD_FILES = [
    (_missing, "no such weight file"),
    (_empty, "not a readable treestrap weight file"),
    (_random_bytes, "not a readable treestrap weight file"),
    (_truncated, "not a readable treestrap weight file"),
    (_directory, "no such weight file"),
    (_plain_npy, "treestrap weight file"),  # a bare array, not an archive
    (_no_meta, r"not a treestrap weight file \(members missing\)"),
    (_no_weights, r"not a treestrap weight file \(members missing\)"),
    (_raw_meta("meta_not_json", b"{format: nope"), "not a readable treestrap weight file"),
    (_raw_meta("meta_not_utf8", b"\xff\xfe\x00garbage"), "not a readable treestrap weight file"),
    (_raw_meta("meta_is_a_list", b"[1, 2, 3]"), "format tag missing"),
    (_meta("wrong_format", format="other-weights"), "format tag missing"),
    (_meta("newer_version", version=VERSION + 1), "newer than this build"),
    (_meta("version_not_int", version="1"), "version"),
    (_meta("unknown_model", model="mlp"), "unknown model kind"),
    (_meta("unknown_feature_set", feature_set="nnue"), "unknown feature set 'nnue'"),
    (_meta("wrong_layout_hash", layout_hash="0123456789abcdef"), "another layout"),
    (
        _meta("other_sets_hash", layout_hash=get_feature_set("bitboard").layout_hash),
        "another layout",
    ),
    (_weights("short_weights", np.zeros(MEEP.size - 1), shape=[MEEP.size - 1]), "shape"),
    (_weights("shape_meta_lies", np.zeros(MEEP.size - 1)), "shape"),
    (_weights("wrong_meta_shape", np.zeros(MEEP.size), shape=[MEEP.size + 1]), "shape"),
    (_weights("two_dimensional", np.zeros((2, MEEP.size)), shape=[2, MEEP.size]), "shape"),
    (_weights("float32_weights", np.zeros(MEEP.size, dtype=np.float32)), "float32"),
    (_meta("metadata_not_a_dict", metadata=[1, 2, 3]), "metadata"),
    (_weights("nan_weights", _with_nan()), "NaN or infinity"),
    (_weights("inf_weights", _with_inf()), "NaN or infinity"),
]


@pytest.mark.parametrize(
    ("build", "message"), BAD_FILES, ids=[build.__name__.lstrip("_") for build, _ in BAD_FILES]
)
def test_bad_weight_files_are_refused_with_a_reason(tmp_path, build, message):
    path = build(tmp_path)
    with pytest.raises(WeightFileError, match=message) as info:
        load_weights(path)
    assert isinstance(info.value, ValueError)
    assert path.name in str(info.value)  # the message names the file


def test_object_arrays_are_not_unpickled(tmp_path):
    path = tmp_path / "pickled.npz"
    with open(path, "wb") as fh:
        np.savez(
            fh,
            weights=np.array([object()] * 3, dtype=object),
            meta=meta_array(good_meta()),
        )
    with pytest.raises(WeightFileError, match="not a readable treestrap weight file"):
        load_weights(path)


# --- atomic saves --------------------------------------------------------------------


def test_save_leaves_no_temporary_files(tmp_path):
    for seed in range(3):
        save_weights(random_model(seed=seed), tmp_path / "w.npz")
    save_weights(random_model("bitboard", seed=0), tmp_path / "b.npz")
    assert files_in(tmp_path) == ["b.npz", "w.npz"]


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600)])
def test_saved_file_has_the_permissions_the_umask_gives(tmp_path, umask, mode):
    """Not mkstemp's 0600: under umask 022 the group and others can read the weights."""
    import os
    import stat

    old = os.umask(umask)
    try:
        save_weights(hand_set_model(), tmp_path / "w.npz")
        save_weights(random_model(seed=1), tmp_path / "w.npz")  # over an old file too
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "w.npz").stat().st_mode) == mode


def _failing_savez(real_savez):
    def savez(file, *args, **kwargs):
        real_savez(file, *args, **kwargs)  # write a whole archive's worth of bytes ...
        file.seek(0)
        file.truncate(37)  # ... keep a torn fragment, as a crash would
        raise OSError("simulated disk full during save")

    return savez


def test_failed_save_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "w.npz"
    old = hand_set_model()
    save_weights(old, path)
    before = path.read_bytes()
    monkeypatch.setattr(np, "savez", _failing_savez(np.savez))
    with pytest.raises(OSError, match="simulated disk full"):
        save_weights(random_model(seed=9), path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert files_in(tmp_path) == ["w.npz"]
    assert np.array_equal(load_weights(path).weights, old.weights)


def test_failed_first_save_creates_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(np, "savez", _failing_savez(np.savez))
    with pytest.raises(OSError, match="simulated disk full"):
        save_weights(random_model(seed=9), tmp_path / "w.npz")
    assert files_in(tmp_path) == []


def test_failed_rename_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    import os

    path = tmp_path / "w.npz"
    save_weights(hand_set_model(), path)
    before = path.read_bytes()

    def replace(src, dst):
        raise OSError("simulated rename failure")

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OSError, match="simulated rename failure"):
        save_weights(random_model(seed=9), path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert files_in(tmp_path) == ["w.npz"]


def test_interrupted_save_leaves_no_temporary(tmp_path, monkeypatch):
    """A KeyboardInterrupt mid-write is cleaned up like any other failure."""
    path = tmp_path / "w.npz"
    save_weights(hand_set_model(), path)
    before = path.read_bytes()

    def savez(file, *args, **kwargs):
        file.write(b"PK\x03\x04partial")
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez", savez)
    with pytest.raises(KeyboardInterrupt):
        save_weights(random_model(seed=9), path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert files_in(tmp_path) == ["w.npz"]
