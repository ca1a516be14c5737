"""Shared test fixtures.

Reference data (perft suites, opening lines, solved Connect Four positions, an excerpt
of a master-game collection) ships in ``reference/`` at the repository's root, its
sources and licences in ``reference/README.md``; ``TREESTRAP_DATA`` points the tests at
another folder laid out the same way. A test that needs a missing file or engine skips
with a clear message on a user's machine but fails under ``CI=true``, so CI can never
pass by skipping.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from tictactoe_game import TICTACTOE_FACTS

from treestrap.games.registry import register

# Tic-tac-toe is a game of the test suite alone (tests/tictactoe_game.py), registered
# before collection: every test over the registered games (the conformance suite) takes
# it too.
register(TICTACTOE_FACTS)

REPO_ROOT = Path(__file__).resolve().parents[1]
#: The toy engines in tests/engines are programs the tests run, not test modules (a
#: conftest.py of their own would shadow this one for ``from conftest import ...``).
collect_ignore_glob = ["engines/*"]


def data_dir() -> Path:
    """The reference data: ``reference/`` of the checkout, or ``TREESTRAP_DATA``."""
    return Path(os.environ.get("TREESTRAP_DATA", REPO_ROOT / "reference"))


def require(condition: bool, reason: str) -> None:
    """Skip (or, under CI, fail) when a test's external requirement is missing; at a
    module's top level it skips (or fails) the whole module."""
    if condition:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"required under CI: {reason}")
    pytest.skip(reason, allow_module_level=True)


def require_module(name: str, extra: str) -> ModuleType:
    """Module ``name``, imported, or skip (fail under CI) when the ``extra`` install
    extra that brings it (``.[dev]`` includes every extra) is missing."""
    require(importlib.util.find_spec(name) is not None, f"{name} is not installed (.[{extra}])")
    return importlib.import_module(name)


@pytest.fixture
def reference_data():
    """``reference_data("perft/perftsuite.epd")`` -> path, or skip/fail if missing."""

    def locate(relative: str) -> Path:
        path = data_dir() / relative
        require(path.exists(), f"reference file {relative} not found under {data_dir()}")
        return path

    return locate


@pytest.fixture
def session() -> Iterator[object]:
    """An in-process UCI session with the hand-set weights (``uci_session.Session``)."""
    from uci_session import Session

    s = Session()
    yield s
    s.close()


def require_binary(name: str) -> str:
    """An engine's path as the players find it (PATH, then /usr/games, where Debian
    installs them), or skip/fail if missing."""
    from treestrap.play.players import find_engine

    path = find_engine(name)
    require(path is not None, f"engine binary {name!r} not on PATH or in /usr/games")
    return path  # type: ignore[return-value]


# Numba's ``cache=True`` has a known failure mode (numba/numba#6061): a kernel that calls
# a *recursive* kernel can crash with a segmentation fault when it is loaded back from
# the on-disk cache, although it ran fine in the process that compiled it. Such a crash
# would kill the whole pytest run, so tests that use a recursive kernel request this
# fixture: it runs the kernels twice in child processes (the second run certainly loads
# from the cache the first wrote) and fails the requesting test cleanly if a run crashed.
# The search family's kernels (search/family.py: one copy per game of a plain function)
# must load from that cache too, never compile again: the second run checks each one.
_CACHE_PROBE = """
from treestrap.core.notation import STARTING_FEN, parse_fen
from treestrap.core.perft import divide, perft
pos = parse_fen(STARTING_FEN)
assert perft(pos, 3) == perft(pos, 3, bulk=False) == 8902
assert sum(c for _, c in divide(pos, 3)) == sum(c for _, c in divide(pos, 3, bulk=False)) == 8902
from treestrap.evaluation.presets import hand_set_model
from treestrap.search.minimax import MinimaxSearch
from treestrap.search.training import TrainingSearch
from treestrap.search.tree import new_tree
from treestrap.search.tt_walk import walk_tt
ev = hand_set_model().evaluator()
ts = TrainingSearch(tt_bits=12)
assert ts.search(pos, ev, 2).best_move != 0
assert walk_tt(pos, ev, ts.tt, new_tree(1000), ts.ctx, 1) > 0
assert MinimaxSearch(capacity=10000).search(pos, ev, 1).best_move != 0
from treestrap.engine.engine import Engine
from treestrap.search.timeman import SearchLimits
assert Engine(ev).go(pos, SearchLimits(depth=4)).best_move is not None
from treestrap.connect4 import search_kernels
from treestrap.connect4.board import parse_moves
from treestrap.connect4.evaluator import new_connect4_tree
from treestrap.connect4.search import Connect4Minimax, Connect4Search, walk_tt as walk_c4
from treestrap.games.connect4_model import hand_written_connect4_model
ev4, pos4 = hand_written_connect4_model().evaluator(), parse_moves("4453")
c4 = Connect4Search(tt_bits=12)
assert c4.search(pos4, ev4, 4).best_move >= 0
walk_c4(pos4, ev4, c4, new_connect4_tree(5000), 1)
assert Connect4Minimax(5000, 2000).search_budget(pos4, ev4).best_move >= 0
from treestrap.connect4.play_search import PlaySearch
from treestrap.games.connect4_players import load_model, parse_connect4_player
assert PlaySearch(12).search(pos4, ev4, 6).best_move >= 0
evn = load_model(parse_connect4_player("ntuple")).evaluator()
assert PlaySearch(12).search(pos4, evn, 6).best_move >= 0
import sys
from treestrap.search import alphabeta, chess_kernels, full_tree, walk
from treestrap.search.family import instantiate
if sys.argv[1:] == ["cached"]:
    for game in (chess_kernels, search_kernels):
        for family in (alphabeta.alphabeta, walk.walk, full_tree.minimax):
            stats = instantiate(family, game).stats
            name = f"{family.__name__} for {game.__name__}"
            assert stats.cache_hits and not stats.cache_misses, f"{name} compiled again"
print("probe ok")
"""


@pytest.fixture(scope="session")
def _cache_probe_result(tmp_path_factory: pytest.TempPathFactory) -> str:
    env = {**os.environ, "TREESTRAP_CACHE_DIR": str(tmp_path_factory.mktemp("numba-cache"))}
    for run in (1, 2):
        proc = subprocess.run(
            [sys.executable, "-c", _CACHE_PROBE, *(["cached"] if run == 2 else [])],
            capture_output=True,
            text=True,
            cwd=REPO_ROOT,
            timeout=600,
            env=env,
        )
        if proc.returncode != 0 or "probe ok" not in proc.stdout:
            how = f"exit code {proc.returncode}"
            if proc.returncode < 0:
                how = f"killed by {signal.Signals(-proc.returncode).name}"
            tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
            return (
                f"the compiled kernels crashed in a child process (run {run}, {how}; run 2 "
                f"certainly loads them from numba's cache, see treestrap.core.jit): {tail}"
            )
    return ""


@pytest.fixture
def kernels_load_from_cache(_cache_probe_result: str) -> None:
    """Fail (instead of crashing the run) if cached recursive kernels segfault."""
    if _cache_probe_result:
        pytest.fail(_cache_probe_result)


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    """A local Ray cluster of 2 CPUs for one test module (the Ray backend's tests),
    started as the commands start theirs."""
    require_module("ray", "ray")
    from treestrap.distributed.ray_support import ray_session

    with ray_session(num_cpus=2):
        yield
