"""The wheel, installed as a user installs it: built by ``python -m build``, installed
non-editable into a fresh virtual environment, and run from a read-only site-packages.

The fresh environment reaches the heavy dependencies (numpy, numba, ...) through a
``.pth`` line naming this interpreter's site-packages instead of downloading them again;
the ``.pth`` files in there (the editable install's among them) are not read, so
``treestrap`` is the installed copy, which a test checks. Root ignores file modes, so
under root the engine runs through ``setpriv`` without the capabilities that override
them; a probe checks that it really cannot write to site-packages. Each run starts with
a cold compile cache (the point is where it goes: the user's cache directory), which
costs a few minutes of compiling: hence ``slow``.
"""

from __future__ import annotations

import os
import shutil
import site
import stat
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import pytest
from conftest import REPO_ROOT, require

pytestmark = pytest.mark.slow

#: Capabilities that let root read or write whatever the file modes say.
OVERRIDES = "-dac_override,-dac_read_search,-fowner,-linux_immutable"
#: What the numba cache writes: an index and the compiled code per function.
CACHE_SUFFIXES = {".nbi", ".nbc"}
#: Deadline of one engine or training process (a cold compile takes minutes).
RUN_TIMEOUT = 600.0


@dataclass(frozen=True)
class Installed:
    wheel: Path
    venv: Path
    site_packages: Path
    home: Path
    prefix: tuple[str, ...]  # runs a command without the right to write site-packages
    env: dict[str, str]

    def command(self, *args: str) -> list[str]:
        return [*self.prefix, str(self.venv / "bin" / "treestrap"), *args]

    def cache_files(self, root: Path) -> list[Path]:
        return [p for p in root.rglob("*") if p.suffix in CACHE_SUFFIXES]

    def user_cache(self) -> Path:
        return self.home / ".cache" / "treestrap" / "numba"

    def listing(self) -> set[str]:
        return {str(p.relative_to(self.site_packages)) for p in self.site_packages.rglob("*")}


def _run(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=RUN_TIMEOUT, **kwargs)
    assert proc.returncode == 0, f"{cmd}: {proc.stdout[-2000:]}{proc.stderr[-2000:]}"
    return proc


def _build_wheel(out: Path) -> Path:
    """``python -m build --wheel`` of a copy of the project (the build leaves egg-info
    and build/ beside the sources); without isolation, so no network is needed."""
    project = out / "project"
    project.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO_ROOT / name, project / name)
    junk = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    shutil.copytree(REPO_ROOT / "src", project / "src", ignore=junk)
    dist = out / "dist"
    _run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist)],
        cwd=project,
    )
    (wheel,) = dist.glob("treestrap-*.whl")
    return wheel


def _make_read_only(root: Path) -> None:
    for path in [root, *root.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def _make_writable(root: Path) -> None:
    for path in [root, *root.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | stat.S_IWUSR)


def _without_overrides() -> tuple[str, ...]:
    if os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    require(setpriv is not None, "setpriv (util-linux) is needed to drop root's overrides")
    return (setpriv, f"--bounding-set={OVERRIDES}")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    out = tmp_path_factory.mktemp("wheel")
    wheel = _build_wheel(out)
    venv = out / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(venv / "bin" / "python"),
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            str(wheel),
        ]
    )
    (site_packages,) = (venv / "lib").glob("python3*/site-packages")
    (site_packages / "parent-environment.pth").write_text(
        "\n".join(site.getsitepackages()) + "\n", encoding="utf-8"
    )
    home = out / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "NUMBA_"))}
    for name in ("TREESTRAP_CACHE_DIR", "XDG_CACHE_HOME", "VIRTUAL_ENV"):
        env.pop(name, None)
    env.update(HOME=str(home), PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    _make_read_only(site_packages)
    try:
        yield Installed(wheel, venv, site_packages, home, _without_overrides(), env)
    finally:
        _make_writable(site_packages)


def test_the_wheel_holds_the_package_data_and_the_console_script(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    assert {"treestrap/py.typed", "treestrap/evaluation/data/learned.npz"} <= names
    sources = {p.relative_to(REPO_ROOT / "src").as_posix() for p in REPO_ROOT.glob("src/**/*.py")}
    assert sources <= names
    assert (installed.venv / "bin" / "treestrap").exists()


def test_the_installed_copy_is_imported_and_site_packages_is_read_only(
    installed: Installed,
) -> None:
    python = str(installed.venv / "bin" / "python")
    proc = _run([python, "-c", "import treestrap; print(treestrap.__file__)"], env=installed.env)
    assert Path(proc.stdout.strip()).is_relative_to(installed.site_packages)
    probe = installed.site_packages / "probe"
    write = f"open({str(probe)!r}, 'w')"
    proc = subprocess.run(
        [*installed.prefix, python, "-c", write],
        env=installed.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode != 0 and "PermissionError" in proc.stderr, proc.stderr
    assert not probe.exists()


def _uci_session(installed: Installed, cwd: Path) -> tuple[list[str], str]:
    """uci, the learned preset, ``go depth 4`` from the start: the output and bestmove."""
    proc = subprocess.Popen(
        installed.command("uci"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=installed.env,
        cwd=cwd,
    )
    assert proc.stdin is not None and proc.stdout is not None
    watchdog = threading.Timer(RUN_TIMEOUT, proc.kill)  # a hung engine ends the reads
    watchdog.start()
    lines: list[str] = []

    def send(*commands: str) -> None:
        proc.stdin.write("".join(f"{c}\n" for c in commands))
        proc.stdin.flush()

    def read_until(prefix: str) -> str:
        while line := proc.stdout.readline():
            lines.append(line.strip())
            if line.startswith(prefix):
                return line.strip()
        raise AssertionError(f"no {prefix!r}: {lines} {proc.stderr.read()[-2000:]}")

    try:
        send("uci")
        read_until("uciok")
        send("setoption name Preset value learned", "isready")
        read_until("readyok")
        send("position startpos", "go depth 4")
        best = read_until("bestmove")
        send("quit")
        errors = proc.stderr.read()  # the engine has quit: stderr is at its end
        assert proc.wait(timeout=RUN_TIMEOUT) == 0, errors[-2000:]
        assert "Traceback" not in errors, errors[-2000:]
    finally:
        watchdog.cancel()
        proc.kill()
        proc.wait()
    return lines, best


def test_uci_plays_the_learned_preset_from_a_read_only_install(
    installed: Installed, tmp_path: Path
) -> None:
    before = installed.listing()
    lines, best = _uci_session(installed, tmp_path)
    assert not any(line.startswith("info string error") for line in lines), lines
    assert any(line.startswith("info depth 4 ") for line in lines), lines
    assert chess.Move.from_uci(best.split()[1]) in chess.Board().legal_moves
    assert installed.listing() == before
    assert installed.cache_files(installed.user_cache())
    assert not installed.cache_files(installed.site_packages)


def test_one_training_game_from_a_read_only_install(installed: Installed, tmp_path: Path) -> None:
    before = installed.listing()
    run = tmp_path / "run"
    _run(
        installed.command(
            "train", "--preset", "quick", "--games", "1", "--depth", "1", "--out", str(run)
        ),
        env=installed.env,
        cwd=tmp_path,
    )
    assert (run / "weights.npz").exists()
    assert (run / "games.pgn").read_text(encoding="utf-8").count("[Event ") == 1
    assert installed.listing() == before
    assert installed.cache_files(installed.user_cache())
    assert not installed.cache_files(installed.site_packages)
