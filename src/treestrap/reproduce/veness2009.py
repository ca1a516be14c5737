"""One command for Veness et al. (2009), section 6: train TD-Leaf, RootStrap(alpha-beta),
TreeStrap(minimax) and TreeStrap(alpha-beta) by self-play from the same random start
with the same budget, rate their checkpoints in one tournament with the untrained
player at 250 Elo, and write the paper's Table 2 and Figure 2.

Everything lands in one output directory and every stage resumes: training runs
continue from their last game, the tournament from its database; run the same
command again after an interruption.

    train/ALGORITHM/   one training run per algorithm (see treestrap.training.run)
                       (--tensorboard DIR: its games in DIR/ALGORITHM, ratings in
                       DIR/ALGORITHM/ratings)
    tournament/        results.sqlite and games.pgn of the rating tournament
    table.txt          best Elo per algorithm, next to the paper's
    ratings.*          every checkpoint's rating (txt, csv, json)
    curve.csv/.png     Elo against training games on a log axis

The same comparison on Connect Four (``--game connect4``) is
:mod:`treestrap.reproduce.veness2009_connect4`.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from treestrap.rating.curve import COLUMNS_NOTE, DISPLAY_NAMES
from treestrap.reproduce.stages import pick_budget
from treestrap.reproduce.workers import train_runs
from treestrap.training.config import TrainConfig
from treestrap.training.curve import CurveResult, CurveSettings, run_curve, tournament_summary
from treestrap.training.presets import PRESETS
from treestrap.training.tensorboard_log import require_tensorboard

#: The four algorithms of Figure 2 and Table 2.
ALGORITHMS = ("td-leaf", "rootstrap-ab", "treestrap-mm", "treestrap-ab")
#: The algorithm whose training takes longest (measured at the standard budget:
#: about 5 s a game against about 1 s for the others), started first.
SLOWEST = "treestrap-mm"
#: Table 2 of the paper: best Elo reached by self-play, untrained fixed at 250.
PAPER_ELO = {
    "treestrap-ab": 2157.0,
    "treestrap-mm": 1807.0,
    "rootstrap-ab": 1362.0,
    "td-leaf": 1068.0,
}


@dataclass(frozen=True)
class Budget:
    """What one reproduction spends: training games and search, then the tournament."""

    games: int
    depth: int | None  # training search depth; None: the clock decides
    clock: float | None
    increment: float
    minimax_nodes: int  # TreeStrap(minimax)'s full-tree budget per search
    minimax_qnodes: int
    max_plies: int
    points_per_run: int  # checkpoints per algorithm in the tournament
    tournament_tc: str
    games_per_pair: int
    note: str
    #: printed under the table: what the budget can and cannot show
    caveat: str = ""
    #: TrainConfig fields by algorithm where the budget departs from the paper's
    #: settings (steps for depth-3 trees, the strong TreeStrap(alpha-beta))
    learning: dict[str, dict[str, Any]] = field(default_factory=dict)


#: TreeStrap(alpha-beta) as the ``strong`` preset learns (docs/learning.md):
#: each node's bounds correct its quiescence value Q(s) through its principal leaf, not
#: H(s) (the training search never values an interior node statically, and fitting H
#: to those bounds taught every static-value setting a bonus for the side to move);
#: targets clipped to ten pawns; every weight learns; step 2e-4 halving after 300 games.
STRONG_TREESTRAP_AB = {
    name: PRESETS["strong"][name]
    for name in ("step_size", "step_decay", "node_value", "target_clip", "freeze")
}


BUDGETS = {
    # ~10 minutes on 2 cores: a taste of the curves' order, not their height.
    "quick": Budget(
        games=250,
        depth=3,
        clock=None,
        increment=0.0,
        minimax_nodes=300,
        minimax_qnodes=20,
        max_plies=160,
        points_per_run=4,
        tournament_tc="depth=3",
        games_per_pair=4,
        note="250 self-play games per algorithm at depth 3, TreeStrap(alpha-beta) as "
        "--preset strong; depth-3 tournament",
        caveat="the quick budget's intervals overlap by design: 250 shallow games and 4 "
        "tournament games a pair show where the curves start, not a significant order "
        "(--budget standard is sized for that)",
        learning={"treestrap-ab": STRONG_TREESTRAP_AB},
    ),
    # At most 2 hours on 2 cores (two training runs at a time, then a 1088-game depth-4
    # round robin): enough games to separate the algorithms. TreeStrap sums its update
    # over every node of a tree, and the paper set its TreeStrap steps (1e-6, 5e-7) for
    # the trees of 1m+1s searches; depth-3 trees are far smaller, so TreeStrap(minimax)
    # takes 40 times the paper's step, and TreeStrap(alpha-beta) learns as the strong
    # preset does (quiescence node values, ten-pawn clip, 2e-4 halving after 300 games).
    # TD-Leaf and RootStrap update one position per move, whatever the tree: the
    # paper's steps.
    "standard": Budget(
        games=300,
        depth=3,
        clock=None,
        increment=0.0,
        minimax_nodes=1500,
        # 20 quiescence nodes a leaf, not 100: at 100 a TreeStrap(minimax) game took
        # 30 s (measured; 300 games, 2.5 hours on its own), at 20 about a fifth of it.
        minimax_qnodes=20,
        max_plies=200,
        points_per_run=4,
        tournament_tc="depth=4",
        games_per_pair=8,
        note="300 self-play games per algorithm at depth 3, TreeStrap(minimax) step 40 x "
        "the paper's, TreeStrap(alpha-beta) as --preset strong; depth-4 round robin, "
        "8 games a pair",
        learning={"treestrap-ab": STRONG_TREESTRAP_AB, "treestrap-mm": {"step_size": 4e-5}},
    ),
    # The paper's protocol: 1m+1s Fischer clocks with learning charged to the clock,
    # ten thousand games (Figure 2's axis); days of computing.
    "paper": Budget(
        games=10000,
        depth=None,
        clock=60.0,
        increment=1.0,
        minimax_nodes=5000,
        minimax_qnodes=500,
        max_plies=400,
        points_per_run=8,
        tournament_tc="60+1",
        games_per_pair=8,
        note="10000 self-play games per algorithm at 1m+1s; 1m+1s tournament",
    ),
}


def superiority(result: CurveResult, leader: str = "treestrap-ab") -> str:
    """The likelihood that ``leader``'s best checkpoint is stronger than each other
    algorithm's best (the paper's claim is that TreeStrap(alpha-beta) leads them all)."""
    best = result.best()
    if leader not in best:
        return ""
    names = {p.label: f"{p.label}@{p.games}" for p in best.values()}
    lines = [
        f"LOS {DISPLAY_NAMES[leader]} over {DISPLAY_NAMES.get(label, label)}: "
        f"{100 * result.table.los(names[leader], name):.1f}%\n"
        for label, name in names.items()
        if label != leader
    ]
    return "".join(lines)


def training_config(algorithm: str, budget: Budget, seed: int) -> TrainConfig:
    """The same start (init and seed), openings and budget for every algorithm, with
    the budget's own settings for some (``Budget.learning``)."""
    config = TrainConfig(
        algorithm=algorithm,
        games=budget.games,
        init="random",
        seed=seed,
        depth=budget.depth,
        clock=budget.clock,
        increment=budget.increment,
        minimax_nodes=budget.minimax_nodes,
        minimax_qnodes=budget.minimax_qnodes,
        max_plies=budget.max_plies,
        # Log-spaced checkpoints come on their own; this only adds the last one.
        checkpoint_every=budget.games,
        # TD-Leaf as the paper's Table 1 defines it: H(leaf of s_t) <- V(s_t+1) in the
        # heuristic's units (no tanh squash, no predicted-reply rule); the last target is
        # the final position's value, +-9900 for a win or loss. Without it self-play from
        # near-zero weights has almost no signal (measured: weights moved < 0.04 in 250
        # games while 153 of them ended in mate).
        squash=False,
        use_outcome=True,
        predicted_only=False,
    )
    changes = budget.learning.get(algorithm, {})
    # Copies, so that no two configs share a preset's list.
    return dataclasses.replace(
        config, **{k: list(v) if isinstance(v, list) else v for k, v in changes.items()}
    )


def train_all(
    out: Path,
    budget: Budget,
    seed: int,
    workers: int,
    progress: bool = True,
    backend: str = "local",
    address: str | None = None,
    tensorboard: Path | None = None,
) -> list[Path]:
    """Train (or finish training) every algorithm (:func:`train_runs`).
    ``tensorboard``: each run logs its games in ``tensorboard/ALGORITHM``."""

    def config_of(algorithm: str) -> TrainConfig:
        config = training_config(algorithm, budget, seed)
        if tensorboard is None:
            return config
        return dataclasses.replace(config, tensorboard=str(tensorboard / algorithm))

    configs = {a: config_of(a) for a in ALGORITHMS}
    return train_runs(out, configs, workers, SLOWEST, progress, backend, address)


def reproduce(
    out_dir: str | Path,
    budget: str | Budget = "quick",
    seed: int = 1,
    workers: int = 2,
    progress: bool = True,
    backend: str = "local",
    address: str | None = None,
    tensorboard: str | Path | None = None,
) -> CurveResult:
    """Train, rate and write the table and plot; resumes whatever ``out_dir`` holds.
    ``budget`` is a name of :data:`BUDGETS` or a :class:`Budget` of one's own.
    ``backend="ray"`` runs the actors and the tournament's games on the Ray cluster
    at ``address`` (a local one if None). ``tensorboard``: a TensorBoard run of each
    algorithm's games in ``tensorboard/ALGORITHM``, and of its checkpoints' ratings in
    ``tensorboard/ALGORITHM/ratings``."""
    board = Path(tensorboard) if tensorboard is not None else None
    if backend == "ray":
        from treestrap.distributed.ray_games import ray_runner
        from treestrap.distributed.ray_support import ray_session
        from treestrap.play.gamepool import games_run_by

        # One session for training and tournament: a local cluster starts once.
        with ray_session(address), games_run_by(ray_runner(address)):
            return _reproduce(out_dir, budget, seed, workers, progress, backend, address, board)
    return _reproduce(out_dir, budget, seed, workers, progress, backend, address, board)


def _reproduce(
    out_dir: str | Path,
    budget: str | Budget,
    seed: int,
    workers: int,
    progress: bool,
    backend: str,
    address: str | None,
    tensorboard: Path | None,
) -> CurveResult:
    budget_name, budget = pick_budget(budget, BUDGETS)
    if tensorboard is not None:
        require_tensorboard()  # missing: said before training, not in a worker
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    runs = train_all(out, budget, seed, workers, progress, backend, address, tensorboard)
    trained = time.monotonic()
    settings = CurveSettings(
        points_per_run=budget.points_per_run,
        tc=budget.tournament_tc,
        games_per_pair=budget.games_per_pair,
        workers=workers,
        seed=seed,
        max_plies=budget.max_plies + 100,
    )
    title = f"Learning from self-play, {budget_name} budget\n{budget.note}"
    result = run_curve(list(runs), out, settings, progress, title, tensorboard)
    finished = time.monotonic()
    summary = (
        f"Veness et al. (2009) reproduction, budget {budget_name!r}: {budget.note}\n"
        f"training {trained - started:.0f} s, tournament and ratings "
        f"{finished - trained:.0f} s (this invocation)\n\n"
        + result.format_summary(PAPER_ELO)
        + f"\n{COLUMNS_NOTE}\n{tournament_summary(out)}\n"
        + superiority(result)
        + "".join(f"note: {note}\n" for note in [*result.notes, budget.caveat] if note)
    )
    (out / "table.txt").write_text(summary, encoding="utf-8")
    return result
