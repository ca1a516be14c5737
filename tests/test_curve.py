"""Learning curves and the one-command reproduction, end to end on tiny budgets:
checkpoints picked on a log axis, one pool with the untrained anchor, ratings, the
plot, and a second invocation that resumes instead of replaying."""

from __future__ import annotations

import argparse
import csv
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from treestrap.commands.curve import add_parser as add_curve_parser
from treestrap.evaluation.weight_files import load_weights
from treestrap.rating.curve import DISPLAY_NAMES, UNTRAINED
from treestrap.rating.results import load_results
from treestrap.reproduce.veness2009 import (
    ALGORITHMS,
    BUDGETS,
    SLOWEST,
    Budget,
    reproduce,
    training_config,
)
from treestrap.training.config import TrainConfig, apply_preset
from treestrap.training.curve import (
    Checkpoint,
    CurveSettings,
    curve_pool,
    pick_points,
    run_curve,
)
from treestrap.training.run import train
from treestrap.training.tensorboard_log import last_game_logged

TINY = Budget(
    games=3,
    depth=1,
    clock=None,
    increment=0.0,
    minimax_nodes=40,
    minimax_qnodes=4,
    max_plies=16,
    points_per_run=2,
    tournament_tc="depth=1",
    games_per_pair=2,
    note="test",
)


def rating_scalars(folder: Path) -> list[tuple[int, float]]:
    board = EventAccumulator(str(folder))
    board.Reload()
    return [(s.step, s.value) for s in board.Scalars("rating/elo")]


def points(*games: int) -> list[Checkpoint]:
    return [Checkpoint("x", g, Path(f"game-{g:06d}.npz")) for g in games]


def test_pick_points_spreads_on_a_log_axis_and_keeps_the_last() -> None:
    available = points(0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 1234)
    chosen = [c.games for c in pick_points(available, 4)]
    assert chosen == [1, 10, 100, 1234]
    assert [c.games for c in pick_points(available, 1)] == [1234]
    assert [c.games for c in pick_points(points(0, 1, 2), 5)] == [1, 2]
    assert pick_points(points(0), 3) == []


def tiny_run(run: Path, algorithm: str, seed: int = 7) -> Path:
    config = TrainConfig(
        algorithm=algorithm,
        games=3,
        seed=seed,
        depth=1,
        max_plies=16,
        minimax_nodes=40,
        minimax_qnodes=4,
        checkpoint_every=3,
    )
    train(config, run)
    return run


def test_pool_needs_a_common_start(tmp_path: Path) -> None:
    a = tiny_run(tmp_path / "a", "treestrap-ab")
    b = tiny_run(tmp_path / "b", "rootstrap-ab")
    pool = curve_pool([a, b], 2)
    names = [spec.split("=")[0] for spec in pool.player_specs()]
    assert names == [
        UNTRAINED,
        "treestrap-ab@1",
        "treestrap-ab@3",
        "rootstrap-ab@1",
        "rootstrap-ab@3",
    ]
    # Another seed means another random start: no common anchor.
    c = tiny_run(tmp_path / "c", "td-leaf", seed=8)
    with pytest.raises(ValueError, match="different weights"):
        curve_pool([a, c], 2)
    with pytest.raises(ValueError, match="not a training run"):
        curve_pool([tmp_path], 2)


def test_curve_rates_the_pool_with_the_untrained_anchor(tmp_path: Path) -> None:
    a = tiny_run(tmp_path / "a", "treestrap-ab")
    b = tiny_run(tmp_path / "b", "rootstrap-ab")
    out = tmp_path / "curve"
    settings = CurveSettings(points_per_run=2, tc="depth=1", workers=1, max_plies=300)
    board = tmp_path / "tb"
    result = run_curve([a, b], out, settings, progress=False, tensorboard=board)
    # 5 players in a round robin, 2 games a pair.
    assert len(load_results(out / "tournament")) == 20
    assert result.table.rating(UNTRAINED).elo == pytest.approx(250.0)
    assert {(p.label, p.games) for p in result.points} == {
        ("treestrap-ab", 1),
        ("treestrap-ab", 3),
        ("rootstrap-ab", 1),
        ("rootstrap-ab", 3),
    }
    for p in result.points:
        assert p.lower <= p.elo <= p.upper
    with open(out / "curve.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 5 and rows[0]["algorithm"] == UNTRAINED
    # The CPU-time axis: each point carries its run's CPU seconds up to that checkpoint,
    # the sum of the per-game figures in metrics.jsonl.
    for p in result.points:
        run = a if p.label == "treestrap-ab" else b
        lines = (run / "metrics.jsonl").read_text().splitlines()
        per_game = [json.loads(line)["cpu_seconds"] for line in lines]
        assert p.cpu_seconds == pytest.approx(sum(per_game[: p.games]), abs=1e-6)
        assert p.cpu_seconds > 0
    assert {float(r["cpu_seconds"]) for r in rows[1:]} == {
        round(p.cpu_seconds, 1) for p in result.points
    }
    assert (out / "curve.png").stat().st_size > 10_000
    assert "TreeStrap(alpha-beta)" in result.format_summary()
    # TensorBoard: each run's ratings at step = games, the untrained anchor at 0.
    for label in ("treestrap-ab", "rootstrap-ab"):
        logged = rating_scalars(board / label / "ratings")
        expected = [(0, 250.0)] + [(p.games, p.elo) for p in result.points if p.label == label]
        assert [step for step, _ in logged] == [step for step, _ in expected]
        assert [elo for _, elo in logged] == pytest.approx([elo for _, elo in expected])
    # Again: the finished tournament is resumed, not replayed.
    run_curve([a, b], out, settings, progress=False)
    assert len(load_results(out / "tournament")) == 20
    # Other settings (or checkpoints) are another tournament: refused, not mixed in.
    with pytest.raises(ValueError, match="other checkpoints or settings"):
        run_curve([a, b], out, CurveSettings(points_per_run=1, tc="depth=1"), progress=False)


def test_curve_command_reports_bad_runs(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    parser = argparse.ArgumentParser()
    add_curve_parser(parser.add_subparsers())
    args = parser.parse_args(["curve", str(tmp_path / "missing"), "--out", str(tmp_path / "o")])
    assert args.func(args) == 2
    assert "error:" in capsys.readouterr().err


def test_reproduce_trains_every_algorithm_from_one_start_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "repro"
    board = tmp_path / "tb"
    result = reproduce(out, TINY, seed=3, workers=2, progress=False, tensorboard=board)
    starts = [
        load_weights(out / "train" / a / "checkpoints" / "game-000000.npz") for a in ALGORITHMS
    ]
    for start in starts[1:]:
        assert np.array_equal(start.weights, starts[0].weights)
    for a in ALGORITHMS:
        assert load_weights(out / "train" / a / "weights.npz").metadata["games"] == TINY.games
        # One TensorBoard run per algorithm: its games, and its checkpoints' ratings.
        assert last_game_logged(board / a) == TINY.games
        best = result.best()[a]
        logged = dict(rating_scalars(board / a / "ratings"))
        assert logged[best.games] == pytest.approx(best.elo, abs=1e-3)
    assert set(result.best()) == set(ALGORITHMS)
    table = (out / "table.txt").read_text()
    for name in ("TreeStrap(alpha-beta)", "TreeStrap(minimax)", "RootStrap(alpha-beta)", "TD-Leaf"):
        assert name in table
    assert "2157" in table  # the paper's column
    # TreeStrap(alpha-beta)'s likelihood of superiority over each other algorithm's best
    for name in ("TreeStrap(minimax)", "RootStrap(alpha-beta)", "TD-Leaf"):
        line = next(
            x for x in table.splitlines() if x.startswith(f"LOS TreeStrap(alpha-beta) over {name}:")
        )
        los = float(line.rsplit(" ", 1)[1].rstrip("%"))
        best = result.best()
        leader = f"treestrap-ab@{best['treestrap-ab'].games}"
        other = next(f"{k}@{p.games}" for k, p in best.items() if DISPLAY_NAMES[k] == name)
        assert los == pytest.approx(100 * result.table.los(leader, other), abs=0.05)
    games = len(load_results(out / "tournament"))
    # Interrupted after training (the tournament lost): the rerun trains nothing more
    # and plays the tournament again from scratch.
    shutil.rmtree(out / "tournament")
    reproduce(out, TINY, seed=3, workers=2, progress=False)
    assert len(load_results(out / "tournament")) == games
    for a in ALGORITHMS:
        assert len((out / "train" / a / "metrics.jsonl").read_text().splitlines()) == TINY.games


def test_quick_budget_says_its_intervals_overlap_by_design() -> None:
    assert "overlap by design" in BUDGETS["quick"].caveat
    assert BUDGETS["standard"].caveat == ""


def test_budgets_are_what_the_help_says() -> None:
    assert BUDGETS["quick"].games == 250 and BUDGETS["quick"].depth == 3
    assert BUDGETS["paper"].clock == 60.0 and BUDGETS["paper"].increment == 1.0
    assert BUDGETS["standard"].games == 300 and BUDGETS["standard"].depth == 3
    assert SLOWEST in ALGORITHMS  # trained first, so a renamed rule cannot lose its place


def test_standard_budget_scales_only_the_treestrap_steps() -> None:
    # TreeStrap sums over its tree, so its steps grow with the smaller depth-3 trees;
    # the root-only rules keep the paper's (None: the algorithm's default).
    steps = {a: training_config(a, BUDGETS["standard"], 1).step_size for a in ALGORITHMS}
    assert steps == {
        "td-leaf": None,
        "rootstrap-ab": None,
        "treestrap-mm": 4e-5,
        "treestrap-ab": 2e-4,
    }
    assert all(training_config(a, BUDGETS["paper"], 1).step_size is None for a in ALGORITHMS)


def test_quick_and_standard_budgets_train_treestrap_ab_as_the_strong_preset() -> None:
    strong = apply_preset(TrainConfig(), "strong")
    fields = ("step_size", "step_decay", "node_value", "target_clip", "freeze", "optimizer")
    for name in ("quick", "standard"):
        ab = training_config("treestrap-ab", BUDGETS[name], 1)
        assert [getattr(ab, f) for f in fields] == [getattr(strong, f) for f in fields]
        assert ab.depth == 3 and ab.init == "random"
        for other in ("td-leaf", "rootstrap-ab", "treestrap-mm"):
            config = training_config(other, BUDGETS[name], 1)
            assert config.node_value == "static" and config.freeze == ["tempo"]
    # The paper's budget keeps the paper's TreeStrap: static values, unclipped.
    paper = training_config("treestrap-ab", BUDGETS["paper"], 1)
    assert paper.node_value == "static" and paper.target_clip == 9900.0
