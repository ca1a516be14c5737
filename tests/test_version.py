"""``treestrap --version``: the version and the commit of a checkout (``-dirty`` with
changes), the commit a wheel's build recorded, or "commit unknown"."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from treestrap import __version__
from treestrap.cli import main
from treestrap.version import (
    COMMIT_FILE,
    git_commit,
    record_commit,
    recorded_commit,
    version_line,
)


def git(repo: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args]
    return subprocess.run(command, cwd=repo, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A git repository laid out as treestrap's: its package in src/treestrap."""
    repo = tmp_path / "checkout"
    package = repo / "src" / "treestrap"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "start")
    return package


def test_a_checkout_gives_its_short_hash_and_dirty(checkout: Path) -> None:
    head = git(checkout, "rev-parse", "--short", "HEAD").strip()
    assert git_commit(checkout) == head
    (checkout / "__init__.py").write_text("x = 1\n")  # a tracked file changed
    assert git_commit(checkout) == f"{head}-dirty"
    assert version_line(checkout) == f"treestrap {__version__} (commit {head}-dirty)"


def test_outside_a_checkout_of_its_own_the_commit_is_unknown(
    checkout: Path, tmp_path: Path
) -> None:
    plain = tmp_path / "installed" / "treestrap"
    plain.mkdir(parents=True)
    assert git_commit(plain) is None
    assert version_line(plain) == f"treestrap {__version__} (commit unknown)"
    # A package installed inside some other repository does not take its commit.
    elsewhere = checkout.parents[1] / "venv" / "treestrap"
    elsewhere.mkdir(parents=True)
    assert git_commit(elsewhere) is None


def test_a_built_package_keeps_the_commit_it_was_built_from(checkout: Path, tmp_path: Path) -> None:
    built = tmp_path / "wheel" / "treestrap"
    built.mkdir(parents=True)
    commit = record_commit(checkout, built)
    assert commit == git(checkout, "rev-parse", "--short", "HEAD").strip()
    assert (built / COMMIT_FILE).is_file()
    assert recorded_commit(built) == commit
    assert version_line(built) == f"treestrap {__version__} (commit {commit})"


def test_the_command_line_prints_the_version_line(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    out = capsys.readouterr().out.strip()
    assert out == version_line()
    assert re.fullmatch(rf"treestrap {re.escape(__version__)} \(commit [^)]+\)", out)
