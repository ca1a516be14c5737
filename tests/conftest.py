"""Shared test fixtures.

Reference data lives in ``../shared/data`` beside the checkout (never copied into the
repository); ``TREESTRAP_DATA`` overrides the location. A test that needs a missing
file or engine skips with a clear message on a user's machine but fails under
``CI=true``, so CI can never pass by skipping.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def data_dir() -> Path:
    return Path(os.environ.get("TREESTRAP_DATA", REPO_ROOT.parent / "shared" / "data"))


def require(condition: bool, reason: str) -> None:
    """Skip (or, under CI, fail) when a test's external requirement is missing."""
    if condition:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"required under CI: {reason}")
    pytest.skip(reason)


@pytest.fixture
def shared_data():
    """``shared_data("perft/perftsuite.epd")`` -> path, or skip/fail if missing."""

    def locate(relative: str) -> Path:
        path = data_dir() / relative
        require(path.exists(), f"reference file {relative} not found under {data_dir()}")
        return path

    return locate


def require_binary(name: str) -> str:
    path = shutil.which(name)
    require(path is not None, f"engine binary {name!r} not on PATH")
    return path  # type: ignore[return-value]
