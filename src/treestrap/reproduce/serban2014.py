"""One command for Serban (2014), chapter 7: networks on the bitboard inputs learn by
self-play with Algorithm 7 from supervised starting points, and a tournament rates them.

The stages, each resumable (run the same command again after an interruption; a
finished stage is never redone, an unfinished one goes on where it stopped)::

    dataset/              the game collection as labelled positions (supervised.dataset)
    supervised/NAME/      the supervised starting points (supervised.train): the SL
                          logistic regression and three MLP(20) candidates trained on
                          all, a quarter and a twentieth of the training games
    starts/               their network weight files (supervised.convert) and
                          starts.json: the MLPs named A, B, C by falling test accuracy
                          (Serban: A high, B medium, C low accuracy)
    selfplay/RUN/         Algorithm 7 self-play runs (training.run) from each start:
                          rl-logreg, mlp-a, mlp-b, mlp-c; checkpoints every 10 games
    tournament/logreg/    Figure 7.1: the SL LogReg against every RL LogReg checkpoint
    tournament/mlp/       Figure 7.2: the best RL LogReg against every MLP checkpoint
    ratings.*, curve.csv  one BayesElo-model fit of both tournaments, the best RL
                          LogReg fixed at 250 Elo (Serban's anchor)
    fig7_1.png fig7_2.png Elo against training games, 95% intervals
    table.txt             ratings, the starting points' accuracies and Serban's findings
                          (MLPs above LogReg, RL LogReg above SL LogReg) with LOS
    settings.json         what the directory was started with; timings.json: the
                          seconds each stage took

Both tournaments are gauntlets, as Serban's were, and games still going after 200 plies
are played out by Stockfish (his protocol; ``finish=False`` scores them as draws). The
best RL LogReg is the checkpoint rated highest by the first tournament; the MLPs meet
it in the second, and the anchor puts it at 250.
"""

from __future__ import annotations

import concurrent.futures as futures
import dataclasses
import importlib.util
import json
import multiprocessing
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from treestrap.play.game import MAX_LENGTH
from treestrap.play.players import find_engine
from treestrap.play.results_db import ResultsDB
from treestrap.play.tournament import (
    GAUNTLET,
    TournamentConfig,
    plan_tournament,
    run_tournament,
)
from treestrap.rating.curve import CurvePoint
from treestrap.rating.ratings import (
    GameResult,
    RatingOptions,
    RatingTable,
    fit_ratings_settled,
    load_results,
)
from treestrap.training.config import TrainConfig

#: Serban's MLPs: one hidden layer of 20 units (section 7.3).
HIDDEN = 20
#: The best RL LogReg's rating in Figures 7.1 and 7.2.
ANCHOR_ELO = 250.0
#: Section 7.5: the best RL LogReg at 748 [596, 1003] with the SL LogReg fixed at 250.
SERBAN_RL_OVER_SL = 748.0 - 250.0
SL_LOGREG, RL_LOGREG = "SL-LogReg", "RL-LogReg"
LETTERS = ("A", "B", "C")
#: A likelihood of superiority at least this high settles a finding (95%, one-sided).
SETTLED = 0.95


@dataclass(frozen=True)
class Budget:
    """What one reproduction spends, stage by stage."""

    #: supervised: most epochs of the SL LogReg (early stopping, patience 2)
    epochs: int
    #: the MLP(20) candidates for A, B, C: (fraction of the training games, epochs)
    candidates: tuple[tuple[float, int], ...]
    #: self-play games per run, and a checkpoint every this many (Serban: 50 and 10)
    games: int
    checkpoint_every: int
    #: Algorithm 7's full-tree minimax budgets (Serban: 5000 and 500)
    minimax_nodes: int
    minimax_qnodes: int
    #: a self-play game ends drawn after this many plies
    train_plies: int
    #: replay set N, tree nodes K per search, mini-batch M (Serban: 20,000; M = 2000)
    replay_size: int
    tree_nodes: int
    batch_size: int
    #: tournament: search limit, games a pair (even), plies before the finisher takes
    #: over (Serban: 200), the finisher's limit and its own cap
    tc: str
    games_per_pair: int
    max_plies: int
    finish_tc: str
    finish_plies: int
    note: str
    caveat: str = ""


#: Serban's best LogReg (section 7.5): soft cross-entropy, M = 2000, a fixed step of
#: 0.0031, plain SGD. His MLP grid (10^-1.5 .. 10^2 for soft cross-entropy, Nesterov)
#: is for a loss scaling the thesis does not pin down; the MLPs take this package's
#: default step for a mean mini-batch loss, 0.01 with Nesterov momentum 0.9.
LOGREG_STEP, LOGREG_MOMENTUM = 0.0031, 0.0
MLP_STEP, MLP_MOMENTUM = 0.01, 0.9

BUDGETS = {
    # About 11 minutes on 2 cores, measured with twic0920 (dataset 9 s, supervised
    # starts 11 s, 200 self-play games two at a time 518 s, 460 tournament games
    # 103 s). Serban's 50 games and checkpoints, smaller trees, 20 tournament games a
    # pair.
    "quick": Budget(
        epochs=6,
        candidates=((1.0, 6), (0.25, 2), (0.05, 1)),
        games=50,
        checkpoint_every=10,
        minimax_nodes=500,
        minimax_qnodes=30,
        train_plies=200,
        replay_size=20_000,
        tree_nodes=500,
        batch_size=2000,
        tc="depth=3",
        games_per_pair=20,
        max_plies=200,
        finish_tc="depth=10",
        finish_plies=200,
        note="50 self-play games per network (minimax trees of 500 nodes, 30 per "
        "quiescence leaf); depth-3 gauntlets, 20 games a pair",
        caveat="20 games a pair give intervals of a few hundred Elo: the quick budget "
        "shows the curves' direction; --budget standard is sized to settle the findings",
    ),
    # A few hours on 2 cores (estimated from the quick budget's per-game costs, not
    # measured): larger trees, deeper tournament games, 40 a pair, Serban's depth-14
    # finisher.
    "standard": Budget(
        epochs=10,
        candidates=((1.0, 10), (0.25, 3), (0.05, 1)),
        games=50,
        checkpoint_every=10,
        minimax_nodes=2000,
        minimax_qnodes=100,
        train_plies=200,
        replay_size=20_000,
        tree_nodes=500,
        batch_size=2000,
        tc="depth=4",
        games_per_pair=40,
        max_plies=200,
        finish_tc="depth=14",
        finish_plies=200,
        note="50 self-play games per network (minimax trees of 2000 nodes, 100 per "
        "quiescence leaf); depth-4 gauntlets, 40 games a pair",
    ),
}


# ----------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class Start:
    """A supervised starting point: its directory name, model and training data."""

    name: str  # "sl-logreg", "mlp-1", ...
    model: str  # "logreg" or "mlp"
    fraction: float  # of the training games
    epochs: int

    def describe(self) -> str:
        games = "all" if self.fraction >= 1 else f"{100 * self.fraction:g}% of the"
        return f"{games} training games, at most {self.epochs} epoch(s)"


def starts_of(budget: Budget) -> list[Start]:
    """The SL LogReg and the MLP candidates of ``budget``."""
    sl = Start("sl-logreg", "logreg", 1.0, budget.epochs)
    mlps = [Start(f"mlp-{k}", "mlp", f, e) for k, (f, e) in enumerate(budget.candidates, 1)]
    return [sl, *mlps]


def check_finisher(finish: bool) -> str | None:
    """The tournaments' finisher spec, ``ValueError`` if Stockfish is missing."""
    if not finish:
        return None
    if find_engine("stockfish") is None:
        raise ValueError(
            "stockfish not found (on PATH or in /usr/games; apt-get install stockfish): "
            "Serban's tournaments have Stockfish play out games unfinished after 200 "
            "plies; give --no-finish to score them as draws instead"
        )
    return "stockfish"


def _sha256(path: str | Path) -> str:
    from treestrap.supervised.dataset.source import file_sha256

    return file_sha256(path)


def _write_json(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: unreadable ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a JSON object")
    return data


def check_settings(
    out: Path,
    budget: Budget,
    seed: int,
    pgn: str | None,
    openings: str | None,
    finish: bool,
) -> None:
    """Write ``settings.json`` in a new directory; in one started before, refuse other
    settings (their stages would mix two experiments), naming what differs."""
    # The budget's numbers, not its wording: a reworded note changes no stage.
    numbers = {k: v for k, v in dataclasses.asdict(budget).items() if k not in ("note", "caveat")}
    wanted: dict[str, Any] = {
        "experiment": "serban2014",
        "budget": json.loads(json.dumps(numbers)),
        "seed": seed,
        "finish": finish,
        "openings": openings,
        "openings_sha256": _sha256(openings) if openings else None,
    }
    if pgn is not None:
        wanted["pgn_sha256"] = _sha256(pgn)
    path = out / "settings.json"
    if not path.exists():
        if pgn is None:
            raise ValueError("serban2014 learns its starting points from games: give --pgn PGN")
        _write_json(path, wanted)
        return
    stored = _read_json(path)
    differ = [key for key, value in wanted.items() if stored.get(key) != value]
    if differ:
        names = ", ".join("the PGN file" if k == "pgn_sha256" else k for k in differ)
        raise ValueError(
            f"{out} holds a reproduction with other settings ({names}): run it with the "
            "options it was started with, or choose another --out"
        )


def _add_timing(out: Path, stage: str, seconds: float) -> None:
    path = out / "timings.json"
    timings = _read_json(path) if path.exists() else {}
    timings[stage] = round(float(timings.get(stage, 0.0)) + seconds, 1)
    _write_json(path, timings)


def _spawn_pool(workers: int) -> futures.ProcessPoolExecutor:
    """Worker processes that start clean (torch's thread pools do not survive a fork),
    one torch thread each (2 cores, 2 workers)."""
    return futures.ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_one_thread,
    )


def _one_thread() -> None:
    import torch

    torch.set_num_threads(1)


def _wait_all(
    jobs: list[futures.Future[Any]], tick: Callable[[], None], poll: float = 1.0
) -> list[Any]:
    """Wait for every job, calling ``tick`` between polls; the first failure is raised."""
    pending = set(jobs)
    while pending:
        done, pending = futures.wait(pending, timeout=poll)
        for job in done:
            job.result()
        tick()
    return [job.result() for job in jobs]


# ----------------------------------------------------------------------------- dataset


def build_data(out: Path, pgn: str | None, seed: int, workers: int, progress: bool) -> str | None:
    """Stage 1: the dataset (a resumed build goes on by chunks). Returns the stage's
    summary line, or None when it was finished before."""
    from treestrap.supervised.dataset.build import build_dataset
    from treestrap.supervised.dataset.errors import DatasetError
    from treestrap.supervised.dataset.options import BuildOptions
    from treestrap.supervised.dataset.store import BUILD_STATE, MANIFEST

    root = out / "dataset"
    if (root / MANIFEST).exists():
        return None
    if pgn is None:
        raise ValueError(f"{root} is not built yet: give --pgn PGN")
    try:
        report = build_dataset(
            [pgn],
            root,
            BuildOptions(seed=seed),
            jobs=workers,
            resume=(root / BUILD_STATE).exists(),
            progress=progress,
        )
    except DatasetError as exc:
        raise ValueError(str(exc)) from None
    games, splits = report.manifest["games"], report.manifest["splits"]
    counts = ", ".join(f"{splits[s]['positions']:,} {s}" for s in ("train", "validation", "test"))
    return f"dataset: {games['kept']:,} of {games['read']:,} games, positions {counts}"


# ----------------------------------------------------------------------------- supervised


def _subset_games(data: Any, fraction: float, seed: int) -> Any:
    """``data`` with the training split cut to ``fraction`` of its games (drawn from
    the seed), validation and test as they are."""
    if fraction >= 1.0:
        return data
    train = data.train
    games = np.unique(train.game_id)
    count = max(1, round(fraction * len(games)))
    chosen = np.random.default_rng([seed, 2014]).permutation(games)[:count]
    return dataclasses.replace(data, train=train.subset(np.isin(train.game_id, chosen)))


def supervised_config(start: Start, seed: int) -> Any:
    """The README's settings of the twic table: batch 100, step 0.01, momentum 0.9,
    mean subtraction, early stopping after 2 epochs without a better validation."""
    from treestrap.supervised.train import TrainConfig as SupervisedConfig

    return SupervisedConfig(
        model=start.model,
        features="bitboard",
        hidden=(HIDDEN,),
        batch_size=100,
        lr=0.01,
        momentum=0.9,
        mean_subtract=True,
        epochs=start.epochs,
        patience=2,
        trials=1,
        seed=seed,
    )


def _make_start(start: Start, out: Path, seed: int) -> dict[str, Any]:
    """Worker: train (or finish training) one starting point and write its network
    file; returns its ``result.json``."""
    from treestrap.supervised.convert import convert
    from treestrap.supervised.data import load_data
    from treestrap.supervised.inputs import get_encoding
    from treestrap.supervised.train import RESULT, RUN_FILE, train_run

    run = out / "supervised" / start.name
    result_path = run / "trial-0" / RESULT
    if not result_path.exists():
        data = load_data(out / "dataset", get_encoding("bitboard"))
        data = _subset_games(data, start.fraction, seed)
        config = supervised_config(start, seed)
        train_run(data, config, run, resume=(run / RUN_FILE).exists())
    network = out / "starts" / f"{start.name}.npz"
    if not network.exists():
        network.parent.mkdir(parents=True, exist_ok=True)
        convert(run, network=True).save(network)
    return _read_json(result_path)


def _epochs_done(run: Path) -> int:
    metrics = run / "trial-0" / "metrics.jsonl"
    try:
        return len(metrics.read_text(encoding="utf-8").splitlines())
    except OSError:
        return 0


def train_starts(out: Path, budget: Budget, seed: int, workers: int, progress: bool) -> str | None:
    """Stage 2: the supervised starting points, their network files, and
    ``starts/starts.json`` naming the MLPs A, B, C by falling test accuracy."""
    from tqdm import tqdm

    ledger = out / "starts" / "starts.json"
    if ledger.exists():
        return None
    starts = starts_of(budget)
    total = sum(s.epochs for s in starts)
    bar = tqdm(total=total, unit="epoch", desc="supervised", disable=not progress)

    def tick() -> None:
        bar.n = min(total, sum(_epochs_done(out / "supervised" / s.name) for s in starts))
        bar.refresh()

    try:
        with _spawn_pool(workers) as pool:
            jobs = [pool.submit(_make_start, s, out, seed) for s in starts]
            results = _wait_all(jobs, tick)
    finally:
        bar.close()
    record: dict[str, Any] = {"baseline": _baseline(results[0])}
    for start, result in zip(starts, results, strict=True):
        record[start.name] = {
            "model": start.model,
            "fraction": start.fraction,
            "epochs": start.epochs,
            "best_epoch": result["best_epoch"],
            "test_accuracy": result["test_accuracy"],
            "n_train": result["n_train"],
            "n_test": result["n_test"],
            "network": f"{start.name}.npz",
        }
    mlps = sorted(
        (s.name for s in starts if s.model == "mlp"),
        key=lambda name: -record[name]["test_accuracy"],  # stable: ties keep their order
    )
    record["letters"] = dict(zip(LETTERS, mlps, strict=False))
    _write_json(ledger, record)
    parts = [f"SL LogReg {100 * record['sl-logreg']['test_accuracy']:.2f}%"]
    parts += [
        f"MLP {letter} {100 * record[name]['test_accuracy']:.2f}%"
        for letter, name in record["letters"].items()
    ]
    return "supervised: test accuracy " + ", ".join(parts)


def _baseline(result: dict[str, Any]) -> float:
    """The most frequent class's share of the test positions."""
    counts = result.get("class_counts") or [0]
    return max(counts) / max(1, sum(counts))


# ----------------------------------------------------------------------------- self-play


def _runs(out: Path) -> dict[str, tuple[str, Path]]:
    """Self-play runs: label -> (model, start file), from ``starts.json``."""
    record = _read_json(out / "starts" / "starts.json")
    runs = {RL_LOGREG: ("logreg", out / "starts" / "sl-logreg.npz")}
    for letter, name in record["letters"].items():
        runs[f"MLP-{letter}"] = (f"mlp:{HIDDEN}", out / "starts" / f"{name}.npz")
    return runs


def run_dir(out: Path, label: str) -> Path:
    return out / "selfplay" / label.lower()


def selfplay_config(
    model: str, init: Path, budget: Budget, seed: int, openings: str | None
) -> TrainConfig:
    """Algorithm 7 over full-tree minimax trees with the soft cross-entropy (Serban's
    best objective for LogReg), from a supervised start."""
    logreg = model == "logreg"
    return TrainConfig(
        algorithm="treestrap-mm",
        model=model,
        feature_set="bitboard",
        objective="soft-cross-entropy",
        init=str(init),
        seed=seed,
        games=budget.games,
        depth=None,  # the tree's node budget decides, as in Serban's searches
        minimax_nodes=budget.minimax_nodes,
        minimax_qnodes=budget.minimax_qnodes,
        max_plies=budget.train_plies,
        checkpoint_every=budget.checkpoint_every,
        openings=openings,
        replay_size=budget.replay_size,
        tree_nodes=budget.tree_nodes,
        batch_size=budget.batch_size,
        step_size=LOGREG_STEP if logreg else MLP_STEP,
        momentum=LOGREG_MOMENTUM if logreg else MLP_MOMENTUM,
    )


def games_trained(run: Path) -> int:
    """Games committed to a run (its weights are the commit point); 0 before any."""
    from treestrap.evaluation.weights import load_weights

    weights = run / "weights.npz"
    if not weights.exists():
        return 0
    return int(load_weights(weights).metadata.get("games", 0))


def _train_one(config: TrainConfig, run: Path) -> int:
    """Worker: start or continue one self-play run; returns its game count."""
    from treestrap.training.run import train

    return train(config, run, resume=(run / "weights.npz").exists()).games


def _games_logged(run: Path) -> int:
    try:
        with open(run / "metrics.jsonl", "rb") as fh:
            return sum(1 for _ in fh)
    except OSError:
        return 0


def train_selfplay(
    out: Path, budget: Budget, seed: int, openings: str | None, workers: int, progress: bool
) -> str | None:
    """Stage 3: the RL LogReg and RL MLP runs, ``workers`` at a time."""
    from tqdm import tqdm

    runs = _runs(out)
    todo = {
        label: spec
        for label, spec in runs.items()
        if games_trained(run_dir(out, label)) < budget.games
    }
    if not todo:
        return None
    total = budget.games * len(runs)
    bar = tqdm(total=total, unit="game", desc="self-play", disable=not progress)
    dirs = [run_dir(out, label) for label in runs]

    def tick() -> None:
        bar.n = min(total, sum(min(budget.games, _games_logged(d)) for d in dirs))
        bar.refresh()

    try:
        with _spawn_pool(workers) as pool:
            jobs = [
                pool.submit(
                    _train_one,
                    selfplay_config(model, init, budget, seed, openings),
                    run_dir(out, label),
                )
                for label, (model, init) in todo.items()
            ]
            _wait_all(jobs, tick)
    finally:
        bar.close()
    draws = sum(_draws(run_dir(out, label)) for label in runs)
    return (
        f"self-play: {len(runs)} runs x {budget.games} games "
        f"({100 * draws / max(1, total):.0f}% drawn)"
    )


def _draws(run: Path) -> int:
    from treestrap.evaluation.weights import load_weights

    return int(load_weights(run / "weights.npz").metadata.get("run_state", {}).get("draws", 0))


# ----------------------------------------------------------------------------- tournaments


def checkpoints(out: Path, label: str, budget: Budget, start: bool) -> list[tuple[int, Path]]:
    """(games, file) of a run's checkpoints every ``checkpoint_every`` games and its
    last, with the start (game 0) if ``start``."""
    folder = run_dir(out, label) / "checkpoints"
    wanted = list(range(budget.checkpoint_every, budget.games + 1, budget.checkpoint_every))
    if not wanted or wanted[-1] != budget.games:
        wanted.append(budget.games)
    if start:
        wanted.insert(0, 0)
    found = []
    for games in wanted:
        path = folder / f"game-{games:06d}.npz"
        if not path.exists():
            raise ValueError(f"{path} is missing: {run_dir(out, label)} is not a finished run")
        found.append((games, path))
    return found


def player_name(label: str, games: int) -> str:
    return f"{label}@{games}"


def tournament_config(
    players: list[str],
    budget: Budget,
    seed: int,
    openings: str | None,
    finisher: str | None,
    workers: int,
    figure: str,
) -> TournamentConfig:
    """A gauntlet of ``players[0]`` against the others under the budget's limits."""
    return TournamentConfig(
        players=players,
        format=GAUNTLET,
        games_per_pair=budget.games_per_pair,
        openings=openings,
        seed=seed,
        tc=budget.tc,
        max_plies=budget.max_plies,
        finish_with=finisher,
        finish_tc=budget.finish_tc,
        finish_plies=budget.finish_plies,
        workers=workers,
        event=f"treestrap reproduce serban2014 (Figure {figure})",
    )


def play_gauntlet(config: TournamentConfig, folder: Path, progress: bool) -> bool:
    """Play (or finish) a gauntlet; False if every scheduled game was already stored."""
    scheduled = len(plan_tournament(config).games)
    stored = folder / "results.sqlite"
    if stored.exists() and len(load_results(folder)) >= scheduled:
        return False
    run_tournament(config, folder, resume=stored.exists(), progress=progress)
    return True


def logreg_players(out: Path, budget: Budget) -> list[str]:
    """Figure 7.1's gauntlet: the SL LogReg, then every RL LogReg checkpoint."""
    specs = [f"{SL_LOGREG}={out / 'starts' / 'sl-logreg.npz'}"]
    specs += [
        f"{player_name(RL_LOGREG, g)}={path}"
        for g, path in checkpoints(out, RL_LOGREG, budget, start=False)
    ]
    return specs


def best_rl_logreg(games: list[GameResult]) -> str:
    """The RL LogReg checkpoint rated highest by Figure 7.1's games (on a tie, the one
    trained longer)."""
    table, _ = fit_ratings_settled(games, RatingOptions(anchor=(SL_LOGREG, 0.0)))
    names = [n for n in table.names if n.startswith(f"{RL_LOGREG}@")]
    return max(names, key=lambda n: (round(table.rating(n).elo, 6), int(n.split("@")[1])))


def mlp_players(out: Path, budget: Budget, reference: str) -> list[str]:
    """Figure 7.2's gauntlet: the best RL LogReg, then every MLP checkpoint from its
    supervised start on."""
    games = int(reference.split("@")[1])
    specs = [f"{reference}={run_dir(out, RL_LOGREG) / 'checkpoints' / f'game-{games:06d}.npz'}"]
    for label in _runs(out):
        if label == RL_LOGREG:
            continue
        specs += [
            f"{player_name(label, g)}={path}"
            for g, path in checkpoints(out, label, budget, start=True)
        ]
    return specs


@dataclass(frozen=True)
class Finishes:
    """How a tournament's games ended: all, handed to the finisher at the ply limit,
    and of those the ones it played to a natural end (mate, stalemate, draw rules)."""

    games: int
    handed_over: int
    ended: int

    def describe(self, max_plies: int, finisher: bool) -> str:
        if not finisher:
            return f"{self.games} games, {self.handed_over} drawn at {max_plies} plies"
        return (
            f"{self.games} games, {self.handed_over} reached {max_plies} plies and went to "
            f"Stockfish, {self.ended} of those played to an end"
        )


def finishes(folder: Path) -> Finishes:
    """The :class:`Finishes` of the tournament in ``folder`` (from its terminations)."""
    with ResultsDB.open(folder) as db:
        terminations = [g.termination or "" for g in db.games()]
    return Finishes(
        len(terminations),
        sum(1 for t in terminations if t.startswith((MAX_LENGTH, "finished by"))),
        sum(1 for t in terminations if t.startswith("finished by")),
    )


# ----------------------------------------------------------------------------- report


@dataclass
class SerbanResult:
    """The fit of both tournaments and what the table says of it."""

    table: RatingTable
    reference: str
    points: list[CurvePoint]  # every rated checkpoint: label, games, Elo, interval
    starts: dict[str, Any]
    notes: list[str]

    def point(self, label: str, games: int) -> CurvePoint:
        return next(p for p in self.points if p.label == label and p.games == games)

    def best(self, label: str) -> CurvePoint:
        return max((p for p in self.points if p.label == label), key=lambda p: p.elo)


def rate(out: Path) -> SerbanResult:
    """One fit of both gauntlets with the best RL LogReg fixed at 250 Elo."""
    first = load_results(out / "tournament" / "logreg")
    reference = best_rl_logreg(first)
    games = first + load_results(out / "tournament" / "mlp")
    table, notes = fit_ratings_settled(games, RatingOptions(anchor=(reference, ANCHOR_ELO)))
    points = []
    for name in table.names:
        label, _, trained = name.partition("@")
        r = table.rating(name)
        points.append(CurvePoint(label, int(trained or 0), r.elo, r.lower, r.upper))
    starts = _read_json(out / "starts" / "starts.json")
    return SerbanResult(table, reference, points, starts, notes)


def _verdict(los: float) -> str:
    if los >= SETTLED:
        return "holds"
    if los <= 1.0 - SETTLED:
        return "reversed"
    return "not settled by these games"


def findings(result: SerbanResult, budget: Budget) -> list[str]:
    """Serban's two findings checked on the fit: each line the Elo difference, the
    likelihood of superiority and a verdict (holds at LOS >= 95%)."""
    table, ref = result.table, result.reference
    lines = []
    los = table.los(ref, SL_LOGREG)
    diff = table.rating(ref).elo - table.rating(SL_LOGREG).elo
    lines.append(
        f"RL LogReg above SL LogReg: {ref} - {SL_LOGREG} = {diff:+.0f} Elo, LOS {100 * los:.1f}%: "
        f"{_verdict(los)} (Serban 7.5: {SERBAN_RL_OVER_SL:+.0f})"
    )
    lines.append(f"MLPs above LogReg (after {budget.games} self-play games, against {ref}):")
    for letter in result.starts["letters"]:
        name = player_name(f"MLP-{letter}", budget.games)
        los = table.los(name, ref)
        diff = table.rating(name).elo - table.rating(ref).elo
        lines.append(
            f"  MLP {letter}: {name} - {ref} = {diff:+.0f} Elo, LOS {100 * los:.1f}%: "
            f"{_verdict(los)}"
        )
    return lines


def format_table(
    result: SerbanResult,
    budget: Budget,
    budget_name: str,
    ends: dict[str, str],
    timings: dict[str, float],
) -> str:
    """``table.txt``: the starting points, every rating, Serban's findings, how the
    tournaments' games ended and the time each stage took."""
    starts = result.starts
    rows = [("SL LogReg", starts["sl-logreg"])]
    rows += [(f"MLP {letter}", starts[name]) for letter, name in starts["letters"].items()]
    trained = [
        f"{Start('', e['model'], e['fraction'], e['epochs']).describe()} "
        f"({e['n_train']:,} positions)"
        for _, e in rows
    ]
    width = max(len(t) for t in trained) + 2
    lines = [
        f"Serban (2014), chapter 7 reproduction, budget {budget_name!r}: {budget.note}",
        "",
        "Supervised starting points (bitboard inputs; test accuracy on held-out games):",
        f"  {'model':<11}{'trained on':<{width}}{'test accuracy':>14}",
    ]
    for (title, entry), text in zip(rows, trained, strict=True):
        lines.append(f"  {title:<11}{text:<{width}}{100 * entry['test_accuracy']:>13.2f}%")
    lines.append(f"  {'most frequent class':<{11 + width}}{100 * starts['baseline']:>13.2f}%")
    lines += [
        "",
        f"Ratings (BayesElo model, one fit of both gauntlets, best RL LogReg {result.reference} "
        f"fixed at {ANCHOR_ELO:.0f}):",
        f"  {'player':<16}{'Elo':>7}  {'95% interval':<16}{'games':>6}{'score':>8}",
    ]
    for p in result.table.players:
        interval = (
            "(anchor)"
            if p.name == result.reference
            else f"[{round(p.lower) + 0}, {round(p.upper) + 0}]"
        )
        lines.append(
            f"  {p.name:<16}{round(p.elo) + 0:>7}  {interval:<16}{p.games:>6}{100 * p.score:>7.1f}%"
        )
    lines += ["", "Serban's findings:"]
    lines += [f"  {line}" for line in findings(result, budget)]
    lines.append("")
    lines += [f"tournament {figure}: {text}" for figure, text in ends.items()]
    if timings:
        spent = ", ".join(f"{stage} {seconds:.0f} s" for stage, seconds in timings.items())
        lines.append(f"time per stage (all invocations): {spent}")
    lines += [f"note: {note}" for note in [*result.notes, budget.caveat] if note]
    return "\n".join(lines) + "\n"


def plot_figure(
    result: SerbanResult, labels: list[str], path: Path, title: str, start_name: str | None
) -> None:
    """Elo against training games, one line per run with 95% error bars, the best RL
    LogReg's 250 as a dashed line; ``start_name`` plots that player at 0 games."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    most = max(p.games for p in result.points)
    for k, label in enumerate(labels):
        # Lines side by side, a little apart, so that their error bars stay readable.
        dodge = (k - (len(labels) - 1) / 2) * 0.012 * most
        pts = sorted((p for p in result.points if p.label == label), key=lambda p: p.games)
        if start_name is not None:
            start = next(p for p in result.points if p.label == start_name)
            pts = [dataclasses.replace(start, games=0), *pts]
        ax.errorbar(
            [p.games + dodge for p in pts],
            [p.elo for p in pts],
            yerr=[[p.elo - p.lower for p in pts], [p.upper - p.elo for p in pts]],
            marker="o",
            capsize=3,
            label=label.replace("-", " ") + (f" (0 games: {start_name})" if start_name else ""),
        )
    ax.axhline(
        ANCHOR_ELO, color="grey", linestyle="--", label=f"best RL LogReg ({result.reference})"
    )
    ax.set_xlabel("Number of training games")
    ax.set_ylabel("Rating (Elo)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    tmp = path.with_name(path.stem + ".tmp.png")
    fig.savefig(tmp, dpi=120)
    plt.close(fig)
    os.replace(tmp, path)


def write_report(out: Path, budget: Budget, budget_name: str) -> SerbanResult:
    """Stage 6: ratings, curve, figures and, last, ``table.txt``."""
    result = rate(out)
    result.table.to_csv(out / "ratings.csv")
    result.table.to_json(out / "ratings.json")
    notes = "".join(f"note: {note}\n" for note in result.notes)
    (out / "ratings.txt").write_text(
        result.table.format_table() + "\n" + result.table.format_los() + "\n" + notes,
        encoding="utf-8",
    )
    rows = ["run,games,elo,lower95,upper95"]
    rows += [
        f"{p.label},{p.games},{p.elo:.1f},{p.lower:.1f},{p.upper:.1f}"
        for p in sorted(result.points, key=lambda p: (p.label, p.games))
    ]
    (out / "curve.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    plot_figure(
        result,
        [RL_LOGREG],
        out / "fig7_1.png",
        "Figure 7.1: RL LogReg (soft cross-entropy) against training games",
        SL_LOGREG,
    )
    mlps = [f"MLP-{letter}" for letter in result.starts["letters"]]
    plot_figure(
        result,
        mlps,
        out / "fig7_2.png",
        "Figure 7.2: RL MLPs against training games (0 games: the supervised start)",
        None,
    )
    finisher = bool(_read_json(out / "settings.json").get("finish"))
    ends = {
        figure: finishes(out / "tournament" / folder).describe(budget.max_plies, finisher)
        for figure, folder in (("7.1", "logreg"), ("7.2", "mlp"))
    }
    timings_path = out / "timings.json"
    timings = _read_json(timings_path) if timings_path.exists() else {}
    text = format_table(result, budget, budget_name, ends, timings)
    tmp = out / "table.txt.tmp"
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, out / "table.txt")
    return result


# ----------------------------------------------------------------------------- the command


def reproduce(
    out_dir: str | Path,
    budget: str | Budget = "quick",
    pgn: str | None = None,
    openings: str | None = None,
    seed: int = 1,
    workers: int = 2,
    finish: bool = True,
    progress: bool = True,
    report: Callable[[str], None] | None = None,
) -> SerbanResult:
    """Run every stage not yet finished in ``out_dir`` and return the fit; ``report``
    gets one line as each stage completes. ``budget`` is a name of :data:`BUDGETS` or
    a :class:`Budget`; ``pgn`` the game collection of the supervised stage (needed
    until the dataset is built); ``openings`` the book of self-play and tournament
    games (Serban: ECO; None: the built-in one); ``finish=False`` scores games that
    reach 200 plies as draws instead of having Stockfish play them out. Bad input:
    ``ValueError`` before anything is written."""
    if isinstance(budget, str):
        if budget not in BUDGETS:
            raise ValueError(
                f"unknown budget {budget!r} for serban2014 (known: {', '.join(BUDGETS)})"
            )
        budget_name, budget = budget, BUDGETS[budget]
    else:
        budget_name = "custom"
    if len(budget.candidates) != len(LETTERS):
        raise ValueError(f"a budget names {len(LETTERS)} MLP candidates (A, B, C)")
    say = report or (lambda line: None)
    if importlib.util.find_spec("torch") is None:
        from treestrap.supervised.torch_required import INSTALL_HINT

        raise ValueError(INSTALL_HINT)
    finisher = check_finisher(finish)
    for what, path in (("--pgn", pgn), ("--openings", openings)):
        if path is not None and not Path(path).is_file():
            raise ValueError(f"{what}: no such file: {path}")
    if openings is not None:
        from treestrap.play.openings import load_openings

        load_openings(openings)  # a bad book fails now, not in a worker
    out = Path(out_dir)
    if not (out / "settings.json").exists() and pgn is None:
        raise ValueError("serban2014 learns its starting points from games: give --pgn PGN")
    out.mkdir(parents=True, exist_ok=True)
    check_settings(out, budget, seed, pgn, openings, finish)

    def gauntlet(figure: str, folder: str, players: Callable[[], list[str]]) -> str | None:
        config = tournament_config(players(), budget, seed, openings, finisher, workers, figure)
        if not play_gauntlet(config, out / "tournament" / folder, progress):
            return None
        ends = finishes(out / "tournament" / folder)
        return f"tournament {figure}: " + ends.describe(budget.max_plies, finisher is not None)

    def mlp_gauntlet() -> list[str]:
        reference = best_rl_logreg(load_results(out / "tournament" / "logreg"))
        return mlp_players(out, budget, reference)

    stages: list[tuple[str, Callable[[], str | None]]] = [
        ("dataset", lambda: build_data(out, pgn, seed, workers, progress)),
        ("supervised", lambda: train_starts(out, budget, seed, workers, progress)),
        ("self-play", lambda: train_selfplay(out, budget, seed, openings, workers, progress)),
        ("tournament 7.1", lambda: gauntlet("7.1", "logreg", lambda: logreg_players(out, budget))),
        ("tournament 7.2", lambda: gauntlet("7.2", "mlp", mlp_gauntlet)),
    ]
    changed = False
    for name, run in stages:
        began = time.monotonic()
        line = run()
        if line is None:
            say(f"{name}: done before")
            continue
        seconds = time.monotonic() - began
        _add_timing(out, name, seconds)
        changed = True
        say(f"{line} ({seconds:.0f} s)")
    # The report is cheap, but rewritten only when a stage above did work (or it is
    # missing), so a finished directory is left as it is.
    if not changed and (out / "table.txt").exists():
        say("report: done before")
        return rate(out)
    began = time.monotonic()
    result = write_report(out, budget, budget_name)
    seconds = time.monotonic() - began
    _add_timing(out, "report", seconds)
    say(f"report: table.txt, fig7_1.png, fig7_2.png, ratings ({seconds:.0f} s)")
    return result
