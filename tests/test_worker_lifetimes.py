"""Worker processes stop with the process that started them: a bootstrap run stopped by
SIGTERM (handled as Ctrl-C) or by SIGKILL leaves no self-play actor playing on, and
neither does a killed tournament, reproduction or dataset build with its pools; a pool
stopped inside that SIGTERM handling ends without a traceback; a round played again
drops the half-written chunks a kill left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from treestrap.bootstrap.actors import remove_chunk_temporaries

# The slow chunk player lives in a module of its own, so the spawned workers can import
# it: each writes its pid to a file and then plays for a minute.
SLOW_PLAYER = """
import os, time
from pathlib import Path

class Settings:
    chunk = 1

    def chunks(self):
        return 4


def play(player, settings, data_dir, index):
    Path(data_dir, f"worker-{os.getpid()}").write_text("")
    time.sleep(60)
"""

# The run's process: two actors under the SIGTERM handling of `treestrap bootstrap`.
RUN = """
import sys
from pathlib import Path
import slow_player
from treestrap.bootstrap.actors import play_round
from treestrap.commands.interrupts import terminate_as_interrupt

if __name__ == "__main__":  # the spawned workers import this file too
    try:
        with terminate_as_interrupt():
            play_round(Path("p"), slow_player.Settings(), Path(sys.argv[1]), actors=2,
                       progress=False, play=slow_player.play)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(130)
"""

linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="workers die with their parent on Linux"
)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


# A tournament's pool (the platform's start method) whose two games each write the
# worker's pid and then last a minute.
TOURNAMENT = """
import os, sys, time
from pathlib import Path
import treestrap.play.gamepool as gamepool

def slow_game(folder):
    Path(folder, f"worker-{os.getpid()}").write_text("")
    time.sleep(60)

if __name__ == "__main__":
    gamepool.play_game = slow_game  # what the pool's workers are handed
    gamepool.run_games({0: sys.argv[1], 1: sys.argv[1]}, 2, on_done=print)
"""

# The reproductions' training pool (spawned, one torch thread each).
TRAINING = """
import os, sys, time
from pathlib import Path
from treestrap.reproduce.workers import spawn_pool

if __name__ == "__main__":
    pool = spawn_pool(2)
    for pid in {pool.submit(os.getpid).result() for _ in range(8)}:
        Path(sys.argv[1], f"worker-{pid}").write_text("")
    pool.submit(time.sleep, 60)
    time.sleep(60)
"""


# The supervised datasets' pool (`dataset build` and `dataset generate`): two tasks
# that each write the worker's pid and then last a minute.
DATASET = """
import os, sys, time
from pathlib import Path
from treestrap.supervised.dataset.parallel import run_parallel

def slow_task(folder):
    Path(folder, f"worker-{os.getpid()}").write_text("")
    time.sleep(60)

if __name__ == "__main__":
    list(run_parallel(slow_task, [sys.argv[1], sys.argv[1]], 2))
"""


# The distributed learner's actor processes (`treestrap train --actors`), each handed a
# game of depth-9 searches that lasts well past the test's ten seconds.
TRAIN_ACTORS = """
import dataclasses, sys, time
from pathlib import Path
from treestrap.distributed.local import LocalBackend
from treestrap.distributed.messages import Job
from treestrap.training.config import TrainConfig, apply_preset

if __name__ == "__main__":
    config = dataclasses.replace(apply_preset(TrainConfig(games=2), "quick"), depth=9)
    backend = LocalBackend(2)
    backend.start(config)
    for slot in range(2):
        backend.submit(slot, Job(ticket=slot, version=0))
    for pid in backend.pids():
        Path(sys.argv[1], f"worker-{pid}").write_text("")
    time.sleep(60)
"""


def _script_env(folder: Path) -> dict[str, str]:
    """The environment of a script in ``folder``: it imports its neighbours and
    treestrap, and so do the workers it spawns."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), *sys.path])}


def _start_run(
    tmp_path: Path, script: str = RUN, workers: int = 2
) -> tuple[subprocess.Popen[str], list[int]]:
    (tmp_path / "slow_player.py").write_text(textwrap.dedent(SLOW_PLAYER))
    (tmp_path / "run.py").write_text(textwrap.dedent(script))
    data = tmp_path / "data"
    data.mkdir()
    run = subprocess.Popen(
        [sys.executable, str(tmp_path / "run.py"), str(data)],
        cwd=tmp_path,
        env=_script_env(tmp_path),
        stdout=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while len(list(data.glob("worker-*"))) < workers:
        assert time.monotonic() < deadline, "the actors did not start"
        assert run.poll() is None, "the run ended before its actors started"
        time.sleep(0.2)
    pids = [int(path.name.split("-")[1]) for path in data.glob("worker-*")]
    return run, pids


def _gone_within(pids: list[int], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while any(_alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


@linux_only
def test_sigterm_interrupts_the_run_and_stops_its_actors(tmp_path: Path) -> None:
    run, workers = _start_run(tmp_path)
    run.send_signal(signal.SIGTERM)
    out, _ = run.communicate(timeout=30)
    assert run.returncode == 130 and "interrupted" in out
    assert _gone_within(workers, 10), "an actor outlived its interrupted run"


@linux_only
@pytest.mark.parametrize(
    ("script", "workers"),
    [(RUN, 2), (TOURNAMENT, 2), (TRAINING, 1), (DATASET, 2), (TRAIN_ACTORS, 2)],
    ids=[
        "bootstrap actors",
        "tournament game workers",
        "reproduction training workers",
        "dataset workers",
        "distributed training actors",
    ],
)
def test_a_killed_process_takes_its_workers_with_it(
    tmp_path: Path, script: str, workers: int
) -> None:
    run, pids = _start_run(tmp_path, script, workers)
    run.kill()
    run.wait(timeout=30)
    assert _gone_within(pids, 10), "a worker outlived the process it was started by, killed"


# A pool forked inside the SIGTERM handling of `treestrap bootstrap`, its worker idle,
# stopped the way a gate decided early stops its games.
STOPPED_POOL = """
import os, time
from concurrent import futures
from treestrap.commands.interrupts import terminate_as_interrupt
from treestrap.play.gamepool import die_with_parent, stop_workers

if __name__ == "__main__":
    with terminate_as_interrupt():
        pool = futures.ProcessPoolExecutor(1, initializer=die_with_parent,
                                           initargs=(os.getpid(),))
        pool.submit(os.getpid).result()  # the worker now waits for its next game
        time.sleep(0.5)
        stop_workers(pool)
        pool.shutdown(wait=False, cancel_futures=True)
    print("stopped", flush=True)
"""


# The interpreter's exit hook for process pools, slowed between its check that the
# manager thread's wake-up pipe is open and its write to it: a manager thread still
# ending then closes the pipe under the write (Python 3.11), as it rarely does unslowed.
SLOW_EXIT_HOOK = """
import time
from concurrent.futures import process

def slow_wakeup(self):
    if not self._closed:
        time.sleep(0.5)
        self._writer.send_bytes(b"")

process._ThreadWakeup.wakeup = slow_wakeup
"""


@pytest.mark.parametrize("exit_hook", ["", SLOW_EXIT_HOOK], ids=["as is", "slowed exit hook"])
def test_a_pool_stopped_inside_the_sigterm_handling_ends_quietly(
    tmp_path: Path, exit_hook: str
) -> None:
    (tmp_path / "run.py").write_text(textwrap.dedent(exit_hook) + textwrap.dedent(STOPPED_POOL))
    done = subprocess.run(
        [sys.executable, str(tmp_path / "run.py")],
        env=_script_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and "stopped" in done.stdout
    assert "Traceback" not in done.stderr, done.stderr


def test_a_round_played_again_drops_the_chunks_a_kill_left_half_written(
    tmp_path: Path,
) -> None:
    (tmp_path / "chunk-0000.tspos").write_bytes(b"done")
    (tmp_path / "chunk-0000.json").write_text("{}")
    (tmp_path / "chunk-0001.tspos.4242.tmp").write_bytes(b"half")
    (tmp_path / "chunk-0002.tspos.17.tmp").write_bytes(b"half")
    remove_chunk_temporaries(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chunk-0000.json", "chunk-0000.tspos"]
