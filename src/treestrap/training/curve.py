"""Learning curves: rate the checkpoints of training runs in one pool (Veness et al.
2009, Figure 2 and Table 2).

Each run directory contributes a few checkpoints spread evenly on a log axis of
training games; the runs' common starting weights (``game-000000``) play as
``untrained``, the anchor of the scale (250 Elo in the paper). All of them meet in one
round-robin tournament (:mod:`treestrap.play.tournament`), and one BayesElo-model fit
rates the pool (:mod:`treestrap.rating.curve`), so ratings of different runs are
comparable; :mod:`treestrap.reports.curve` draws the plot. The tournament directory can
be resumed like any other; rating and plotting are cheap and redone every time. A
tournament with games given up rates nothing: ``IncompleteTournament`` is raised before
any table is written (running the same command again replays those games).

Runs of a game whose tournaments are not engine tournaments (Connect Four's) meet in a
tournament of its in-process players (:mod:`treestrap.play.contract_tournament`), each
checkpoint a player the game makes for ``tc`` (Connect Four: a search at the depth of
``depth=N``); the results are stored as an engine tournament's, so the rating and the
plot are the same.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from treestrap.games.registry import DEFAULT_GAME, game_facts, get_game
from treestrap.play.contract_tournament import (
    ContractTournamentConfig,
    load_contract_config,
    run_contract_tournament,
    tournament_play,
)
from treestrap.play.forfeits import format_forfeits
from treestrap.play.results_db import ResultsDB
from treestrap.play.tournament import TournamentConfig, load_config, run_tournament
from treestrap.rating.curve import PAPER_ANCHOR_ELO, UNTRAINED, CurveResult, rate_curve
from treestrap.rating.results import load_results
from treestrap.reports.curve import plot_curve
from treestrap.training.checkpoints import check_format_version
from treestrap.training.tensorboard_log import RATINGS_RUN, log_ratings, require_tensorboard


@dataclass(frozen=True)
class Checkpoint:
    label: str  # the run's label: its algorithm, or its directory name if that repeats
    games: int
    path: Path
    cpu_seconds: float = math.nan  # the run's CPU time up to this checkpoint

    @property
    def name(self) -> str:
        return f"{self.label}@{self.games}"


def run_checkpoints(run_dir: str | Path, label: str) -> list[Checkpoint]:
    """Every checkpoint of a training run, by number of games, the start included."""
    folder = Path(run_dir) / "checkpoints"
    if not folder.is_dir():
        raise ValueError(f"{run_dir} is not a training run directory (no checkpoints/)")
    found = []
    cpu = cpu_seconds_by_game(run_dir)
    for path in folder.glob("game-*.npz"):
        number = path.stem.removeprefix("game-")
        if number.isdigit():
            games = int(number)
            found.append(Checkpoint(label, games, path, cpu.get(games, math.nan)))
    if not any(c.games == 0 for c in found) or len(found) < 2:
        raise ValueError(f"{run_dir} has no starting checkpoint and at least one more")
    return sorted(found, key=lambda c: c.games)


def cpu_seconds_by_game(run_dir: str | Path) -> dict[int, float]:
    """CPU seconds the run had spent after each game (0 before the first), from its
    ``metrics.jsonl``; runs written before CPU time was recorded count wall seconds,
    the same for a single-threaded run on an idle core."""
    totals = {0: 0.0}
    metrics = Path(run_dir) / "metrics.jsonl"
    if not metrics.exists():
        return totals
    total = 0.0
    for line in metrics.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            total += float(row.get("cpu_seconds", row.get("seconds", math.nan)))
            totals[int(row["game"])] = total
    return totals


def _run_config(run_dir: str | Path) -> dict[str, object]:
    config = Path(run_dir) / "config.json"
    try:
        data = dict(json.loads(config.read_text()))
        if "algorithm" not in data:
            raise KeyError("algorithm")  # a config without one is no run's
        return data
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{run_dir} is not a training run directory ({exc})") from exc


def run_algorithm(run_dir: str | Path) -> str:
    return str(_run_config(run_dir)["algorithm"])


def run_game(run_dir: str | Path) -> str:
    """The game a run learned (a chess run's config names none)."""
    return str(_run_config(run_dir).get("game", DEFAULT_GAME))


def pick_points(checkpoints: list[Checkpoint], count: int) -> list[Checkpoint]:
    """Up to ``count`` trained checkpoints, evenly spaced on a log axis, the last one
    always among them."""
    trained = [c for c in checkpoints if c.games > 0]
    if count < 1 or not trained:
        return []
    last = trained[-1]
    if count == 1 or len(trained) == 1:
        return [last]
    low, high = math.log(trained[0].games), math.log(last.games)
    chosen: list[Checkpoint] = []
    for target in np.linspace(low, high, count):
        nearest = min(trained, key=lambda c: abs(math.log(c.games) - target))
        if nearest not in chosen:
            chosen.append(nearest)
    return sorted(chosen, key=lambda c: c.games)


@dataclass
class CurvePool:
    """The players of a curve tournament: the untrained start and the picked points."""

    untrained: Path
    points: list[Checkpoint]
    game: str = DEFAULT_GAME

    def weight_files(self) -> list[tuple[str, Path]]:
        """``(name, weight file)`` of every player, the untrained start first."""
        return [(UNTRAINED, self.untrained), *((c.name, c.path) for c in self.points)]

    def player_specs(self) -> list[str]:
        """``NAME=PATH`` of every player (an engine tournament's specs)."""
        return [f"{name}={path}" for name, path in self.weight_files()]


def curve_pool(run_dirs: list[str | Path], points_per_run: int) -> CurvePool:
    """The pool for ``run_dirs``; ``ValueError`` unless the runs share their start."""
    if not run_dirs:
        raise ValueError("give at least one training run directory")
    algorithms = [run_algorithm(d) for d in run_dirs]
    labels = [
        a if algorithms.count(a) == 1 else Path(d).name
        for a, d in zip(algorithms, run_dirs, strict=True)
    ]
    if len(set(labels)) != len(labels):
        raise ValueError("two runs have the same algorithm and directory name")
    games = {run_game(d) for d in run_dirs}
    if len(games) > 1:
        raise ValueError(f"the runs learned different games ({', '.join(sorted(games))})")
    game = games.pop()
    load = get_game(game).load_model
    points: list[Checkpoint] = []
    starts: list[tuple[Path, np.ndarray]] = []
    for run_dir, label in zip(run_dirs, labels, strict=True):
        checkpoints = run_checkpoints(run_dir, label)
        picked = pick_points(checkpoints, points_per_run)
        # A run of another format version may store what this build misreads.
        for checkpoint in [checkpoints[0], *picked]:
            model = load(checkpoint.path)
            check_format_version(model, Path(run_dir))
            if checkpoint is checkpoints[0]:
                starts.append((checkpoint.path, model.weights))
        points += picked
    first, first_weights = starts[0]
    for other, weights in starts[1:]:
        if not np.array_equal(weights, first_weights):
            raise ValueError(
                f"{other} and {first} start from different weights: one untrained "
                "anchor needs runs with the same start (same --init and --seed)"
            )
    return CurvePool(first, points, game)


@dataclass
class CurveSettings:
    """How the checkpoints meet: the tournament's limits and size."""

    points_per_run: int = 4
    tc: str = "depth=3"
    games_per_pair: int = 2
    workers: int = 2
    seed: int = 1
    max_plies: int = 300
    anchor_elo: float = PAPER_ANCHOR_ELO


def run_curve(
    run_dirs: list[str | Path],
    out_dir: str | Path,
    settings: CurveSettings,
    progress: bool = True,
    title: str | None = None,
    tensorboard: str | Path | None = None,
) -> CurveResult:
    """Play (or resume) the pool's tournament in ``out_dir/tournament``, then write
    ``ratings.txt``, ``ratings.csv``, ``ratings.json``, ``curve.csv`` and ``curve.png``;
    with ``tensorboard``, each run's ratings as scalars in ``tensorboard/LABEL/ratings``."""
    if tensorboard is not None:
        require_tensorboard()  # missing: said before the tournament, not after it
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    pool = curve_pool(run_dirs, settings.points_per_run)
    tournament = out / "tournament"
    if game_facts(pool.game).engine_tournament:
        _play_engines(pool, settings, tournament, progress)
    else:
        _play_in_process(pool, settings, tournament, progress)
    points = [(c.name, c.label, c.games, c.cpu_seconds) for c in pool.points]
    result = rate_curve(load_results(tournament), points, settings.anchor_elo)
    notes = "".join(f"note: {note}\n" for note in result.notes)
    (out / "ratings.txt").write_text(result.table.format_table() + "\n" + notes, encoding="utf-8")
    result.table.to_csv(out / "ratings.csv")
    result.table.to_json(out / "ratings.json")
    result.to_csv(out / "curve.csv")
    plot_curve(result, out / "curve.png", title)
    if tensorboard is not None:
        log_curve(result, Path(tensorboard))
    return result


_CHANGED = (
    "{} holds the tournament of other checkpoints or settings (did a run train on?): "
    "choose another --out, or delete that directory to replay it"
)


def _play_engines(
    pool: CurvePool, settings: CurveSettings, tournament: Path, progress: bool
) -> None:
    config = TournamentConfig(
        players=pool.player_specs(),
        games_per_pair=settings.games_per_pair,
        seed=settings.seed,
        tc=settings.tc,
        max_plies=settings.max_plies,
        workers=settings.workers,
        event="treestrap curve",
    )
    resume = (tournament / "results.sqlite").exists()
    if resume and dataclasses.replace(load_config(tournament), workers=config.workers) != config:
        raise ValueError(_CHANGED.format(tournament))
    run_tournament(config, tournament, resume=resume, progress=progress).require_complete(
        _replay(tournament)
    )


def _replay(tournament: Path) -> str:
    """How to replay given-up games: the same command resumes its tournament."""
    return (
        f"run the same command again (or treestrap tournament --resume {tournament}) to replay them"
    )


def tournament_summary(out_dir: str | Path) -> str:
    """``tournament: N games; forfeits: ...`` of the curve tournament in ``out_dir``."""
    with ResultsDB.open(Path(out_dir) / "tournament") as db:
        terminations = [g.termination for g in db.games()]
    return f"tournament: {len(terminations)} games; {format_forfeits(terminations)}"


def _play_in_process(
    pool: CurvePool, settings: CurveSettings, tournament: Path, progress: bool
) -> None:
    """The pool's round robin of the game's in-process players, each checkpoint the
    player the game makes of a weight file for ``tc``."""
    play = tournament_play(pool.game)
    specs = [
        play.weights_player(name, str(path), settings.tc) for name, path in pool.weight_files()
    ]
    config = ContractTournamentConfig.of(
        pool.game,
        specs,
        games_per_pair=settings.games_per_pair,
        seed=settings.seed,
        event="treestrap curve",
    )
    resume = (tournament / "results.sqlite").exists()
    if resume and load_contract_config(tournament).to_json() != config.to_json():
        raise ValueError(_CHANGED.format(tournament))
    result = run_contract_tournament(config, tournament, resume=resume, progress=progress)
    result.require_complete(_replay(tournament))


def log_curve(result: CurveResult, folder: Path) -> None:
    """Each run's checkpoint ratings in ``folder/LABEL/ratings`` (next to the games of
    a run trained with ``--tensorboard folder/LABEL``), the untrained start at step 0."""
    labels = dict.fromkeys(p.label for p in result.points)
    for label in labels:
        start = (0, result.untrained_elo, math.nan, math.nan)
        points = [(p.games, p.elo, p.lower, p.upper) for p in result.points if p.label == label]
        log_ratings(folder / label / RATINGS_RUN, [start, *points])
