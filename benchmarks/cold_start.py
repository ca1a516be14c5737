"""Start-up of ``treestrap uci`` with an empty compile cache, as a new user meets it.

    python benchmarks/cold_start.py
    python benchmarks/cold_start.py --preset hand-set --kill-after 5 --second-after 90

Three runs, each talking to the engine as a GUI does (``uci``, ``isready``, ``position
startpos``, a ``go``), each printing the seconds from the start of its process to each
answer:

* **cold**: a new process on an empty cache (``TREESTRAP_CACHE_DIR`` a new temporary
  directory; the user's own cache is neither read nor touched): ``uciok``, then ``go
  depth 6``, which waits for the compiled search. The compile job's log
  (src/treestrap/engine/compile_job.py) says where the time went.
* **warm**: a second process on the cache the cold run filled: ``uciok``, ``go depth 6``.
* **killed**: a new process on another empty cache, killed ``--kill-after`` seconds
  after it started (as a runner ends an engine it has no more use for); a second
  engine started ``--second-after`` seconds after the first gets a timed ``go``
  (10s+0.1s, a game's first move): the table says whether the compiled search or the
  quick search of a cold start answered it, then ``go depth 6``.

``--where N`` instead compiles in the benchmark's own process and prints where the
compile time goes: the N modules and the N kernels that take the most, each kernel's
time without that of the kernels it calls.

Goals (the cold-start issue): ``uciok`` within 1 s, ``go depth 6`` within 45 s cold, and
the killed engine's compile used by the second.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

#: The goals, in seconds.
UCIOK_GOAL_S = 1.0
DEPTH6_COLD_GOAL_S = 45.0
#: A run that takes longer than this is killed.
RUN_LIMIT_S = 900.0
#: The answer of a timed go before the compiled search is loaded (engine/uci.py).
QUICK_SEARCH = "still compiling"


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

    def wait_for(self, word: str) -> tuple[float, list[str]]:
        """Seconds since the start when a line beginning with ``word`` arrived, and the
        lines read up to it."""
        assert self.proc.stdout is not None
        lines = []
        for line in self.proc.stdout:
            lines.append(line)
            if line.split()[:1] == [word]:
                return self.now(), lines
        raise RuntimeError(f"the engine ended (or was killed) before '{word}'")

    def close(self) -> None:
        try:
            if self.proc.poll() is None:
                self.send("quit")
                self.proc.wait(timeout=30)
        finally:
            self._killer.cancel()
            if self.proc.poll() is None:
                self.proc.kill()


def engine(command: list[str], cache_dir: str) -> Session:
    return Session(command, {**os.environ, "TREESTRAP_CACHE_DIR": cache_dir})


def handshake(session: Session) -> float:
    session.send("uci")
    return session.wait_for("uciok")[0]


def depth6(session: Session) -> float:
    session.send("position startpos")
    session.send("go depth 6")
    return session.wait_for("bestmove")[0]


def compile_log(cache_dir: str) -> str:
    logs = sorted(Path(cache_dir).glob("*/uci-compile.log"))
    return "".join(log.read_text() for log in logs)


def killed_then_second(
    command: list[str], cache_dir: str, kill_after: float, second_after: float
) -> None:
    first = engine(command, cache_dir)
    uciok = handshake(first)
    time.sleep(max(0.0, kill_after - first.now()))
    first.proc.kill()
    first.proc.wait()
    first.close()
    print(f"killed    uciok {uciok:6.2f}  killed at {first.now():6.2f}")
    time.sleep(max(0.0, second_after - first.now()))
    second = engine(command, cache_dir)
    try:
        uciok = handshake(second)
        second.send("position startpos")
        second.send("go wtime 10000 btime 10000 winc 100 binc 100")
        answered, lines = second.wait_for("bestmove")
        by = (
            "the quick search"
            if any(QUICK_SEARCH in line for line in lines)
            else "the compiled search"
        )
        done = depth6(second)
    finally:
        second.close()
    print(
        f"second    uciok {uciok:6.2f}  timed go answered at {answered:6.2f} by {by}; "
        f"go depth 6 {done:6.2f}  (started {second_after:g} s after the first)"
    )


def where_the_time_goes(top: int) -> None:
    """Compile a session's kernels in this process on an empty cache and print the
    compile time of each kernel without the kernels it calls (numba's compile events),
    by module and for the slowest kernels."""
    import collections

    with tempfile.TemporaryDirectory(prefix="treestrap-cold-") as cache_dir:
        os.environ["TREESTRAP_CACHE_DIR"] = cache_dir
        from numba.core import event

        from treestrap.engine import compile_job

        own: collections.Counter[str] = collections.Counter()
        stack: list[list[float]] = []

        class Timer(event.Listener):
            def on_start(self, ev: event.Event) -> None:
                stack.append([time.process_time(), 0.0])

            def on_end(self, ev: event.Event) -> None:
                began, inner = stack.pop()
                spent = time.process_time() - began
                function = ev.data["dispatcher"].py_func
                own[f"{function.__module__}.{function.__qualname__}"] += spent - inner
                if stack:
                    stack[-1][1] += spent

        event.register("numba:compile", Timer())
        start = time.process_time()
        compile_job.compile_kernels()
        total = time.process_time() - start
    by_module: collections.Counter[str] = collections.Counter()
    for name, seconds in own.items():
        by_module[name.rsplit(".", 1)[0].removeprefix("treestrap.")] += seconds
    print(f"compile CPU time {total:.1f} s, {len(own)} kernels; by module:")
    for module, seconds in by_module.most_common(top):
        print(f"  {seconds:6.1f} s  {module}")
    print("slowest kernels (without the kernels they call):")
    for name, seconds in own.most_common(top):
        print(f"  {seconds:6.1f} s  {name.removeprefix('treestrap.')}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", help="treestrap uci --preset (default: the engine's)")
    parser.add_argument("--kill-after", type=float, default=5.0, metavar="S")
    parser.add_argument("--second-after", type=float, default=90.0, metavar="S")
    parser.add_argument(
        "--where",
        type=int,
        metavar="N",
        help="instead: compile in this process and print the N modules and kernels "
        "that take the most compile time",
    )
    args = parser.parse_args()
    if args.where:
        where_the_time_goes(args.where)
        return 0
    command = [sys.executable, "-m", "treestrap.cli", "uci"]
    if args.preset:
        command += ["--preset", args.preset]
    with tempfile.TemporaryDirectory(prefix="treestrap-cold-") as cache_dir:
        for label in ("cold", "warm"):
            session = engine(command, cache_dir)
            try:
                uciok, done = handshake(session), depth6(session)
            finally:
                session.close()
            print(f"{label:<9} uciok {uciok:6.2f}  go depth 6 {done:6.2f}")
            if label == "cold":
                print("compile job:\n" + compile_log(cache_dir), end="")
    with tempfile.TemporaryDirectory(prefix="treestrap-cold-") as cache_dir:
        killed_then_second(command, cache_dir, args.kill_after, args.second_after)
    print(
        f"goals: uciok within {UCIOK_GOAL_S:g} s, cold go depth 6 within {DEPTH6_COLD_GOAL_S:g} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
