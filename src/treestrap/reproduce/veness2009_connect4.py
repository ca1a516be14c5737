"""Veness et al. (2009), section 6, on Connect Four (issue #29): train TD-Leaf,
RootStrap(alpha-beta), TreeStrap(minimax) and TreeStrap(alpha-beta) by self-play from
the same random start with the same budget, rate their checkpoints in one Connect Four
tournament with the untrained start at 250 Elo, and write the Elo table and curve as the
chess reproduction (:mod:`treestrap.reproduce.veness2009`) does, the paper's chess
figures beside them for reference. What chess cannot give is added to the table: each
rule's final weights measured against perfect play, the share of the solved reference
positions where its move is a best move (:mod:`treestrap.play.connect4.measure`).

Everything lands in one output directory and every stage resumes, as in chess:

    train/ALGORITHM/   one training run per algorithm (``--game connect4``)
    tournament/        results.sqlite and games.pgn of the rating tournament
    solved.json        the final weights' shares on the reference positions
    table.txt          best Elo per algorithm, the paper's chess Elo, the shares
    ratings.*          every checkpoint's rating (txt, csv, json)
    curve.csv/.png     Elo against training games on a log axis
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from treestrap.play.connect4.measure import Share, position_agreement
from treestrap.play.connect4.reference import ReferencePosition, load_reference
from treestrap.rating.curve import COLUMNS_NOTE, UNTRAINED
from treestrap.reproduce.stages import pick_budget, read_json, write_json
from treestrap.reproduce.veness2009 import ALGORITHMS, PAPER_ELO, SLOWEST, superiority
from treestrap.reproduce.workers import train_runs
from treestrap.training.config import TrainConfig, game_config
from treestrap.training.curve import CurveResult, CurveSettings, run_curve, tournament_summary
from treestrap.training.tensorboard_log import require_tensorboard

#: The measured final weights, by run label (``untrained``, ``hand-written``, rules).
SOLVED = "solved.json"
HAND_WRITTEN = "hand-written"
EXPERIMENT = "veness2009 --game connect4"


@dataclass(frozen=True)
class Connect4Budget:
    """What one Connect Four reproduction spends: self-play games at a fixed depth,
    then a round robin of fixed-depth searches."""

    games: int
    depth: int  # training search depth, also the tournament's and the measurement's
    minimax_nodes: int  # TreeStrap(minimax)'s full-tree budget per search
    points_per_run: int  # checkpoints per algorithm in the tournament
    games_per_pair: int
    note: str
    #: printed under the table: what the budget can and cannot show
    caveat: str = ""


BUDGETS = {
    # A few minutes on 2 cores (measured in docs/reproductions.md).
    "quick": Connect4Budget(
        games=1000,
        depth=4,
        minimax_nodes=2000,
        points_per_run=4,
        games_per_pair=8,
        note="1000 self-play games per algorithm at depth 4 (Connect Four's default "
        "steps); depth-4 round robin, 8 games a pair",
        caveat="8 games a pair rate each checkpoint to about +-80 Elo: the LOS lines say "
        "which gaps are significant (--budget standard plays twice the games)",
    ),
    "standard": Connect4Budget(
        games=5000,
        depth=4,
        minimax_nodes=2000,
        points_per_run=6,
        games_per_pair=16,
        note="5000 self-play games per algorithm at depth 4 (Connect Four's default "
        "steps); depth-4 round robin, 16 games a pair",
    ),
}


def training_config(algorithm: str, budget: Connect4Budget, seed: int) -> TrainConfig:
    """The same random start (seed), openings and budget for every algorithm, each with
    Connect Four's default step size (its facts' ``step_factors``)."""
    return game_config(
        "connect4",
        algorithm=algorithm,
        games=budget.games,
        init="random",
        seed=seed,
        depth=budget.depth,
        minimax_nodes=budget.minimax_nodes,
        # Log-spaced checkpoints come on their own; this only adds the last one.
        checkpoint_every=budget.games,
    )


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def measure_final(
    out: Path,
    runs: list[Path],
    depth: int,
    positions: list[ReferencePosition],
    positions_digest: str,
) -> dict[str, dict[str, Any]]:
    """Each run's final weights, the untrained start and the hand-written evaluation,
    searched ``depth`` plies on ``positions``: best-move and result-kept shares, kept
    in ``out/solved.json`` and reused while the weights, depth and positions are the
    same (a resumed run measures only what changed)."""
    from treestrap.games.connect4_model import hand_written_connect4_model, load_connect4_model
    from treestrap.games.connect4_players import SearchPlayer

    path = out / SOLVED
    stored = read_json(path) if path.exists() else {}
    weights: dict[str, Path | None] = {UNTRAINED: runs[0] / "checkpoints" / "game-000000.npz"}
    weights.update({run.name: run / "weights.npz" for run in runs})
    weights[HAND_WRITTEN] = None
    found: dict[str, dict[str, Any]] = {}
    for label, file in weights.items():
        key = {
            "weights": _digest(file) if file else HAND_WRITTEN,
            "depth": depth,
            "positions": positions_digest,
        }
        old = stored.get(label)
        if isinstance(old, dict) and all(old.get(k) == v for k, v in key.items()):
            found[label] = old
            continue
        model = load_connect4_model(file) if file else hand_written_connect4_model()
        best, kept = position_agreement(SearchPlayer(label, model, depth), positions)
        found[label] = {**key, "best_move": best.to_dict(), "keeps_result": kept.to_dict()}
        write_json(path, {**stored, **found})  # kept as each is measured
    if found != stored:
        write_json(path, found)  # without labels no longer measured
    return found


def _share(entry: dict[str, Any], what: str) -> Share:
    return Share(int(entry[what]["hits"]), int(entry[what]["total"]))


def format_table(
    result: CurveResult, measured: dict[str, dict[str, Any]], depth: int, count: int
) -> str:
    """The Elo table with the paper's chess Elo and the final weights' shares, the
    hand-written evaluation's shares below it as a reference."""

    def percent(what: str) -> dict[str, str]:
        return {label: f"{100 * _share(m, what).value:.1f}%" for label, m in measured.items()}

    table = result.format_summary(
        PAPER_ELO,
        paper_label="chess paper",
        extra={"best move": percent("best_move"), "keeps result": percent("keeps_result")},
    )
    hand = measured[HAND_WRITTEN]
    return (
        f"{table}\n\n"
        "Elo: this Connect Four tournament, the untrained start fixed at 250.\n"
        "chess paper: Veness et al. (2009), Table 2 (chess, not Connect Four), for "
        "reference only.\n"
        f"best move, keeps result: each algorithm's final weights searching {depth} plies "
        f"on the {count}\n"
        "  solved positions: the share where the move is a best move, and where it keeps "
        "the\n  game-theoretic result (win, draw, loss); the untrained row is the random "
        "start.\n"
        f"reference: the hand-written evaluation at depth {depth}: best move "
        f"{_share(hand, 'best_move').describe()},\n"
        f"  keeps result {_share(hand, 'keeps_result').describe()} (95% intervals)\n"
    )


def reproduce_connect4(
    out_dir: str | Path,
    budget: str | Connect4Budget = "quick",
    positions: str | Path = "reference/connect4/solved-1000.txt",
    seed: int = 1,
    workers: int = 2,
    progress: bool = True,
    tensorboard: str | Path | None = None,
) -> CurveResult:
    """Train, rate, measure and write the table and plot; resumes whatever ``out_dir``
    holds. ``budget`` is a name of :data:`BUDGETS` or a :class:`Connect4Budget`;
    ``positions`` the solved reference positions (format in ``reference/README.md``).
    ``tensorboard``: each algorithm's games in ``tensorboard/ALGORITHM``, its
    checkpoints' ratings in ``tensorboard/ALGORITHM/ratings`` (as chess's)."""
    budget_name, budget = pick_budget(budget, BUDGETS, EXPERIMENT)
    reference = load_reference(positions)  # a bad file fails before any training
    board = Path(tensorboard) if tensorboard is not None else None
    if board is not None:
        require_tensorboard()  # missing: said before training, not in a worker
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    configs = {a: training_config(a, budget, seed) for a in ALGORITHMS}
    if board is not None:
        configs = {
            a: dataclasses.replace(c, tensorboard=str(board / a)) for a, c in configs.items()
        }
    runs = train_runs(out, configs, workers, SLOWEST, progress)
    trained = time.monotonic()
    settings = CurveSettings(
        points_per_run=budget.points_per_run,
        tc=f"depth={budget.depth}",
        games_per_pair=budget.games_per_pair,
        workers=1,
        seed=seed,
    )
    title = f"Connect Four, learning from self-play, {budget_name} budget\n{budget.note}"
    result = run_curve(list(runs), out, settings, progress, title, board)
    rated = time.monotonic()
    measured = measure_final(out, runs, budget.depth, reference, _digest(Path(positions)))
    finished = time.monotonic()
    summary = (
        f"Veness et al. (2009) reproduction on Connect Four, budget {budget_name!r}: "
        f"{budget.note}\n"
        f"training {trained - started:.0f} s, tournament and ratings {rated - trained:.0f} s, "
        f"solved positions {finished - rated:.0f} s (this invocation)\n\n"
        + format_table(result, measured, budget.depth, len(reference))
        + f"{COLUMNS_NOTE}\n{tournament_summary(out)}\n\n"
        + superiority(result)
        + "".join(f"note: {note}\n" for note in [*result.notes, budget.caveat] if note)
    )
    (out / "table.txt").write_text(summary, encoding="utf-8")
    return result
