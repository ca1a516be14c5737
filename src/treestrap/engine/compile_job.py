"""Compiling the engine's kernels in a process of its own, so the compile outlives the
engine that asked for it.

A cold compile cache costs the UCI engine its search for a minute or more. Compiling
inside the engine's process would hold the interpreter's lock (the GUI's ``uci`` waits),
and a runner that starts a fresh engine for each game ends each process before its
compile is done: the cache would never fill. So the engine starts this job in a session
of its own (``python -m treestrap.engine.compile_job``), answers at once, and loads the
kernels from the cache when the job says they are there.

The job's word is a marker file, :data:`READY_MARKER`, in the compile cache's directory
(one directory per version of the compiled sources, so a marker never outlives the code
it speaks for). One job compiles at a time: each takes an exclusive lock on
:data:`LOCK_FILE` first, and a job that gets it after another finds the marker and ends.
A job that dies leaves no marker; the next engine starts another, which loads what the
first one cached and compiles the rest.

``treestrap compile`` runs the same steps in the foreground with a progress bar (for
images and installs that should start warm).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

#: The file whose presence says every kernel a UCI session uses is in the cache.
READY_MARKER = "uci-ready"
#: The file a compiling job holds an exclusive lock on.
LOCK_FILE = "uci-compile.lock"
#: Where a background job writes what it prints (its traceback, if it fails).
LOG_FILE = "uci-compile.log"


def cache_dir() -> Path | None:
    """This version's compile cache directory; None when kernels are not cached (no
    writable directory, or numba's compiler switched off)."""
    import numba

    from treestrap.core.jit import JIT_DISABLED, JIT_FLAGS

    if JIT_DISABLED or not JIT_FLAGS["cache"]:
        return None
    return Path(numba.config.CACHE_DIR)


def is_ready() -> bool:
    """Whether a job has put every kernel of a UCI session into the cache."""
    directory = cache_dir()
    return directory is not None and (directory / READY_MARKER).is_file()


def _notation() -> None:
    from treestrap.core.notation import format_fen, legal_moves, parse_fen
    from treestrap.core.position import current_key

    pos = parse_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    format_fen(pos)
    current_key(pos)
    legal_moves(pos)


def _search() -> None:
    from treestrap.engine.engine import Engine
    from treestrap.engine.uci_protocol import parse_position
    from treestrap.evaluation.presets import hand_set_model
    from treestrap.search.timeman import SearchLimits

    # Every model kind's evaluator has the same compiled types, so one search compiles
    # the search for them all.
    pos = parse_position(["startpos", "moves", "e2e4"])
    Engine(hand_set_model().evaluator(), hash_mb=1).go(pos, SearchLimits(depth=2))


#: What a UCI session compiles, in order: (what the progress bar says, the step).
STEPS: tuple[tuple[str, Callable[[], None]], ...] = (
    ("board and notation", _notation),
    ("search and evaluation", _search),
)


def compile_kernels(report: Callable[[str], None] = lambda label: None) -> None:
    """Compile (or load from the cache) every kernel a UCI session uses, telling
    ``report`` each step's name as it starts, and write the marker when a cache holds
    them."""
    for label, step in STEPS:
        report(label)
        step()
    directory = cache_dir()
    if directory is not None:
        (directory / READY_MARKER).touch()


def run_job(report: Callable[[str], None] | None = None) -> bool:
    """Wait for any other job, then compile what is missing (``report`` as for
    :func:`compile_kernels`; by default a line with the seconds so far, for the log).
    False when the kernels were in the cache already."""
    directory = cache_dir()
    if directory is None:  # nothing to fill: compiled in the process that uses them
        return False
    if report is None:
        start = time.monotonic()

        def report(label: str) -> None:
            print(f"{time.monotonic() - start:6.1f} s  {label}", flush=True)

    with open(directory / LOCK_FILE, "a") as lock:
        try:
            import fcntl
        except ImportError:  # no POSIX locks (Windows): two jobs may compile at once
            pass
        else:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the process ends, however
        if is_ready():
            return False
        compile_kernels(report)
        report("done")
    return True


def start_job() -> subprocess.Popen[bytes] | None:
    """Start the background job in a session of its own (a runner that ends the
    engine's process group leaves it running); None when nothing is cached."""
    directory = cache_dir()
    if directory is None:
        return None
    log = open(directory / LOG_FILE, "ab")  # noqa: SIM115 - the child writes it
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "treestrap.engine.compile_job"],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    finally:
        log.close()


def wait_for_job(job: subprocess.Popen[bytes] | None, poll: float = 0.2) -> bool:
    """Wait until the marker is written; False when the job ended without it (it
    failed: the caller compiles in its own process)."""
    while not is_ready():
        if job is None or job.poll() is not None:
            return is_ready()
        time.sleep(poll)
    return True


if __name__ == "__main__":
    run_job()
