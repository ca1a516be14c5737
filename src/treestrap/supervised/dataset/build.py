"""``treestrap dataset build``: PGN collections -> a dataset directory, in parallel,
resumable, extendable.

The main process only reads and cuts the files into games (:mod:`.source`) and hands
chunks of them to the workers (:mod:`.chunk`); each finished chunk is on disk at once.
A build records its options and its sources (by SHA-256) in ``build.json`` before any
work. Run again with ``--resume`` it does only the chunks not yet finished, and with
more PGN files it extends the dataset: the recorded files must still be there
unchanged, the new ones are numbered after them. A request with other options, another
feature layout, another Stockfish or a changed file is refused, naming the difference,
because its chunks would not match the ones on disk.
"""

from __future__ import annotations

import math
import os
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from itertools import islice
from pathlib import Path
from typing import Any

from treestrap import __version__
from treestrap.evaluation.provenance import file_sha256  # the file as stored
from treestrap.supervised.dataset.chunk import (
    GAMES_PER_CHUNK,
    GAMES_PER_ENGINE_CHUNK,
    ChunkTask,
    close_engine,
    process_chunk,
)
from treestrap.supervised.dataset.errors import DatasetError
from treestrap.supervised.dataset.game import UNUSABLE
from treestrap.supervised.dataset.labels import CLASS_NAMES
from treestrap.supervised.dataset.options import BuildOptions
from treestrap.supervised.dataset.parallel import run_parallel
from treestrap.supervised.dataset.source import (
    check_text,
    count_games,
    read_games,
)
from treestrap.supervised.dataset.split import SPLIT_NAMES
from treestrap.supervised.dataset.store import (
    BUILD_STATE,
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    SHARDS,
    check_compatible,
    current_layouts,
    read_json,
    write_json,
)

GAMES, TEST = "games", "test"

#: How the labels are made, stated in every manifest.
LABEL_POLICY = {
    "classes": list(CLASS_NAMES),
    "label": "the result of the game the position comes from, from White's side",
    "undecided": "a result other than 1-0, 0-1, 1/2-1/2 ('*', missing): the game is "
    "dropped (--undecided drop) or labelled a draw (--undecided keep)",
    "rollout": "games not finished on the board are played on by Stockfish; all their "
    "positions, original and appended, take the rollout's result; load_split(rollout="
    "False) drops the appended ones and labels every position with its PGN result",
}


@dataclass
class Source:
    """One input file as the build records it."""

    path: str
    sha256: str
    role: str  # GAMES, or TEST for --test-pgn
    games: int
    first_game_id: int

    def chunk_ids(self, per_chunk: int) -> list[str]:
        count = math.ceil(self.games / per_chunk)
        return [f"{self.sha256[:16]}-{k:06d}" for k in range(count)]


@dataclass
class BuildReport:
    """What the command prints: the manifest plus this run's own work."""

    manifest: dict[str, Any]
    chunks_done: int  # by this run
    chunks_kept: int  # finished earlier
    positions: int  # written by this run
    seconds: float

    @property
    def positions_per_second(self) -> float:
        return self.positions / self.seconds if self.seconds > 0 else 0.0


def build_dataset(
    games: Sequence[str | Path],
    out: str | Path,
    options: BuildOptions,
    test_pgn: str | Path | None = None,
    jobs: int = 1,
    resume: bool = False,
    progress: bool = True,
) -> BuildReport:
    """Build (or resume, or extend) the dataset in ``out``; see the module docstring."""
    started = time.perf_counter()
    root = Path(out)
    if not games:
        raise DatasetError("no PGN files given")
    named = [(Path(p), GAMES) for p in games] + ([(Path(test_pgn), TEST)] if test_pgn else [])
    hashes = _hash_inputs(named)
    stockfish = _stockfish_name() if options.needs_stockfish else None
    _check_directory(root, resume)
    state = _state(root, named, hashes, options, stockfish)  # refuses before any change
    _prepare_directory(root)
    write_json(root / BUILD_STATE, state)
    sources = [Source(**s) for s in state["sources"]]
    per_chunk = int(state["games_per_chunk"])
    finished = {p.stem for p in (root / SHARDS).glob("*.json")}
    wanted = [cid for s in sources for cid in s.chunk_ids(per_chunk)]
    kept = sum(1 for cid in wanted if cid in finished)
    total_games = sum(s.games for s in sources)
    done_games = sum(
        read_json(root / SHARDS / f"{cid}.json")["games_read"] for cid in wanted if cid in finished
    )
    bar = _progress(total_games, done_games, progress)
    positions = chunks = 0
    tasks = _tasks(root, sources, per_chunk, finished, options)
    try:
        for record in run_parallel(process_chunk, tasks, jobs, at_exit=close_engine):
            chunks += 1
            positions += sum(s["positions"] for s in record["splits"].values())
            bar.update(record["games_read"])
            elapsed = time.perf_counter() - started
            bar.set_postfix_str(f"{positions / max(elapsed, 1e-9):,.0f} positions/s")
    finally:
        bar.close()
        close_engine()
    seconds = time.perf_counter() - started
    manifest = _manifest(root, state, sources, wanted)
    write_json(root / MANIFEST, manifest)
    counts = manifest["games"]
    if counts["kept"] == 0 and set(counts["skipped"]) <= UNUSABLE:
        # Every game broken: bad input, not a choice of filters (those may empty a
        # dataset on purpose). The manifest stays, so `dataset show` lists the reasons.
        reasons = ", ".join(f"{k} {v}" for k, v in counts["skipped"].items())
        raise DatasetError(
            f"no usable games: {counts['read']} read, all skipped ({reasons}); the empty "
            f"dataset is in {root}"
        )
    return BuildReport(manifest, chunks, kept, positions, seconds)


def _hash_inputs(named: list[tuple[Path, str]]) -> list[str]:
    hashes = []
    for path, _ in named:
        if not path.is_file():
            raise DatasetError(f"PGN file not found: {path}")
        try:
            hashes.append(file_sha256(path))
        except OSError as exc:
            raise DatasetError(f"cannot read {path}: {exc}") from None
    for i, digest in enumerate(hashes):
        if digest in hashes[:i]:
            first = named[hashes.index(digest)][0]
            raise DatasetError(f"{named[i][0]} has the same contents as {first}: give it once")
    return hashes


def _stockfish_name() -> str:
    from treestrap.supervised.dataset.stockfish import stockfish_name

    return stockfish_name()


def _check_directory(root: Path, resume: bool) -> None:
    if root.exists() and not root.is_dir():
        raise DatasetError(f"--out {root} exists and is not a directory")
    if (root / BUILD_STATE).exists():
        if not resume:
            raise DatasetError(
                f"{root} already holds a dataset: pass --resume to continue or extend it, "
                "or choose another --out"
            )
    elif root.exists() and any(root.iterdir()):
        raise DatasetError(f"--out {root} is not empty and holds no dataset: choose another")


def _prepare_directory(root: Path) -> None:
    try:
        (root / SHARDS).mkdir(parents=True, exist_ok=True)
        (root / MANIFEST).unlink(missing_ok=True)  # the dataset is changing until the end
        for stray in (root / SHARDS).glob("*.tmp*"):  # left by an interrupted worker
            stray.unlink()
    except OSError as exc:
        raise DatasetError(f"cannot write to {root}: {exc}") from None


def _state(
    root: Path,
    named: list[tuple[Path, str]],
    hashes: list[str],
    options: BuildOptions,
    stockfish: str | None,
) -> dict[str, Any]:
    """The build record: a new one, or the recorded one checked and extended."""
    path = root / BUILD_STATE
    if not path.exists():
        state: dict[str, Any] = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "feature_layouts": current_layouts(),
            "options": options.to_json(),
            "stockfish": stockfish,
            "games_per_chunk": GAMES_PER_ENGINE_CHUNK
            if options.needs_stockfish
            else GAMES_PER_CHUNK,
            "sources": [],
            "created": _now(),
        }
    else:
        state = read_json(path)
        check_compatible(state, root)
        _check_same_build(root, state, options, stockfish)
    recorded = {s["sha256"]: s for s in state["sources"]}
    given = dict(zip(hashes, named, strict=True))
    for digest, source in recorded.items():
        if digest not in given:
            raise DatasetError(
                f"{root} holds the games of {source['path']} (sha256 {digest[:12]}), which "
                "this build does not name (changed or left out): name it unchanged, or "
                "build into another --out"
            )
        given_path, role = given[digest]
        if role != source["role"]:
            raise DatasetError(f"{given_path} was a {source['role']} file of {root}, not {role}")
        source["path"] = str(given_path)
    if recorded and any(role == TEST for _, role in named) != any(
        s["role"] == TEST for s in recorded.values()
    ):
        raise DatasetError(
            f"--test-pgn: {root} was built {_with_test(recorded)} a held-out test file"
        )
    next_id = max((s["first_game_id"] + s["games"] for s in state["sources"]), default=0)
    for digest, (path_, role) in given.items():
        if digest in recorded:
            continue
        if role == TEST and recorded:
            raise DatasetError(f"--test-pgn: {root} was built with another held-out test file")
        check_text(path_)
        games = count_games(path_)
        if games == 0:
            raise DatasetError(f"{path_}: no games in it (an empty file, or not PGN)")
        source = Source(str(path_), digest, role, games, next_id)
        state["sources"].append(asdict(source))
        next_id += games
        if path.exists():  # a finished or interrupted build gets more games
            state["extended"] = _now()
    if next_id > 2**31 - 1:
        raise DatasetError("more than 2**31 games: game ids would overflow")
    return state


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _with_test(recorded: dict[str, dict[str, Any]]) -> str:
    return "with" if any(s["role"] == TEST for s in recorded.values()) else "without"


def _check_same_build(
    root: Path, state: dict[str, Any], options: BuildOptions, stockfish: str | None
) -> None:
    problems = BuildOptions.from_json(state["options"]).mismatches(options)
    if options.needs_stockfish and state.get("stockfish") != stockfish:
        problems.append(
            f"Stockfish: the dataset used {state.get('stockfish')}, here is {stockfish}"
        )
    if problems:
        raise DatasetError(f"cannot resume {root} with other options: " + "; ".join(problems))


def _tasks(
    root: Path,
    sources: list[Source],
    per_chunk: int,
    finished: set[str],
    options: BuildOptions,
) -> Iterator[ChunkTask]:
    """The chunks still to do, read lazily so that only a few are in memory."""
    has_test = any(s.role == TEST for s in sources)
    for source in sources:
        ids = source.chunk_ids(per_chunk)
        if all(cid in finished for cid in ids):
            continue
        games = read_games(source.path)
        for k, cid in enumerate(ids):
            batch = list(islice(games, per_chunk))
            if cid in finished:
                continue
            yield ChunkTask(
                chunk_id=cid,
                data_dir=str(root),
                games=batch,
                first_game_id=source.first_game_id + k * per_chunk,
                held_out_test=source.role == TEST,
                training_has_test=has_test,
                options=options,
            )


def _progress(total: int, initial: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(
        total=total,
        initial=initial,
        unit="game",
        desc="dataset",
        dynamic_ncols=True,
        disable=not enabled,
    )


def _manifest(
    root: Path,
    state: dict[str, Any],
    sources: list[Source],
    wanted: list[str],
) -> dict[str, Any]:
    """Add up the chunk records into the manifest. It holds no timings, so that the
    same dataset always has the same manifest (the training side hashes it)."""
    skipped: Counter[str] = Counter()
    games = Counter[str]()
    splits = {name: _empty_split() for name in SPLIT_NAMES}
    shards: dict[str, list[str]] = {name: [] for name in SPLIT_NAMES}
    for cid in wanted:
        try:
            record = read_json(root / SHARDS / f"{cid}.json")
        except FileNotFoundError:
            raise DatasetError(f"chunk {cid} of {root} is missing: run with --resume") from None
        skipped.update(record["skipped"])
        for key in (
            "games_read",
            "games_kept",
            "rolled_out",
            "rollout_aborted",
            "rollout_positions",
        ):
            games[key] += record[key]
        for name in SPLIT_NAMES:
            counts = record["splits"][name]
            if counts["games"]:
                shards[name].append(cid)
            _add_split(splits[name], counts)
    total = sum(s["positions"] for s in splits.values())
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "treestrap": __version__,
        "created": state["created"],
        "extended": state.get("extended"),
        "feature_layouts": state["feature_layouts"],
        "options": state["options"],
        "stockfish": state.get("stockfish"),
        "labels": LABEL_POLICY,
        "sources": [asdict(s) for s in sources],
        "games": {
            "read": games["games_read"],
            "kept": games["games_kept"],
            "skipped": dict(sorted(skipped.items())),
            "rolled_out": games["rolled_out"],
            "rollout_aborted": games["rollout_aborted"],
        },
        "positions": {"total": total, "rollout": games["rollout_positions"]},
        "splits": splits,
        "shards": shards,
    }


def _empty_split() -> dict[str, Any]:
    zero = dict.fromkeys(CLASS_NAMES, 0)
    return {
        "games": 0,
        "positions": 0,
        "classes": dict(zero),
        "positions_without_rollout": 0,
        "classes_without_rollout": dict(zero),
    }


def _add_split(total: dict[str, Any], counts: dict[str, Any]) -> None:
    for key in ("games", "positions", "positions_without_rollout"):
        total[key] += counts[key]
    for key in ("classes", "classes_without_rollout"):
        for name, n in zip(CLASS_NAMES, counts[key], strict=True):
            total[key][name] += n


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1
