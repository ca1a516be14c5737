"""The bootstrap pipeline: from random weights to the best evaluation, round by round,
for any game with a :class:`~treestrap.bootstrap.provider.BootstrapProvider`.

Round 0 learns linear weights from random ones by TreeStrap self-play (the game's
config for it: chess's ``strong`` preset playing only itself). Each later round

1. plays self-play games with the best player so far and records their positions
   (chess: :mod:`treestrap.bootstrap.selfplay`; the chunks spread over actors by
   :mod:`treestrap.bootstrap.actors`),
2. fits a candidate to this round's data and the rounds' before it (chess: a
   perspective network, :mod:`treestrap.distill.perspective_fit`),
3. gates it against the best player (:mod:`treestrap.bootstrap.gate`): only an
   accepted candidate becomes the best.

Every step leaves files that say it is done (a training run's weights, data chunks,
fit checkpoints, stored gate games, ``round.json``), so the same command resumes a
killed run where it stopped. ``RUN/bootstrap.json`` holds the budget the run was made
with and the changes made to it since (each round keeps its own in
``round-NN/budget.json``); ``RUN/rounds.jsonl`` one line per finished round, what the
report and the curve are drawn from.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from treestrap.bootstrap.actors import play_round
from treestrap.bootstrap.candidate_record import record_round_cpu, round_cpu_split
from treestrap.bootstrap.chunks import ChunkSummary, chunk_files, chunk_path
from treestrap.bootstrap.gate import GateResult
from treestrap.bootstrap.provider import BootstrapProvider, RunBudget, bootstrap_provider
from treestrap.games.registry import DEFAULT_GAME

SETTINGS_FILE = "bootstrap.json"
ROUNDS_FILE = "rounds.jsonl"
ROUND_FILE = "round.json"
CANDIDATE_FILE = "candidate.npz"
#: The best player so far, with what the run spent to reach it (what a preset ships).
BEST_FILE = "best.npz"
#: Round ``r`` of a run with seed ``s`` draws its openings from seed ``s * ROUND_SEEDS + r``.
ROUND_SEEDS = 1000


class ForeignDataError(ValueError):
    """A data file played by a player that is not one of the run's own."""


@dataclass
class RunOptions:
    """How this invocation runs (not part of the run: may change on resume)."""

    actors: int = 1
    backend: str = "local"
    address: str | None = None
    minutes: float | None = None
    progress: bool = True
    #: bench depth for the nodes-per-second column (0: not measured)
    bench_depth: int = 6


def round_dir(run: Path, number: int) -> Path:
    return run / f"round-{number:02d}"


def open_run(
    run: Path,
    budget: RunBudget,
    seed: int,
    command: str,
    provider: BootstrapProvider,
    changes: list[tuple[str, Any]] | None = None,
    start: str | None = None,
) -> RunBudget:
    """Make the run directory, or reopen one made with this game, budget's name and
    seed: a run goes on with the settings it was made with (read from
    ``bootstrap.json``), and ``changes`` (``--set``) to them, recorded there, apply from
    the first round not yet begun (:mod:`treestrap.bootstrap.budget_changes`).
    ``start`` (``--from``) names the file a new run starts from instead of round 0
    (:mod:`treestrap.bootstrap.start_file`); a resumed run keeps its own."""
    from treestrap.bootstrap.start_file import copy_start, resolve_start, start_settings

    path = run / SETTINGS_FILE
    if path.exists():
        saved = json.loads(path.read_text())
        game = saved.get("game", DEFAULT_GAME)
        if game != provider.game:
            raise ValueError(f"{run} is a run of --game {game}, not --game {provider.game}")
        if saved["budget"]["name"] != budget.name or saved["seed"] != seed:
            raise ValueError(
                f"{run} was made with --budget {saved['budget']['name']} --seed "
                f"{saved['seed']}, not --budget {budget.name} --seed {seed}"
            )
        if start is not None:
            _check_same_start(run, saved.get("start"), start, provider.game)
        if changes:
            _record_changes(run, saved, changes, command, provider)
        return provider.budget_from_json(saved["budget"])
    if (run / ROUNDS_FILE).exists() or any(run.glob("round-*")):
        raise ValueError(f"{run} holds rounds but no {SETTINGS_FILE}: not a bootstrap run")
    settings: dict[str, Any] = {
        "game": provider.game,
        "seed": seed,
        "budget": budget.to_json(),
        "command": command,
    }
    if start is not None:
        start_path = resolve_start(start, provider.game)
        settings["start"] = start_settings(start_path, start, provider.game)
        copy_start(start_path, run)  # before the settings: they make the run exist
    if changes:
        _record_changes(run, settings, changes, command, provider)
        budget = provider.budget_from_json(settings["budget"])
    run.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=1) + "\n")
    return budget


def _check_same_start(run: Path, saved: dict[str, Any] | None, start: str, game: str) -> None:
    """Refuse a resume whose ``--from`` is not the file the run started from."""
    from treestrap.bootstrap.start_file import resolve_start
    from treestrap.evaluation.provenance import file_sha256

    if saved is None:
        raise ValueError(f"{run} started from random weights, not --from {start}")
    if file_sha256(resolve_start(start, game)) != saved["sha256"]:
        raise ValueError(f"{run} started from another file (--from {saved['from']})")


def _record_changes(
    run: Path,
    settings: dict[str, Any],
    changes: list[tuple[str, Any]],
    command: str,
    provider: BootstrapProvider,
) -> None:
    """Apply ``changes`` to ``settings`` (written back when the run exists) and list
    them with the first round they reach: each the round in progress when its step has
    not begun there (that round's own budget changed with it), else the next."""
    from dataclasses import asdict

    from treestrap.bootstrap.budget_changes import ROUND_BUDGET_FILE, changed_budget

    # Settings added to the tool since the run began are there with their defaults.
    settings["budget"] = asdict(provider.budget_from_json(settings["budget"]))
    budget = changed_budget(settings["budget"], changes)
    provider.budget_from_json(budget)  # the game's own checks of the new settings
    # a setting the run already has (the same --set given again on resume) is no change
    changes = [c for c in changes if changed_budget(settings["budget"], [c]) != settings["budget"]]
    if not changes:
        return
    number = len(finished_rounds(run))
    folder = round_dir(run, number)
    now, later = changes, []
    if folder.exists():
        now = [c for c in changes if not _step_begun(folder, c[0])]
        later = [c for c in changes if _step_begun(folder, c[0])]
        pinned = folder / ROUND_BUDGET_FILE
        began = json.loads(pinned.read_text()) if pinned.exists() else settings["budget"]
        began = changed_budget(asdict(provider.budget_from_json(began)), now)
        provider.budget_from_json(began)
        pinned.write_text(json.dumps(began, indent=1) + "\n")
    settings["budget"] = budget
    entries = [
        {"from_round": first, "set": dict(group), "command": command}
        for first, group in ((number, now), (number + 1, later))
        if group
    ]
    settings["changes"] = [*settings.get("changes", []), *entries]
    if (run / SETTINGS_FILE).exists():
        from treestrap.training.files import write_atomic

        write_atomic(run / SETTINGS_FILE, json.dumps(settings, indent=1) + "\n")


def _step_begun(folder: Path, key: str) -> bool:
    """Whether the step of round ``folder`` that setting ``key`` belongs to has begun
    (a run-wide setting such as ``rounds`` belongs to none)."""
    section = key.split(".")[0]
    if section == "selfplay":
        return any((folder / "data").glob("chunk-*"))
    if section in ("fit", "gate"):
        return (folder / section).exists()
    if section.startswith("round0"):
        return (folder / "train").exists()
    return False


def finished_rounds(run: Path) -> list[dict[str, Any]]:
    """The records of the rounds finished, in order."""
    path = run / ROUNDS_FILE
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def best_player(run: Path) -> Path:
    """The best player's weight file after the rounds finished so far."""
    best = None
    for record in finished_rounds(run):
        if record["accepted"]:
            best = run / record["player_file"]
    if best is None:
        raise ValueError(f"{run}: round 0 has not finished")
    return best


def _seconds_left(deadline: float | None) -> float | None:
    return None if deadline is None else max(0.0, deadline - time.monotonic())


def _finish_round(run: Path, record: dict[str, Any]) -> None:
    """The round's record into its folder and, last, onto the run's list."""
    from treestrap.training.files import write_atomic

    folder = round_dir(run, record["round"])
    (folder / ROUND_FILE).write_text(json.dumps(record, indent=1) + "\n")
    lines = [json.dumps(r) for r in [*finished_rounds(run), record]]
    write_atomic(run / ROUNDS_FILE, "\n".join(lines) + "\n")


def run_round0(
    run: Path,
    budget: RunBudget,
    seed: int,
    options: RunOptions,
    deadline: float | None,
    provider: BootstrapProvider,
) -> bool:
    """Round 0 (or its continuation); True when it finished."""
    folder = round_dir(run, 0) / "train"
    config = provider.round0_config(budget, seed)
    state, model = None, provider.round0_model
    if provider.round0_train is not None:
        state = provider.round0_train(
            config, folder, _seconds_left(deadline), options.progress, options.actors
        )
    if state is None:
        resume = (folder / "weights.npz").exists()
        state = _train_with_bar(config, folder, resume, _seconds_left(deadline), options.progress)
    else:
        model = config.description
    if state.games < budget.round0_games:
        return False
    record = {
        "round": 0,
        "player_file": str((folder / "weights.npz").relative_to(run)),
        "accepted": True,
        "games": state.games,
        "positions": 0,
        "cpu_seconds": round(state.cpu_seconds, 1),
        "round_cpu_seconds": round(state.cpu_seconds, 1),
        "elo_vs_round0": 0.0,
        "elo_margin": 0.0,
        "model": model,
    }
    record["nps"] = provider.nps(folder / "weights.npz", options.bench_depth)
    _finish_round(run, record)
    return True


def start_from_file(
    run: Path, start: dict[str, Any], options: RunOptions, provider: BootstrapProvider
) -> bool:
    """Round 0 of a run started from a file: its copy is the first best player."""
    from treestrap.bootstrap.start_file import START_FILE, start_round

    record = start_round(run, start)
    record["nps"] = provider.nps(run / START_FILE, options.bench_depth)
    round_dir(run, 0).mkdir(parents=True, exist_ok=True)
    _finish_round(run, record)
    return True


def _train_with_bar(
    config: Any, folder: Path, resume: bool, seconds: float | None, progress: bool
) -> Any:
    from tqdm import tqdm

    from treestrap.evaluation.weight_files import load_weights
    from treestrap.training.run import train

    done = 0
    if resume:  # the bar starts at the games already played, so its rate is this run's
        done = load_weights(folder / "weights.npz").metadata.get("run_state", {}).get("games", 0)
    bar = tqdm(
        total=config.games,
        initial=done,
        unit="game",
        desc="round 0: TreeStrap",
        disable=not progress,
    )
    try:
        return train(
            config,
            folder,
            resume=resume,
            time_limit=seconds,
            on_game=lambda summary, state: bar.update(state.games - bar.n),
        )
    finally:
        bar.close()


def round_data_files(run: Path, number: int, budget: RunBudget) -> tuple[list[Path], list[Path]]:
    """The fit's training and held-out files: the chunks of this round and the
    ``data_rounds - 1`` before it; the held-out one is this round's last chunk."""
    first = max(1, number - budget.fit.data_rounds + 1)
    files: list[Path] = []
    for r in range(first, number):  # finished rounds: every chunk they played
        files += chunk_files(round_dir(run, r) / "data")
    data = round_dir(run, number) / "data"
    files += [chunk_path(data, i) for i in range(budget.selfplay.chunks())]
    files = [f for f in files if f.exists()]
    held_out = [chunk_path(round_dir(run, number) / "data", budget.selfplay.chunks() - 1)]
    return [f for f in files if f not in held_out], held_out


def check_own_data(files: list[Path], players: set[str], record: str | None = None) -> None:
    """Refuse any data file whose games were played by a player not of this run (or
    whose records are not of type ``record``; None: chess's)."""
    from treestrap.distill.position_file import RECORD_NAME, read_header

    for path in files:
        header, _ = read_header(path, record or RECORD_NAME)
        if header.get("player_sha256") not in players:
            raise ForeignDataError(
                f"{path}: played by {header.get('player')!r} (sha256 "
                f"{str(header.get('player_sha256'))[:12]}...), not by a player of this run"
            )


def _own_players(run: Path) -> set[str]:
    """The SHA-256 of every weight file that played this run's games."""
    from treestrap.evaluation.provenance import file_sha256

    return {file_sha256(run / r["player_file"]) for r in finished_rounds(run) if r["accepted"]}


def round_selfplay(budget: RunBudget, seed: int, number: int) -> Any:
    """Round ``number``'s self-play settings: its own openings (a round after a rejected
    one has the same player, and must not play the same games again)."""
    return dataclasses.replace(budget.selfplay, seed=seed * ROUND_SEEDS + number)


def run_network_round(
    run: Path,
    number: int,
    budget: RunBudget,
    seed: int,
    options: RunOptions,
    deadline: float | None,
    provider: BootstrapProvider,
) -> bool:
    """Round ``number`` >= 1 (or its continuation); True when it finished."""
    folder = round_dir(run, number)
    best = best_player(run)
    summaries = play_round(
        best,
        round_selfplay(budget, seed, number),
        folder / "data",
        options.actors,
        options.backend,
        options.address,
        deadline,
        options.progress,
        play=provider.play_chunk,
    )
    if len(summaries) < budget.selfplay.chunks():
        return False
    if deadline is not None and time.monotonic() >= deadline:
        return False
    train_files, held_out = round_data_files(run, number, budget)
    check_own_data(train_files + held_out, _own_players(run), provider.record)
    candidate = folder / CANDIDATE_FILE
    fit = provider.fit_candidate(
        candidate,
        train_files,
        held_out,
        budget,
        best,
        _games_in(train_files + held_out, provider.record),
        folder / "fit",
        options.progress,
    )
    if deadline is not None and time.monotonic() >= deadline:
        return False
    gate = provider.run_gate(candidate, best, folder / "gate", budget.gate, options.progress)
    previous = finished_rounds(run)[-1]
    round_cpu = _selfplay_cpu(summaries) + fit["cpu_seconds"] + gate.cpu_seconds
    # the candidate's record: its round's CPU time, not its fit's alone
    split = round_cpu_split(_selfplay_cpu(summaries), fit["cpu_seconds"], gate.cpu_seconds)
    record_round_cpu(candidate, split)
    gain = gate.elo if gate.accepted else 0.0
    base = [r for r in finished_rounds(run) if r["accepted"]][-1]
    record = {
        "round": number,
        "player_file": str(candidate.relative_to(run)),
        "accepted": gate.accepted,
        "games": sum(s.games for s in summaries),
        "positions": sum(s.positions for s in summaries),
        "fit_positions": fit["positions"],
        "held_out_loss": fit["held_out_loss"],
        "held_out_cp": fit.get("held_out_cp"),
        "best_held_out_loss": fit.get("best_held_out_loss"),
        "gate": gate.line(),
        "sprt": gate.summary,
        "gate_elo": gate.elo,
        "gate_lower": gate.lower,
        "gate_upper": gate.upper,
        "elo_vs_round0": round(base["elo_vs_round0"] + gain, 1),
        "elo_margin": round(_margin(base, gate), 1),
        "round_cpu_seconds": round(round_cpu, 1),
        "cpu_seconds": round(previous["cpu_seconds"] + round_cpu, 1),
        "model": fit["model"],
    }
    record["nps"] = provider.nps(candidate, options.bench_depth)
    _finish_round(run, record)
    return True


def _margin(base: dict[str, Any], gate: GateResult) -> float:
    """The 95% margin of the summed Elo: the accepted gates' margins combined as
    independent errors (root of the sum of squares); a rejected gate adds none."""
    if not gate.accepted:
        return float(base.get("elo_margin", 0.0))
    half = (gate.upper - gate.lower) / 2 if math.isfinite(gate.upper - gate.lower) else math.inf
    return math.hypot(base.get("elo_margin", 0.0), half)


def _selfplay_cpu(summaries: list[ChunkSummary]) -> float:
    return sum(s.cpu_seconds for s in summaries)


def _games_in(files: list[Path], record: str) -> int:
    from treestrap.distill.position_file import read_header

    total = 0
    for path in files:
        first, last = read_header(path, record)[0]["games"]
        total += last - first + 1
    return total


def bootstrap(
    run: Path,
    budget: RunBudget,
    seed: int,
    command: str,
    options: RunOptions,
    game: str = DEFAULT_GAME,
    changes: list[tuple[str, Any]] | None = None,
    start: str | None = None,
) -> list[dict[str, Any]]:
    """Run (or resume) a bootstrap run of ``game`` until its rounds are done or its
    minutes spent; the finished rounds' records. ``changes`` (dotted keys and values)
    change the budget from the first round not yet begun; ``start`` (a file or a
    preset) replaces round 0 in a new run."""
    from treestrap.bootstrap.budget_changes import round_budget

    provider = bootstrap_provider(game)
    deadline = None if options.minutes is None else time.monotonic() + options.minutes * 60
    budget = open_run(run, budget, seed, command, provider, changes, start)
    settings = json.loads((run / SETTINGS_FILE).read_text())
    while True:
        done = finished_rounds(run)
        number = len(done)
        if number > budget.rounds:
            break
        plan = round_budget(round_dir(run, number), budget.to_json(), provider.budget_from_json)
        if number == 0 and "start" in settings:
            finished = start_from_file(run, settings["start"], options, provider)
        elif number == 0:
            finished = run_round0(run, plan, seed, options, deadline, provider)
        else:
            finished = run_network_round(run, number, plan, seed, options, deadline, provider)
        if not finished:
            break
        publish(run)
    return finished_rounds(run)


def write_best(run: Path, records: list[dict[str, Any]], settings: dict[str, Any]) -> Path:
    """``RUN/best.npz``: the best player's weights, byte for byte, and its metadata with
    a ``bootstrap`` record of the run up to the round that accepted it (the command,
    the budget, the CPU time from random weights, the Elo against round 0)."""
    from treestrap.evaluation.weight_file_format import read_weight_file, write_weight_file

    accepted = [r for r in records if r["accepted"]]
    if not accepted:
        raise ValueError(f"{run}: round 0 has not finished")
    last = accepted[-1]
    meta, weights = read_weight_file(run / last["player_file"])
    metadata = dict(meta.get("metadata", {}))
    metadata["bootstrap"] = {
        "command": settings["command"],
        "game": settings.get("game", DEFAULT_GAME),
        "budget": settings["budget"]["name"],
        "seed": settings["seed"],
        "round": last["round"],
        "rounds_played": len(records),
        "rounds_accepted": len(accepted),
        "cpu_seconds": last["cpu_seconds"],
        "cpu_hours": round(last["cpu_seconds"] / 3600, 2),
        "elo_vs_round0": last["elo_vs_round0"],
        "elo_margin": last.get("elo_margin", 0.0),
        "gate": last.get("gate", ""),
    }
    if settings.get("changes"):
        metadata["bootstrap"]["changes"] = settings["changes"]
    if settings.get("start"):  # the run it went on from, with that run's own record
        metadata["bootstrap"]["start"] = settings["start"]
    target = run / BEST_FILE
    write_weight_file(target, weights, {**meta, "metadata": metadata})
    return target


def publish(run: Path) -> None:
    """Redraw the run's report, curve, best file and TensorBoard scalars from its
    rounds."""
    from treestrap.bootstrap.report import log_scalars, plot_curve, write_report

    records = finished_rounds(run)
    settings = json.loads((run / SETTINGS_FILE).read_text())
    write_report(run, records, settings)
    plot_curve(run, records)
    write_best(run, records, settings)
    if not log_scalars(run, records):
        print("note: no TensorBoard scalars (pip install 'treestrap[tensorboard]' to write them)")
