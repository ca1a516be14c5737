"""The Serban (2014) reproduction from start to end: input checks, then every stage not
yet finished in the output directory, then the report when anything changed."""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from pathlib import Path

from treestrap.reproduce.serban2014.budgets import BUDGETS, LETTERS, Budget
from treestrap.reproduce.serban2014.gauntlets import gauntlet_stage
from treestrap.reproduce.serban2014.ratings import SerbanResult, rate
from treestrap.reproduce.serban2014.report import write_report
from treestrap.reproduce.serban2014.selfplay import train_selfplay
from treestrap.reproduce.serban2014.settings import NEED_PGN, check_finisher, check_settings
from treestrap.reproduce.serban2014.starts import build_data, train_starts
from treestrap.reproduce.stages import Stage, pick_budget, run_stages, time_stage
from treestrap.training.tensorboard_log import require_tensorboard


def _check_inputs(pgn: str | None, openings: str | None) -> None:
    """Missing files and a bad opening book fail now, not in a worker."""
    for what, path in (("--pgn", pgn), ("--openings", openings)):
        if path is not None and not Path(path).is_file():
            raise ValueError(f"{what}: no such file: {path}")
    if openings is not None:
        from treestrap.play.openings import load_openings

        load_openings(openings)


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
    tensorboard: str | Path | None = None,
) -> SerbanResult:
    """Run every stage not yet finished in ``out_dir`` and return the fit; ``report``
    gets one line as each stage completes. ``budget`` is a name of :data:`BUDGETS` or
    a :class:`Budget`; ``pgn`` the game collection of the supervised stage (needed
    until the dataset is built); ``openings`` the book of self-play and tournament
    games (Serban: ECO; None: the built-in one); ``finish=False`` scores games that
    reach 200 plies as draws instead of having Stockfish play them out; ``tensorboard``
    a folder where each self-play run logs its games (``tensorboard/RUN``). Bad input:
    ``ValueError`` before anything is written."""
    budget_name, budget = pick_budget(budget, BUDGETS, "serban2014")
    if len(budget.candidates) != len(LETTERS):
        raise ValueError(f"a budget names {len(LETTERS)} MLP candidates (A, B, C)")
    say = report or (lambda line: None)
    if importlib.util.find_spec("torch") is None:
        from treestrap.supervised.torch_required import INSTALL_HINT

        raise ValueError(INSTALL_HINT)
    finisher = check_finisher(finish)
    board = Path(tensorboard) if tensorboard is not None else None
    if board is not None:
        require_tensorboard()
    _check_inputs(pgn, openings)
    out = Path(out_dir)
    if not (out / "settings.json").exists() and pgn is None:
        raise ValueError(NEED_PGN)
    out.mkdir(parents=True, exist_ok=True)
    check_settings(out, budget, seed, pgn, openings, finish)

    def gauntlet(figure: str) -> str | None:
        return gauntlet_stage(out, figure, budget, seed, openings, finisher, workers, progress)

    stages = [
        Stage("dataset", lambda: build_data(out, pgn, seed, workers, progress)),
        Stage("supervised", lambda: train_starts(out, budget, seed, workers, progress)),
        Stage(
            "self-play",
            lambda: train_selfplay(out, budget, seed, openings, workers, progress, board),
        ),
        Stage("tournament 7.1", lambda: gauntlet("7.1")),
        Stage("tournament 7.2", lambda: gauntlet("7.2")),
    ]
    changed = run_stages(out, stages, say)
    # The report is cheap, but rewritten only when a stage above did work (or it is
    # missing), so a finished directory is left as it is.
    if not changed and (out / "table.txt").exists():
        say("report: done before")
        return rate(out)
    began = time.monotonic()
    result = write_report(out, budget, budget_name)
    seconds = time_stage(out, "report", began)
    say(f"report: table.txt, fig7_1.png, fig7_2.png, ratings ({seconds:.0f} s)")
    return result
