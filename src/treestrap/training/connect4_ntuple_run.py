"""A run of n-tuple TD(lambda) self-play for Connect Four: the tables of
:mod:`treestrap.connect4.ntuple` learned from empty tables by the games of
:mod:`treestrap.connect4.ntuple_td`, in chunks, resumable.

A run directory holds:

- ``config.json``: the :class:`NTupleSettings`;
- ``weights.npz``: the tables so far, with the run's state in their metadata (games,
  results, CPU seconds), written atomically at a chunk's end at least once a minute;
- ``metrics.jsonl``: one line a chunk (results, plies, exploratory moves, step size,
  epsilon, seconds).

A run of several members (``members``) trains each in ``member-K/`` (a run of its own
with the same tuples and its own games, ``games / members`` of them) and writes the mean
of their tables to its own ``weights.npz`` once all have finished. Member 0 is the run
of one member with the same seed, bit for bit.

Each chunk's games are drawn from ``(seed, chunk number)`` and the step size and
epsilon follow the run's progress (geometric from their first to their last value), so
a run killed and resumed makes the same tables as one that ran straight through.
"""

from __future__ import annotations

import concurrent.futures as futures
import json
import multiprocessing
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from treestrap.evaluation.provenance import (
    KEY,
    SELF_PLAY,
    chain_self_play_only,
    random_parent,
    tool_record,
    weights_sha256,
)
from treestrap.games.connect4_ntuple import (
    Connect4NTupleModel,
    parse_ntuple_spec,
    random_connect4_ntuple,
)
from treestrap.play.gamepool import die_with_parent

CONFIG_FILE = "config.json"
WEIGHTS_FILE = "weights.npz"
METRICS_FILE = "metrics.jsonl"
#: What the learning rule is called in a weight file's metadata.
ALGORITHM = "td-lambda-afterstate"
#: Seconds between saves of the tables (always at the end).
SAVE_EVERY = 60.0
#: The tables start at zero: uniform random weights of this scale.
START_SCALE = 0.0
#: The tool its provenance records name (round 0 of ``treestrap bootstrap``).
TOOL = "treestrap bootstrap"


@dataclass(frozen=True)
class NTupleTD:
    """How the tables learn: TD(lambda) with a step size and an exploration rate that
    fall geometrically from their first to their last value over the run's games."""

    #: step size on each table entry read, at the first game and at the last
    alpha: float = 0.004
    alpha_end: float = 0.001
    #: the lambda of the lambda-return
    lam: float = 0.5
    #: each ply's discount of the return: below 1 a quicker win is worth more and a
    #: longer loss costs less, as the exact scores rank them (1: the result alone)
    gamma: float = 1.0
    #: the chance of a random move, at the first game and at the last
    epsilon: float = 0.1
    epsilon_end: float = 0.01
    #: games a compiled call plays; the run's unit of resumption
    chunk: int = 50_000
    #: temporal coherence: each entry's step scaled by how consistently it has moved
    coherence: bool = False
    #: each game opens with 0 to this many random moves (0: every game from the empty
    #: board, with only epsilon's exploration)
    opening_plies: int = 0
    #: runs of the same tuples, each from its own games, whose tables are averaged: their
    #: errors differ, so the mean is nearer the true values than any one of them
    members: int = 1


@dataclass(frozen=True)
class NTupleSettings(NTupleTD):
    """Everything an n-tuple TD run does: the learning, the shape, the games, the seed."""

    #: ``ntuple:TxL``: T tuples of L cells
    model: str = "ntuple:70x8"
    #: self-play games behind the tables, all members together
    games: int = 6_000_000
    seed: int = 0
    #: which member of an averaged run this is (its games are drawn apart)
    member: int = 0

    def __post_init__(self) -> None:
        parse_ntuple_spec(self.model)
        if self.games < 1 or self.chunk < 1:
            raise ValueError("an n-tuple run needs at least one game and a chunk of one")
        if not 0.0 <= self.lam <= 1.0:
            raise ValueError(f"lambda must be in [0, 1], got {self.lam}")
        if not 0.0 < self.gamma <= 1.0:
            raise ValueError(f"gamma must be in (0, 1], got {self.gamma}")
        if min(self.alpha, self.alpha_end) <= 0.0:
            raise ValueError("the step sizes must be positive")
        if not (0.0 <= self.epsilon <= 1.0 and 0.0 <= self.epsilon_end <= 1.0):
            raise ValueError("epsilon must be in [0, 1]")
        if not 0 <= self.opening_plies <= 20:
            raise ValueError(f"opening_plies must be 0-20, got {self.opening_plies}")
        if self.members < 1 or self.games % self.members:
            raise ValueError(
                f"members must be at least 1 and divide the games, got {self.members} "
                f"members for {self.games} games"
            )
        if not 0 <= self.member < 2**16:
            raise ValueError(f"member must be 0-65535, got {self.member}")

    @property
    def description(self) -> str:
        if self.members > 1:
            return f"{self.model} (connect4, TD(lambda) self-play, mean of {self.members} runs)"
        return f"{self.model} (connect4, TD(lambda) self-play)"

    def chunk_seed(self, number: int) -> int:
        """The seed of chunk ``number``'s games; member 0's are those of a run of one."""
        base = self.seed * 1_000_003 + number
        if self.member == 0:
            return base
        return (base + self.member * 0x9E3779B1) & 0xFFFFFFFF

    def member_settings(self) -> list[NTupleSettings]:
        """The settings of each member's run."""
        share = self.games // self.members
        return [replace(self, games=share, members=1, member=k) for k in range(self.members)]

    def at(self, games: int) -> tuple[float, float]:
        """Step size and epsilon after ``games`` of the run's games."""
        progress = min(1.0, games / self.games)
        alpha = self.alpha * (self.alpha_end / self.alpha) ** progress
        if self.epsilon > 0.0 and self.epsilon_end > 0.0:
            epsilon = self.epsilon * (self.epsilon_end / self.epsilon) ** progress
        else:
            epsilon = self.epsilon + (self.epsilon_end - self.epsilon) * progress
        return alpha, epsilon

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NTupleSettings:
        return cls(**data)


@dataclass
class NTupleState:
    """What a run has done so far (kept in its weight file's metadata)."""

    games: int = 0
    first_wins: int = 0
    draws: int = 0
    second_wins: int = 0
    cpu_seconds: float = 0.0


def new_model(settings: NTupleSettings) -> Connect4NTupleModel:
    """Tuples drawn from the run's seed, tables empty: random weights of scale 0, so
    nothing is known and the start is drawn again from the seed alone."""
    count, length = parse_ntuple_spec(settings.model)
    return random_connect4_ntuple(count, length, settings.seed, scale=START_SCALE)


def _open(
    settings: NTupleSettings | None, run: Path, resume: bool
) -> tuple[NTupleSettings, Connect4NTupleModel, NTupleState]:
    from treestrap.games.connect4_model import load_connect4_model

    config = run / CONFIG_FILE
    if resume:
        if not config.is_file():
            raise ValueError(f"{run}: no {CONFIG_FILE}, not an n-tuple run to resume")
        saved = NTupleSettings.from_json(json.loads(config.read_text()))
        if settings is not None and settings.games > saved.games:
            saved = NTupleSettings.from_json({**saved.to_json(), "games": settings.games})
        settings = saved
    elif settings is None:
        raise ValueError("a new n-tuple run needs its settings")
    elif config.exists():
        raise ValueError(f"{run} already holds a run: resume it or choose another directory")
    run.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps(settings.to_json(), indent=1) + "\n")
    weights = run / WEIGHTS_FILE
    if resume and weights.is_file():
        model = load_connect4_model(weights)
        if not isinstance(model, Connect4NTupleModel) or model.spec != settings.model:
            raise ValueError(f"{weights} is not this run's {settings.model} tables")
        state = NTupleState(**model.metadata.get("run_state", {}))
    else:
        model, state = new_model(settings), NTupleState()
    _keep_metrics(run, state.games)
    return settings, model, state


def member_dir(run: Path, member: int) -> Path:
    return run / f"member-{member}"


def saved_games(run: Path) -> int:
    """The games behind a run's saved tables, its members' together (0 before the first
    save)."""
    members = sorted(run.glob("member-*"))
    if members and not (run / WEIGHTS_FILE).is_file():
        return sum(saved_games(member) for member in members)
    return _saved_state(run).games


def _keep_metrics(run: Path, games: int) -> None:
    """Drop metric lines of chunks after the saved tables (a kill between the two)."""
    path = run / METRICS_FILE
    if not path.exists():
        return
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    kept = [line for line in lines if json.loads(line)["games"] <= games]
    if len(kept) != len(lines):
        path.write_text("".join(line + "\n" for line in kept))


def _coherence_file(run: Path, games: int) -> Path:
    return run / f"coherence-{games}.npz"


def _coherence(
    run: Path, settings: NTupleSettings, tables: np.ndarray, games: int
) -> tuple[np.ndarray, np.ndarray]:
    """Temporal coherence's sums (net steps, step sizes) as the saved tables left them;
    arrays of one entry when the run does not use it."""
    if not settings.coherence:
        return np.zeros(1), np.zeros(1)
    if games == 0:
        return np.zeros_like(tables), np.zeros_like(tables)
    path = _coherence_file(run, games)
    if not path.is_file():
        raise ValueError(f"{run}: no {path.name} beside the tables of game {games}")
    with np.load(path) as saved:
        return saved["net"].copy(), saved["total"].copy()


def _save(
    run: Path,
    model: Connect4NTupleModel,
    settings: NTupleSettings,
    state: NTupleState,
    net: np.ndarray,
    total: np.ndarray,
    start: dict[str, Any],
) -> None:
    """The learner's sums first, then the tables (each file atomic), then older sums go."""
    if settings.coherence:
        path = _coherence_file(run, state.games)
        tmp = path.with_name(f".{path.name}.tmp")
        with tmp.open("wb") as fh:
            np.savez_compressed(fh, net=net, total=total)
        tmp.replace(path)
    _save_tables(run, model, settings, state, start)
    for old in run.glob("coherence-*.npz"):
        if old.name != _coherence_file(run, state.games).name:
            old.unlink()


def _start_parent(settings: NTupleSettings) -> dict[str, Any]:
    """The provenance of the run's start, drawn again from its seed (once a run)."""
    start = new_model(settings).tables
    return random_parent("start", settings.seed, START_SCALE, start, settings.model)


def _save_tables(
    run: Path,
    model: Connect4NTupleModel,
    settings: NTupleSettings,
    state: NTupleState,
    start: dict[str, Any],
    extra: dict[str, Any] | None = None,
) -> None:
    record = tool_record(TOOL, state.cpu_seconds)
    by_player, parents = {SELF_PLAY: state.games}, [start]
    record.update(
        sha256=weights_sha256(model.tables),
        games=by_player,
        parents=parents,
        # computed from its games and start like every record's, never written as true
        self_play_only=chain_self_play_only(parents, games=by_player),
    )
    model.metadata = {
        KEY: record,
        "algorithm": ALGORITHM,
        "game": "connect4",
        "init": "random",
        "seed": settings.seed,
        "scale": START_SCALE,
        "games": state.games,
        "settings": settings.to_json(),
        "run_state": asdict(state),
        "cpu_seconds": round(state.cpu_seconds, 1),
        "cpu_hours": round(state.cpu_seconds / 3600, 3),
        **(extra or {}),
    }
    model.save(run / WEIGHTS_FILE)


def train_ntuple(
    run_dir: str | Path,
    settings: NTupleSettings | None = None,
    resume: bool = False,
    time_limit: float | None = None,
    on_chunk: Callable[[NTupleState], None] | None = None,
    workers: int = 1,
) -> NTupleState:
    """Run (or resume) an n-tuple run until its games are played or ``time_limit``
    seconds have passed (checked between chunks); the final state. A run of several
    members trains ``workers`` of them at a time, each in a process of its own when
    ``workers`` is above 1."""
    run = Path(run_dir)
    if resume and settings is None and (run / CONFIG_FILE).is_file():
        settings = NTupleSettings.from_json(json.loads((run / CONFIG_FILE).read_text()))
    if settings is not None and settings.members > 1:
        return _train_members(run, settings, resume, time_limit, on_chunk, workers)
    return _train_one(run, settings, resume, time_limit, on_chunk)


def _saved_state(run: Path) -> NTupleState:
    """A run's saved state, a member's or the mean's (empty before its first save)."""
    from treestrap.evaluation.weight_file_format import read_weight_file

    if not (run / WEIGHTS_FILE).is_file():
        return NTupleState()
    meta, _ = read_weight_file(run / WEIGHTS_FILE)
    return NTupleState(**meta.get("metadata", {}).get("run_state", {}))


def _sum_states(states: list[NTupleState]) -> NTupleState:
    total = NTupleState()
    for state in states:
        total.games += state.games
        total.first_wins += state.first_wins
        total.draws += state.draws
        total.second_wins += state.second_wins
        total.cpu_seconds += state.cpu_seconds
    return total


def _train_member(run: Path, settings: NTupleSettings, time_limit: float | None) -> NTupleState:
    """Worker: start or continue one member's run."""
    return _train_one(run, settings, (run / CONFIG_FILE).exists(), time_limit, None)


def _logged_games(run: Path) -> int:
    """The games of a member's last logged chunk (0 before its first)."""
    path = run / METRICS_FILE
    if not path.is_file():
        return 0
    lines = path.read_text().splitlines()
    return int(json.loads(lines[-1])["games"]) if lines else 0


def _train_members(
    run: Path,
    settings: NTupleSettings,
    resume: bool,
    time_limit: float | None,
    on_chunk: Callable[[NTupleState], None] | None,
    workers: int,
) -> NTupleState:
    """Each member's run (begun or resumed), then the mean of their tables."""
    started = time.monotonic()
    settings, _, _ = _open(settings, run, resume)
    members = settings.member_settings()
    folders = [member_dir(run, m.member) for m in members]

    def left() -> float | None:
        if time_limit is None:
            return None
        return max(0.0, time_limit - (time.monotonic() - started))

    def report(_: NTupleState | None = None) -> None:
        if on_chunk is not None:
            on_chunk(NTupleState(games=sum(_logged_games(folder) for folder in folders)))

    todo = [
        (member, folder)
        for member, folder in zip(members, folders, strict=True)
        if _saved_state(folder).games < member.games
    ]
    if workers > 1 and len(todo) > 1:
        # Fresh processes: a fork would copy whatever threads this one has started.
        context = multiprocessing.get_context("spawn")
        with futures.ProcessPoolExecutor(
            max_workers=workers,
            mp_context=context,
            initializer=die_with_parent,
            initargs=(os.getpid(),),
        ) as pool:
            pending = {
                pool.submit(_train_member, folder, member, left()) for member, folder in todo
            }
            while pending:
                done, pending = futures.wait(pending, timeout=2.0)
                for job in done:
                    job.result()
                report()
    else:
        for member, folder in todo:
            limit = left()
            if limit is not None and limit <= 0.0:
                break
            _train_one(folder, member, (folder / CONFIG_FILE).exists(), limit, report)
    states = [_saved_state(folder) for folder in folders]
    total = _sum_states(states)
    finished = all(s.games >= m.games for s, m in zip(states, members, strict=True))
    if finished and _saved_state(run).games != total.games:  # written once, not at each resume
        _save_mean(run, settings, folders, total)
    return total


def _save_mean(
    run: Path, settings: NTupleSettings, folders: list[Path], state: NTupleState
) -> None:
    """The mean of the members' tables, with a record naming each member."""
    from treestrap.games.connect4_model import load_connect4_model

    model = new_model(settings)
    loaded = [load_connect4_model(folder / WEIGHTS_FILE) for folder in folders]
    model.tables = np.mean([member.tables for member in loaded], axis=0)
    members = [
        {
            "file": f"{folder.name}/{WEIGHTS_FILE}",
            "sha256": weights_sha256(member.tables),
            "games": member.metadata["run_state"]["games"],
            "cpu_seconds": member.metadata["run_state"]["cpu_seconds"],
        }
        for folder, member in zip(folders, loaded, strict=True)
    ]
    _save_tables(run, model, settings, state, _start_parent(settings), {"members": members})


def _train_one(
    run: Path,
    settings: NTupleSettings | None,
    resume: bool,
    time_limit: float | None,
    on_chunk: Callable[[NTupleState], None] | None,
) -> NTupleState:
    """One run of tables (a run of one member, or one member of an averaged run)."""
    from treestrap.connect4.board import new_position
    from treestrap.connect4.ntuple import tuple_cells
    from treestrap.connect4.ntuple_td import (
        STAT_DRAW,
        STAT_EXPLORED,
        STAT_FIRST,
        STAT_NB,
        STAT_PLIES,
        STAT_SECOND,
        play_games,
    )

    started = time.monotonic()
    settings, model, state = _open(settings, run, resume)
    cells = tuple_cells(model.tuples)
    start = _start_parent(settings)
    net, total = _coherence(run, settings, model.tables, state.games)
    pos = new_position()
    stats = np.zeros(STAT_NB, dtype=np.int64)
    saved_at = time.monotonic()
    dirty = False
    while state.games < settings.games:
        if time_limit is not None and time.monotonic() - started >= time_limit:
            break
        games = min(settings.chunk, settings.games - state.games)
        alpha, epsilon = settings.at(state.games)
        number = state.games // settings.chunk
        stats[:] = 0
        cpu, wall = time.process_time(), time.monotonic()
        play_games(
            pos,
            model.tables,
            cells,
            games,
            alpha,
            settings.lam,
            settings.gamma,
            epsilon,
            settings.chunk_seed(number),
            stats,
            net,
            total,
            settings.opening_plies,
        )
        cpu = time.process_time() - cpu
        state.games += games
        state.first_wins += int(stats[STAT_FIRST])
        state.draws += int(stats[STAT_DRAW])
        state.second_wins += int(stats[STAT_SECOND])
        state.cpu_seconds += cpu
        line = {
            "games": state.games,
            "first_wins": int(stats[STAT_FIRST]),
            "draws": int(stats[STAT_DRAW]),
            "second_wins": int(stats[STAT_SECOND]),
            "explored": int(stats[STAT_EXPLORED]),
            "plies": int(stats[STAT_PLIES]),
            "alpha": alpha,
            "epsilon": epsilon,
            "seconds": round(time.monotonic() - wall, 3),
            "cpu_seconds": round(cpu, 3),
        }
        with (run / METRICS_FILE).open("a") as fh:
            fh.write(json.dumps(line) + "\n")
        dirty = True
        if time.monotonic() - saved_at >= SAVE_EVERY:
            _save(run, model, settings, state, net, total, start)
            saved_at, dirty = time.monotonic(), False
        if on_chunk is not None:
            on_chunk(state)
    if dirty or not (run / WEIGHTS_FILE).exists():
        _save(run, model, settings, state, net, total, start)
    return state
