"""Start-up time of ``treestrap uci``: from starting a fresh process to its ``bestmove``,
with an empty compile cache (cold) and then again with the cache that run left (warm).

    python benchmarks/cold_start.py                 # go depth 1 and go movetime 1000
    python benchmarks/cold_start.py --preset hand-set

Each run talks to the engine as a GUI does: ``uci``, wait for ``uciok``; ``isready``,
wait for ``readyok`` (the engine answers it once its kernels are compiled or loaded, or
after at most ``READY_WAIT`` seconds, src/treestrap/engine/uci.py);
``position startpos``, ``go ...``, wait for ``bestmove``; ``quit``. It prints the
seconds from the start of the process to each answer, and for ``go movetime`` how far
past the asked time the ``bestmove`` came (measured from the ``go``). A timed ``go``
that comes before the kernels are compiled is answered by the engine's quick move
(src/treestrap/engine/quick_move.py); one with no clock (``go depth 1``) waits for them.

The cold run points ``TREESTRAP_CACHE_DIR`` at a new temporary directory (the user's
own cache is neither read nor touched; ``core/compile_cache.py``), the warm run is a
second process on that same directory. Each ``go`` gets its own pair of runs and its
own directory. The issue's goals: cold under 10 s, warm under 1 s.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass

#: Issue #27's goals for the first answer, in seconds.
COLD_GOAL_S = 10.0
WARM_GOAL_S = 1.0
#: A run that takes longer than this is killed (a cold compile on a slow machine
#: takes a minute or two).
RUN_LIMIT_S = 900.0


@dataclass
class StartUp:
    """Seconds from the start of the process to each answer."""

    uciok: float
    readyok: float
    go_sent: float
    bestmove: float


class Session:
    """A ``treestrap uci`` process and the clock started with it."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.start = time.perf_counter()
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        self._killer = threading.Timer(RUN_LIMIT_S, self.proc.kill)
        self._killer.start()

    def now(self) -> float:
        return time.perf_counter() - self.start

    def send(self, line: str) -> float:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self.now()

    def wait_for(self, word: str) -> float:
        """Seconds since the start when a line beginning with ``word`` arrived."""
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.split()[:1] == [word]:
                return self.now()
        raise RuntimeError(f"the engine ended (or was killed) before '{word}'")

    def close(self) -> None:
        try:
            self.send("quit")
            self.proc.wait(timeout=30)
        finally:
            self._killer.cancel()
            if self.proc.poll() is None:
                self.proc.kill()


def start_up(command: list[str], cache_dir: str, go: str) -> StartUp:
    env = {**os.environ, "TREESTRAP_CACHE_DIR": cache_dir}
    session = Session(command, env)
    try:
        session.send("uci")
        uciok = session.wait_for("uciok")
        session.send("isready")
        readyok = session.wait_for("readyok")
        session.send("position startpos")
        go_sent = session.send(go)
        bestmove = session.wait_for("bestmove")
        # A timed go may have been answered by a quick move while the kernels were
        # still compiling; a go with no clock waits for them, so the cache is whole
        # when the session ends (as after a user's first game) and the warm run is warm.
        session.send("go depth 1")
        session.wait_for("bestmove")
    finally:
        session.close()
    return StartUp(uciok, readyok, go_sent, bestmove)


def versions(cache_dir: str) -> set[str]:
    return set(os.listdir(cache_dir)) if os.path.isdir(cache_dir) else set()


def measure(command: list[str], go: str) -> tuple[StartUp, StartUp]:
    """(cold, warm) for one ``go``. A warm run that made a new cache version (the
    sources were edited in between) is repeated once."""
    with tempfile.TemporaryDirectory(prefix="treestrap-cold-") as cache_dir:
        cold = start_up(command, cache_dir, go)
        known = versions(cache_dir)
        warm = start_up(command, cache_dir, go)
        if versions(cache_dir) - known:
            print("  (the sources changed during the cold run: warm run repeated)")
            warm = start_up(command, cache_dir, go)
    return cold, warm


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", help="treestrap uci --preset (default: the engine's)")
    args = parser.parse_args()
    command = [sys.executable, "-m", "treestrap.cli", "uci"]
    if args.preset:
        command += ["--preset", args.preset]
    print(f"{'go':<17} {'cache':<5} {'uciok':>7} {'readyok':>8} {'bestmove':>9} {'after go':>9}")
    for go, asked in (("go depth 1", 0.0), ("go movetime 1000", 1.0)):
        cold, warm = measure(command, go)
        for label, run, goal in (("cold", cold, COLD_GOAL_S), ("warm", warm, WARM_GOAL_S)):
            after_go = run.bestmove - run.go_sent
            verdict = "met" if run.bestmove - asked <= goal else "NOT met"
            print(
                f"{go:<17} {label:<5} {run.uciok:>7.2f} {run.readyok:>8.2f} "
                f"{run.bestmove:>9.2f} {after_go:>9.2f}  goal {goal:g} s "
                f"(+{asked:g} s asked): {verdict}"
            )
    print("seconds from the start of the process; 'after go': from the go to the bestmove")
    return 0


if __name__ == "__main__":
    sys.exit(main())
