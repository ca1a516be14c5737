"""Kill soaks: ``treestrap train`` and ``treestrap tournament`` killed with SIGKILL at
random moments, resumed, and their directories checked afterwards.

Shared by ``tests/test_kill_resume.py`` (a few kills) and ``benchmarks/kill_soak.py``
(many). It lives beside the tests, not in the package: it is a harness that starts and
kills the command line, and what it checks is what the package promises anyway (every
game once, every file readable), not something a user runs on a run directory.

A kill is timed in one of three ways, so that some land in the middle of a game and
some in the few milliseconds between a game's first record and the write that commits
it (``weights.npz`` of a training run, the database row of a tournament game):

- ``random``: a random delay after the process starts (start-up and resume included);
- ``records``: just after a record file (``games.pgn``/``metrics.jsonl``) grows;
- ``commit``: just after the commit file (``weights.npz``/``results.sqlite``) changes.
"""

from __future__ import annotations

import collections
import io
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import chess.pgn
import numpy as np

from treestrap.evaluation.weight_files import load_weights
from treestrap.play.tournament import load_config, plan_tournament
from treestrap.training.checkpoints import is_log_checkpoint

#: A child that runs longer than this has hung: the soak fails instead of waiting.
PROCESS_TIMEOUT = 300.0
#: How often a watched file is polled (seconds): well under a game's commit window.
POLL = 0.0005
KILL_MODES = ("random", "records", "commit")

# --- checking a directory ----------------------------------------------------------


@dataclass
class Check:
    """What a directory holds against what it should: game ids and readable files."""

    games: int = 0  # distinct game ids found
    lost: int = 0  # expected game ids missing from some file
    duplicated: int = 0  # game ids that appear more than once in some file
    problems: list[str] = field(default_factory=list)  # files that do not load or parse

    def add(self, other: Check) -> None:
        self.games += other.games
        self.lost += other.lost
        self.duplicated += other.duplicated
        self.problems += other.problems

    @property
    def ok(self) -> bool:
        return not (self.lost or self.duplicated or self.problems)


def _count_ids(check: Check, name: str, ids: list[int], expected: set[int]) -> None:
    counts = collections.Counter(ids)
    doubled = sorted(i for i, n in counts.items() if n > 1)
    missing = sorted(expected - counts.keys())
    extra = sorted(counts.keys() - expected)
    check.duplicated = max(check.duplicated, len(doubled))
    check.lost = max(check.lost, len(missing))
    for what, found in (("twice", doubled), ("missing", missing), ("unexpected", extra)):
        if found:
            check.problems.append(f"{name}: games {found[:10]} {what}")


def _read_pgn(path: Path, check: Check) -> list[chess.pgn.Game]:
    """Every game of ``path``; a game that does not parse cleanly is a problem."""
    if not path.exists():
        return []
    data = path.read_bytes()
    if data and not data.endswith(b"\n\n"):
        check.problems.append(f"{path.name}: torn last game")
    games = []
    with open(path, encoding="utf-8") as fh:
        while (game := chess.pgn.read_game(fh)) is not None:
            if game.errors or game.headers.get("Result") not in ("1-0", "0-1", "1/2-1/2"):
                check.problems.append(f"{path.name}: game {len(games) + 1} does not parse")
            games.append(game)
    if data.count(b"[Event ") != len(games):
        check.problems.append(f"{path.name}: {len(games)} games for {data.count(b'[Event ')}")
    return games


def _loads(path: Path, check: Check) -> dict | None:
    try:
        return load_weights(path).metadata
    except Exception as exc:  # WeightFileError, or anything a torn file raises
        check.problems.append(f"{path.name} does not load: {exc}")
        return None


def check_training_run(run: Path, reference: Path | None = None) -> Check:
    """A finished training run: every game once in ``metrics.jsonl`` and ``games.pgn``,
    complete JSON lines, the weights and every checkpoint load, no temporaries left;
    with ``reference`` (an uninterrupted run of the same config), the same weights."""
    check = Check()
    config = json.loads((run / "config.json").read_text())
    games = int(config["games"])
    expected = set(range(1, games + 1))
    meta = _loads(run / "weights.npz", check)
    if meta is not None and meta.get("games") != games:
        check.problems.append(f"weights.npz is at game {meta.get('games')}, not {games}")
    ids = []
    text = (run / "metrics.jsonl").read_text(encoding="utf-8")
    if text and not text.endswith("\n"):
        check.problems.append("metrics.jsonl: torn last line")
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            ids.append(int(json.loads(line)["game"]))
        except (ValueError, KeyError, TypeError):
            check.problems.append(f"metrics.jsonl line {number} is not complete JSON")
    _count_ids(check, "metrics.jsonl", ids, expected)
    rounds = []
    for game in _read_pgn(run / "games.pgn", check):
        try:
            rounds.append(int(game.headers["Round"]))
        except ValueError:
            check.problems.append(f"games.pgn: round {game.headers['Round']!r}")
    _count_ids(check, "games.pgn", rounds, expected)
    check.games = len(set(ids) | set(rounds))
    every = int(config["checkpoint_every"])
    wanted = {n for n in range(games + 1) if n % every == 0 or n == games or is_log_checkpoint(n)}
    found = set()
    for path in sorted((run / "checkpoints").glob("*.npz")):
        found.add(int(path.stem.split("-")[1]))
        _loads(path, check)
    if wanted - found:
        check.problems.append(f"checkpoints missing: {sorted(wanted - found)}")
    leftovers = [p.name for d in (run, run / "checkpoints") for p in d.glob(".*.tmp")]
    if leftovers:
        check.problems.append(f"temporaries left: {leftovers}")
    if reference is not None and meta is not None:
        mine, theirs = load_weights(run / "weights.npz"), load_weights(reference / "weights.npz")
        if not np.array_equal(mine.weights, theirs.weights):
            check.problems.append("weights differ from an uninterrupted run")
    return check


def check_tournament(run: Path) -> Check:
    """A finished tournament: every scheduled game once in ``results.sqlite`` and once
    in ``games.pgn`` (the same text), a sound database, every game parses."""
    check = Check()
    db = run / "results.sqlite"
    expected = set(range(len(plan_tournament(load_config(run)).games)))
    conn = sqlite3.connect(db)
    try:
        (status,) = conn.execute("PRAGMA integrity_check").fetchone()
        rows = conn.execute("SELECT id, pgn FROM games").fetchall()
    finally:
        conn.close()
    if status != "ok":
        check.problems.append(f"results.sqlite: {status}")
    _count_ids(check, "results.sqlite", [int(r[0]) for r in rows], expected)
    check.games = len({r[0] for r in rows})
    # A PGN game is identified by its text (its move times make every one unique).
    stored = {str(chess.pgn.read_game(io.StringIO(pgn))): game_id for game_id, pgn in rows}
    in_file = [stored.get(str(game), -1) for game in _read_pgn(run / "games.pgn", check)]
    _count_ids(check, "games.pgn", in_file, {r[0] for r in rows})
    return check


# --- killing and resuming ----------------------------------------------------------


@dataclass
class Soak:
    """The commands of one kind of soak and how to read its directory."""

    name: str
    start: Callable[[Path], list[str]]  # the first command, given the directory
    resume: Callable[[Path], list[str]]
    started: Callable[[Path], bool]  # whether --resume applies (else start again)
    records: str  # the file a game's first record goes to
    commit: str  # the file whose change commits a game
    dirty: Callable[[Path], bool]  # records ahead of the commit, or torn
    check: Callable[[Path, Path | None], Check]
    seconds: float  # about how long an uninterrupted run takes, start-up included


@dataclass
class SoakResult:
    kills: int = 0  # processes killed
    dirty: int = 0  # kills that left records ahead of the commit point, or torn
    runs: int = 0  # directories finished
    check: Check = field(default_factory=Check)


def _torn(data: bytes, ending: bytes) -> bool:
    return bool(data) and not data.endswith(ending)


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "treestrap.cli", *args]


def training_soak(games: int = 6, max_plies: int = 40, seed: int = 3) -> Soak:
    options = [
        *("--depth", "1", "--games", str(games), "--max-plies", str(max_plies)),
        *("--seed", str(seed), "--checkpoint-every", "3", "--optimizer", "adam"),
    ]

    def dirty(run: Path) -> bool:
        try:
            saved = int(load_weights(run / "weights.npz").metadata["games"])
        except Exception:
            return False  # killed before the first weights: nothing to cut
        metrics = run / "metrics.jsonl"
        pgn = run / "games.pgn"
        lines = metrics.read_bytes() if metrics.exists() else b""
        text = pgn.read_bytes() if pgn.exists() else b""
        return (
            lines.count(b"\n") != saved
            or text.count(b"[Event ") != saved
            or _torn(lines, b"\n")
            or _torn(text, b"\n\n")
        )

    return Soak(
        name="train",
        start=lambda d: _cli("train", "--out", str(d), *options),
        resume=lambda d: _cli("train", "--resume", str(d)),
        started=lambda d: (d / "config.json").is_file(),
        records="games.pgn",
        commit="weights.npz",
        dirty=dirty,
        check=check_training_run,
        seconds=3.0 + 0.4 * games,
    )


def tournament_soak(games_per_pair: int = 2, max_plies: int = 40) -> Soak:
    players = ["hand-set", "random:1", "random:2"]
    options = [
        *("--tc", "depth=1", "--games-per-pair", str(games_per_pair)),
        *("--max-plies", str(max_plies), "--workers", "2", "--quiet"),
    ]

    def dirty(run: Path) -> bool:
        pgn = run / "games.pgn"
        if not (run / "results.sqlite").exists() or not pgn.exists():
            return False
        conn = sqlite3.connect(run / "results.sqlite")
        try:
            (stored,) = conn.execute("SELECT COUNT(*) FROM games").fetchone()
        finally:
            conn.close()
        text = pgn.read_bytes()
        return text.count(b"[Event ") != stored or _torn(text, b"\n\n")

    return Soak(
        name="tournament",
        start=lambda d: _cli("tournament", *players, "--out", str(d), *options),
        resume=lambda d: _cli("tournament", "--resume", str(d), "--quiet"),
        started=lambda d: (d / "results.sqlite").is_file(),
        records="games.pgn",
        commit="results.sqlite",
        dirty=dirty,
        check=lambda d, _ref: check_tournament(d),
        seconds=4.0 + 0.3 * 3 * games_per_pair,
    )


def _stamp(path: Path) -> tuple[int, int]:
    try:
        st = path.stat()
    except FileNotFoundError:
        return (-1, -1)
    return (st.st_size, st.st_mtime_ns)


def run_once(command: list[str], log: Path, kill: Callable[[], bool] | None = None) -> int:
    """Run ``command`` in a session of its own until it ends or ``kill()`` says to
    kill it (and its worker processes) with SIGKILL; its exit status."""
    with open(log, "a") as err:
        proc = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,  # the kill reaches the workers too
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        deadline = time.monotonic() + PROCESS_TIMEOUT
        try:
            while proc.poll() is None:
                if kill is not None and kill():
                    os.killpg(proc.pid, signal.SIGKILL)
                    break
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{' '.join(command[3:5])} ran {PROCESS_TIMEOUT} s")
                time.sleep(POLL)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return proc.returncode


def _killer(soak: Soak, directory: Path, mode: str, rng: random.Random) -> Callable[[], bool]:
    """When to kill: after a random delay, or just after a watched file changes."""
    started = time.monotonic()
    if mode == "random":
        delay = rng.uniform(0.2, soak.seconds)
        return lambda: time.monotonic() - started >= delay
    watched = directory / (soak.records if mode == "records" else soak.commit)
    before = _stamp(watched)
    # A few milliseconds more, sometimes: into the writes that follow the watched one.
    lag = rng.choice((0.0, 0.0, rng.uniform(0.0, 0.005)))
    changed_at: list[float] = []

    def kill() -> bool:
        if not changed_at and _stamp(watched) != before:
            changed_at.append(time.monotonic())
        return bool(changed_at) and time.monotonic() - changed_at[0] >= lag

    return kill


def soak(
    soak: Soak,
    base: Path,
    kills: int,
    rng: random.Random,
    reference: bool = False,
    log: Callable[[str], None] | None = None,
) -> SoakResult:
    """Kill ``kills`` times in all, over as many directories (runs) as that takes, each
    resumed until it finishes and then checked. ``reference``: also run once without
    kills and compare each run's result with it."""
    base.mkdir(parents=True, exist_ok=True)
    errors = base / f"{soak.name}.log"
    ref_dir = None
    if reference:
        ref_dir = base / f"{soak.name}-reference"
        if run_once(soak.start(ref_dir), errors) != 0:
            raise RuntimeError(f"the uninterrupted {soak.name} failed: see {errors}")
    result = SoakResult()
    while result.kills < kills or result.runs == 0:
        directory = base / f"{soak.name}-{result.runs:03d}"
        while True:  # until a process finishes the run (maybe before its kill came)
            command = soak.resume(directory) if soak.started(directory) else soak.start(directory)
            mode = rng.choice(KILL_MODES)
            kill = _killer(soak, directory, mode, rng) if result.kills < kills else None
            began = time.monotonic()
            code = run_once(command, errors, kill)
            seconds = time.monotonic() - began
            if code == 0:
                break
            if code != -signal.SIGKILL:
                raise RuntimeError(f"{soak.name} exited with {code}: see {errors}")
            result.kills += 1
            dirty = soak.dirty(directory)
            result.dirty += dirty
            if log:
                how = f"{mode}{', mid-write' if dirty else ''}, after {seconds:.1f} s"
                log(f"{soak.name}: kill {result.kills} ({how})")
        result.runs += 1
        result.check.add(soak.check(directory, ref_dir))
    return result


def summary(soak_name: str, result: SoakResult) -> str:
    """``train: 40 kills (9 mid-write), 0 lost, 0 duplicated, 36 games in 3 runs,
    all files load``."""
    check = result.check
    files = "all files load" if not check.problems else "; ".join(check.problems[:5])
    return (
        f"{soak_name}: {result.kills} kills ({result.dirty} mid-write), {check.lost} lost, "
        f"{check.duplicated} duplicated, {check.games} games in {result.runs} runs, {files}"
    )
