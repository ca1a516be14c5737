"""Where the compile cache goes: the candidates in order, unwritable ones skipped, a
shared temporary directory used only when private, old versions pruned, and caching
turned off (not a crash) when nothing can be written to."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numba
import pytest

from treestrap.core import compile_cache, jit
from treestrap.core.compile_cache import (
    candidate_bases,
    choose_cache_dir,
    prune_old_versions,
    temporary_base,
)


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A system temporary directory of the test's own."""
    shared = tmp_path / "tmp"
    shared.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    return shared


def test_candidates_in_order(private_tmp: Path) -> None:
    env = {"TREESTRAP_CACHE_DIR": "/t", "NUMBA_CACHE_DIR": "/n", "XDG_CACHE_HOME": "/x"}
    assert candidate_bases(env) == [
        Path("/t"),
        Path("/n/treestrap"),
        Path("/x/treestrap/numba"),
        temporary_base(),
    ]
    assert temporary_base().is_relative_to(private_tmp)


def test_without_settings_the_home_cache_then_the_temporary_directory(private_tmp: Path) -> None:
    assert candidate_bases({}) == [
        Path.home() / ".cache" / "treestrap" / "numba",
        temporary_base(),
    ]


def test_an_unwritable_base_is_skipped(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    good = tmp_path / "cache"
    assert choose_cache_dir([blocker / "cache", good], "v1") == good / "v1"
    assert (good / "v1").is_dir()


def test_nothing_writable_is_none(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    assert choose_cache_dir([blocker / "one", blocker / "two"], "v1") is None


def test_the_temporary_base_when_private(private_tmp: Path) -> None:
    assert choose_cache_dir([temporary_base()], "v1") == temporary_base() / "v1"


def test_a_temporary_base_others_can_write_is_refused(private_tmp: Path) -> None:
    temporary_base().mkdir(parents=True)
    temporary_base().parent.chmod(0o777)
    assert choose_cache_dir([temporary_base()], "v1") is None


def test_a_temporary_base_of_another_user_is_refused(
    private_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    temporary_base().mkdir(parents=True)
    someone_else = os.getuid() + 1
    monkeypatch.setattr(compile_cache.os, "getuid", lambda: someone_else)
    assert choose_cache_dir([temporary_base()], "v1") is None


def test_old_versions_are_pruned(tmp_path: Path) -> None:
    for age, name in enumerate(["new", "mid", "old", "older", "oldest"]):
        (tmp_path / name).mkdir()
        os.utime(tmp_path / name, (1e9 - age * 100, 1e9 - age * 100))
    target = tmp_path / "target"
    target.mkdir()
    prune_old_versions(target, keep=3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mid", "new", "target"]


def test_caching_is_off_when_nowhere_can_be_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(jit.JIT_FLAGS, "cache", True)
    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)
    monkeypatch.setattr(jit, "choose_cache_dir", lambda bases, version: None)
    jit._configure_cache()
    assert jit.JIT_FLAGS["cache"] is False

    @jit.njit
    def twice(x: int) -> int:
        return 2 * x

    assert twice(21) == 42
