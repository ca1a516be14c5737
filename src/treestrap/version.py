"""What ``treestrap --version`` says: the package version and the git commit the code
comes from, so that a result can be traced to its source.

Run from a git checkout of treestrap, the commit is the checkout's (short hash,
``-dirty`` when tracked files differ from it). A wheel has no git: ``setup.py``'s build
step records the commit of the tree it was built from in :data:`COMMIT_FILE` inside the
package; without either, the commit is unknown.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from treestrap import __version__

#: The package's own directory (``src/treestrap`` in a checkout).
PACKAGE_DIR = Path(__file__).resolve().parent
#: The commit a wheel was built from, written by its build into the package.
COMMIT_FILE = "build_commit.txt"
#: How the UCI engine names itself (``id name treestrap 0.1.0``): a match runner knows
#: our engine, of any version, by the first word.
ENGINE_FAMILY = "treestrap"
ENGINE_NAME = f"{ENGINE_FAMILY} {__version__}"


def _git(package_dir: Path, *args: str) -> subprocess.CompletedProcess[str] | None:
    """``git ARGS`` run in ``package_dir``, or None without git (or when it hangs)."""
    try:
        return subprocess.run(
            ["git", *args],
            cwd=package_dir,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None


def git_commit(package_dir: Path = PACKAGE_DIR) -> str | None:
    """The commit of the treestrap checkout that holds ``package_dir`` as its
    ``src/treestrap`` ("1a2b3c4" or "1a2b3c4-dirty"), or None: no git, or the package
    is not in a checkout of its own (an install inside some other repository)."""
    top = _git(package_dir, "rev-parse", "--show-toplevel")
    if top is None or top.returncode != 0:
        return None
    if (Path(top.stdout.strip()) / "src" / "treestrap").resolve() != package_dir.resolve():
        return None
    head = _git(package_dir, "rev-parse", "--short", "HEAD")
    if head is None or head.returncode != 0:
        return None  # a repository without a commit yet
    # Exit status 1: tracked files (staged or not) differ from HEAD.
    changed = _git(package_dir, "diff", "--quiet", "HEAD", "--")
    dirty = changed is not None and changed.returncode == 1
    return head.stdout.strip() + ("-dirty" if dirty else "")


def recorded_commit(package_dir: Path = PACKAGE_DIR) -> str | None:
    """The commit a build recorded in ``package_dir`` (an installed wheel), or None."""
    try:
        text = (package_dir / COMMIT_FILE).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return text or None


def record_commit(source_dir: Path, built_package_dir: Path) -> str | None:
    """Write the commit of the checkout ``source_dir`` (``src/treestrap``) into a built
    package (the build step of ``setup.py``); returns it, or None outside a checkout."""
    commit = git_commit(source_dir)
    if commit is not None:
        (built_package_dir / COMMIT_FILE).write_text(commit + "\n", encoding="utf-8")
    return commit


def version_line(package_dir: Path = PACKAGE_DIR) -> str:
    """``treestrap 0.1.0 (commit 1a2b3c4)``, or ``(commit unknown)``."""
    commit = git_commit(package_dir) or recorded_commit(package_dir) or "unknown"
    return f"treestrap {__version__} (commit {commit})"
