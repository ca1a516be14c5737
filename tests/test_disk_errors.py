"""A full disk or a read-only directory in the middle of a run: one ``error:`` line that
names the file and the reason, exit code 2, no traceback; and ``--resume``, once the
disk is freed, finishes the run with no game lost or doubled.

The errors are injected (the writes raise what the system raises), not made with
chmod: CI runs as root, where a read-only mode does not stop a write.
"""

from __future__ import annotations

import errno
import itertools
import os
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from kill_checks import check_tournament, check_training_run

from treestrap.cli import describe_os_error, main
from treestrap.evaluation.weights import LinearModel
from treestrap.play import tournament_store
from treestrap.training import checkpoints as checkpoints_module
from treestrap.training import files as files_module

NOSPACE = os.strerror(errno.ENOSPC)  # "No space left on device"
READONLY = os.strerror(errno.EROFS)  # "Read-only file system"
#: The game in whose writes the disk fills: mid-run, after some games were saved.
FAIL_AT = 3
TRAIN = ["--depth", "1", "--games", "4", "--max-plies", "30", "--seed", "5"]
#: adam keeps optimizer.npz; checkpoints every 2 games put one at game FAIL_AT - 1.
TRAIN += ["--optimizer", "adam", "--checkpoint-every", "2"]


def _error_lines(err: str) -> list[str]:
    assert "Traceback" not in err, err
    return [line for line in err.splitlines() if line.startswith("error:")]


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same training run, never interrupted."""
    run = tmp_path_factory.mktemp("reference") / "run"
    assert main(["train", "--out", str(run), *TRAIN]) == 0
    return run


# --- faults ------------------------------------------------------------------------


def _fail_appends(
    monkeypatch: pytest.MonkeyPatch, starts: bytes, code: int, first: int = 1
) -> None:
    """The FAIL_AT-th append whose text starts with ``starts`` (counting from
    ``first``) fails: ENOSPC after half of it is written (as a filling disk does),
    EROFS at once."""
    real_write = os.write
    appends = itertools.count(first)

    def write(fd: int, data: Any) -> int:
        chunk = bytes(data)
        if chunk.startswith(starts) and next(appends) >= FAIL_AT:
            if code == errno.ENOSPC:
                real_write(fd, chunk[: len(chunk) // 2])
            raise OSError(code, os.strerror(code))
        return real_write(fd, data)

    monkeypatch.setattr(files_module.os, "write", write)


def _fail_weights(monkeypatch: pytest.MonkeyPatch, name: str, code: int) -> None:
    """Writing the weight file ``name`` (a checkpoint's or weights.npz) of game FAIL_AT
    fails as a model's ``save`` fails: a full disk names no file, a read-only directory
    names the temporary it could not create."""
    real_save = LinearModel.save

    def save(model: Any, path: Path) -> None:
        path = Path(path)
        if path.name == name and model.metadata["games"] >= FAIL_AT - (name != "weights.npz"):
            if code == errno.ENOSPC:
                raise OSError(code, os.strerror(code))
            raise OSError(code, os.strerror(code), str(path.parent / f".{path.name}.x1y2.tmp"))
        real_save(model, path)

    monkeypatch.setattr(LinearModel, "save", save)


def _fail_optimizer(monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    """The optimizer's state of game FAIL_AT does not fit: part of it is written."""
    real_savez = np.savez

    def savez(file: Any, *args: Any, **arrays: Any) -> None:
        if "games" in arrays and int(arrays["games"]) >= FAIL_AT:
            file.write(b"PK\x03\x04 partial")
            raise OSError(code, os.strerror(code))
        real_savez(file, *args, **arrays)

    monkeypatch.setattr(checkpoints_module.np, "savez", savez)


FAULTS: dict[str, Callable[[pytest.MonkeyPatch, int], None]] = {
    "games.pgn": lambda mp, code: _fail_appends(mp, b"[Event ", code),
    "metrics.jsonl": lambda mp, code: _fail_appends(mp, b'{"game"', code),
    "weights.npz": lambda mp, code: _fail_weights(mp, "weights.npz", code),
    # The checkpoint of game FAIL_AT - 1 = 2 (every 2 games, and a log-spaced one).
    "checkpoints/game-000002.npz": lambda mp, code: _fail_weights(mp, "game-000002.npz", code),
    "optimizer.npz": _fail_optimizer,
}


@pytest.mark.parametrize(
    ("target", "code"),
    [
        *((target, errno.ENOSPC) for target in FAULTS),
        ("metrics.jsonl", errno.EROFS),
        ("weights.npz", errno.EROFS),
    ],
)
def test_training_stops_with_the_file_and_resumes(
    target: str,
    code: int,
    reference_run: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = tmp_path / "run"
    with monkeypatch.context() as mp:
        FAULTS[target](mp, code)
        assert main(["train", "--out", str(run), *TRAIN]) == 2
    err = capsys.readouterr().err
    assert _error_lines(err) == [f"error: cannot write {run / target}: {os.strerror(code)}"]
    assert f"resume with  treestrap train --resume {run}" in err
    assert main(["train", "--resume", str(run)]) == 0
    check = check_training_run(run, reference=reference_run)
    assert check.ok and check.games == 4, check.problems


def test_a_torn_append_is_cut_back_at_once(tmp_path: Path, monkeypatch) -> None:
    """A full disk takes half a metrics line before it fails: the file keeps its old
    end, so even a reader who never resumes sees only complete lines."""
    path = tmp_path / "metrics.jsonl"
    files_module.append_synced(path, '{"game": 1}\n')
    _fail_appends(monkeypatch, b'{"game"', errno.ENOSPC, first=FAIL_AT)
    with pytest.raises(OSError) as raised:
        files_module.append_synced(path, '{"game": 2}\n')
    assert raised.value.filename == str(path) and raised.value.errno == errno.ENOSPC
    assert path.read_text() == '{"game": 1}\n'


# --- tournaments ---------------------------------------------------------------------

TOURNAMENT = ["hand-set", "random:1", "random:2", "--tc", "depth=1", "--max-plies", "30"]
TOURNAMENT += ["--games-per-pair", "4", "--workers", "1", "--quiet"]


@pytest.fixture
def full_database(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Once ``stored[0]`` games are in, the database may grow no more pages: SQLite's
    own "database or disk is full" when the next game needs one."""
    real_connect = sqlite3.connect
    stored = [FAIL_AT - 1]

    def connect(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = real_connect(database, *args, **kwargs)
        if Path(database).name == "results.sqlite" and stored[0] >= 0:
            (count,) = conn.execute("SELECT COUNT(*) FROM games").fetchone()
            if count >= stored[0]:
                (pages,) = conn.execute("PRAGMA page_count").fetchone()
                conn.execute(f"PRAGMA max_page_count = {pages}")
        return conn

    monkeypatch.setattr(sqlite3, "connect", connect)
    yield stored


def test_tournament_database_full_then_resume(
    tmp_path: Path, full_database: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    assert main(["tournament", *TOURNAMENT, "--out", str(run)]) == 2
    err = capsys.readouterr().err
    assert _error_lines(err) == [f"error: cannot write {run / 'results.sqlite'}: {NOSPACE}"]
    assert f"finish with treestrap tournament --resume {run}" in err
    full_database[0] = -1  # space freed
    assert main(["tournament", "--resume", str(run), "--quiet"]) == 0
    check = check_tournament(run)
    assert check.ok and check.games == 12, check.problems


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS])
def test_tournament_pgn_unwritable_then_resume(
    code: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """The PGN append after game FAIL_AT's commit fails (the first half written): the
    game is in the database, and resuming writes the PGN anew from it."""
    run = tmp_path / "run"
    appends = itertools.count(1)

    class Filling:
        def __init__(self, fh: Any) -> None:
            self.fh = fh

        def __enter__(self) -> Filling:
            return self

        def __exit__(self, *exc: object) -> None:
            self.fh.close()

        def write(self, text: str) -> int:
            self.fh.write(text[: len(text) // 2])
            raise OSError(code, os.strerror(code))

    def fake_open(path: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        fh = open(path, mode, *args, **kwargs)  # noqa: SIM115 (closed by the wrapper)
        if mode == "a" and next(appends) >= FAIL_AT:
            return Filling(fh)
        return fh

    with monkeypatch.context() as mp:
        mp.setattr(tournament_store, "open", fake_open, raising=False)
        assert main(["tournament", *TOURNAMENT, "--out", str(run)]) == 2
    err = capsys.readouterr().err
    assert _error_lines(err) == [f"error: cannot write {run / 'games.pgn'}: {os.strerror(code)}"]
    assert main(["tournament", "--resume", str(run), "--quiet"]) == 0
    check = check_tournament(run)
    assert check.ok and check.games == 12, check.problems


# --- other commands, and the message itself --------------------------------------------


def test_weights_preset_into_a_read_only_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "ro" / "w.npz"

    def mkstemp(*args: Any, dir: Any = None, prefix: str = "", suffix: str = "", **kw: Any):
        raise OSError(errno.EROFS, READONLY, os.path.join(dir, f"{prefix}abcd{suffix}"))

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    assert main(["weights", "preset", "hand-set", str(out)]) == 2
    captured = capsys.readouterr()
    [line] = _error_lines(captured.err)
    assert READONLY in line and str(out.parent) in line
    assert not out.exists() and captured.out == ""


@pytest.mark.parametrize(
    ("error", "shown"),
    [
        (
            OSError(errno.ENOSPC, NOSPACE, "runs/x/metrics.jsonl"),
            f"cannot write runs/x/metrics.jsonl: {NOSPACE}",
        ),
        (OSError(errno.EROFS, READONLY, "runs/x"), f"cannot write runs/x: {READONLY}"),
        (
            FileNotFoundError(errno.ENOENT, "No such file or directory", "a.pgn"),
            "a.pgn: No such file or directory",
        ),
        (OSError(errno.ENOSPC, NOSPACE), NOSPACE),
        (OSError("no errno"), "no errno"),
    ],
)
def test_os_errors_are_described_by_file_and_reason(error: OSError, shown: str) -> None:
    assert describe_os_error(error) == shown


def test_an_unwritable_run_directory_is_an_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The directory itself cannot be made: no run, nothing to resume, one line."""
    run = tmp_path / "ro" / "run"
    real_mkdir = Path.mkdir

    def mkdir(self: Path, *args: Any, **kwargs: Any) -> None:
        if self == run:
            raise OSError(errno.EROFS, READONLY, str(self))
        real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", mkdir)
    assert main(["train", "--out", str(run), *TRAIN]) == 2
    err = capsys.readouterr().err
    assert _error_lines(err) == [f"error: cannot write {run}: {READONLY}"]
    assert "resume" not in err


def test_an_error_in_the_main_process_stops_the_workers_at_once() -> None:
    """The disk fills while a long game is in flight: its worker is stopped, not waited
    for (the interpreter would wait for it before the command could exit)."""
    import dataclasses
    import multiprocessing

    from treestrap.play.gamepool import run_games
    from treestrap.play.timecontrol import parse_time_control
    from treestrap.play.tournament import TournamentConfig, plan_tournament

    config = TournamentConfig(["hand-set", "random:1"], tc="depth=1", max_plies=400)
    quick, slow = plan_tournament(config).games
    # Depth 12 with random weights: minutes of search, so the worker is mid-game.
    slow = dataclasses.replace(slow, tc=parse_time_control("depth=12"))

    def on_done(game_id: int, record: object) -> None:
        raise OSError(errno.ENOSPC, NOSPACE, "results.sqlite")

    earlier = set(multiprocessing.active_children())  # other tests' processes
    with pytest.raises(OSError):
        run_games({0: slow, 1: quick}, 2, on_done)
    for child in set(multiprocessing.active_children()) - earlier:
        assert _ends_within(child, 30.0), "a worker went on with its game"


def _ends_within(process: Any, seconds: float) -> bool:
    """Whether ``process`` has exited within ``seconds``. ``Process.is_alive`` alone can
    say True after the end: when the pool's manager thread reaps the process first, our
    ``waitpid`` fails with ECHILD, which multiprocessing reads as "still running". The
    kernel's view of the pid settles it: gone, or a zombie, means it has exited."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        process.join(timeout=0.2)
        if not process.is_alive():
            return True
        try:
            stat = Path(f"/proc/{process.pid}/stat").read_text()
        except FileNotFoundError:
            return True
        if stat.rsplit(")", 1)[-1].split()[0] in ("Z", "X"):
            return True
    return False
