"""``treestrap reproduce veness2009 --game connect4`` end to end on a tiny budget: all
four rules trained from one start, their checkpoints rated with the untrained start at
250, the table (with the paper's chess column and the solved-position shares) and the
curve; a second invocation that redoes nothing; and bad input, one error line each."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from treestrap.cli import main
from treestrap.games.connect4_model import load_connect4_model
from treestrap.games.connect4_tournament import fixed_depth, weights_player
from treestrap.rating.curve import DISPLAY_NAMES, UNTRAINED
from treestrap.rating.results import load_results
from treestrap.reproduce import veness2009_connect4 as c4
from treestrap.reproduce.veness2009 import ALGORITHMS, PAPER_ELO
from treestrap.training.config import TrainConfig, game_config
from treestrap.training.curve import curve_pool
from treestrap.training.run import train

TINY = c4.Connect4Budget(
    games=3, depth=2, minimax_nodes=60, points_per_run=2, games_per_pair=2, note="test"
)


def run_cli(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


@pytest.fixture
def positions(reference_data, tmp_path: Path) -> Path:
    """A few reference positions (the measurement's code is the same on all 1000)."""
    lines = reference_data("connect4/solved-1000.txt").read_text().splitlines()
    path = tmp_path / "solved-40.txt"
    path.write_text("\n".join(lines[::25]) + "\n")
    return path


def test_reproduce_writes_table_and_curve_then_resumes_without_redoing_work(
    positions: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(c4.BUDGETS, "quick", TINY)
    out = tmp_path / "repro"
    argv = ["reproduce", "veness2009", "--game", "connect4", "--out", str(out)]
    argv += ["--positions", str(positions), "--seed", "2", "--tensorboard", str(tmp_path / "tb")]
    assert run_cli(argv) == 0
    printed = capsys.readouterr().out
    table = (out / "table.txt").read_text()
    assert table in printed
    rows = {line[:24].strip(): line.split() for line in table.splitlines()}
    for algorithm in ALGORITHMS:
        name = DISPLAY_NAMES[algorithm]
        assert name in rows, table
        row = rows[name]  # ..., games, chess paper, best move, keeps result
        assert float(row[-3]) == PAPER_ELO[algorithm]
        measured = json.loads((out / c4.SOLVED).read_text())[algorithm]
        assert row[-2] == f"{100 * measured['best_move']['share']:.1f}%"
        assert measured["best_move"]["total"] == 40
    assert "chess paper" in table and "hand-written evaluation at depth 2" in table
    assert float(rows["Untrained"][1]) == 250
    # every run starts from the same weights, the untrained player of the tournament
    starts = [
        load_connect4_model(out / "train" / a / "checkpoints" / "game-000000.npz").weights
        for a in ALGORITHMS
    ]
    assert all(np.array_equal(s, starts[0]) for s in starts[1:])
    with open(out / "curve.csv", newline="") as fh:
        curve = list(csv.DictReader(fh))
    assert {r["algorithm"] for r in curve} == {UNTRAINED, *ALGORITHMS}
    assert max(int(r["games"]) for r in curve) == TINY.games
    assert (out / "curve.png").stat().st_size > 0
    for algorithm in ALGORITHMS:  # --tensorboard: each run's games and its ratings
        assert list((tmp_path / "tb" / algorithm).glob("*tfevents*"))
        assert list((tmp_path / "tb" / algorithm / "ratings").glob("*tfevents*"))
    games = load_results(out / "tournament")
    assert len(games) == 36 * TINY.games_per_pair  # 9 players, a round robin
    # The same command again: nothing is trained, played or measured anew.
    kept = {p: p.stat().st_mtime_ns for p in [*out.glob("train/*/weights.npz"), out / c4.SOLVED]}

    def no_more(*args: object, **kwargs: object) -> None:
        raise AssertionError("work redone on resume")

    monkeypatch.setattr("treestrap.play.contract_tournament.play_contract_game", no_more)
    monkeypatch.setattr(c4, "position_agreement", no_more)
    assert run_cli(argv) == 0
    assert (out / "table.txt").read_text().split("\n\n", 1)[1] == table.split("\n\n", 1)[1]
    assert {p: p.stat().st_mtime_ns for p in kept} == kept
    assert len(load_results(out / "tournament")) == len(games)
    for a in ALGORITHMS:
        assert len((out / "train" / a / "metrics.jsonl").read_text().splitlines()) == TINY.games


def test_budgets_train_every_rule_alike_at_the_tournament_depth() -> None:
    assert list(c4.BUDGETS) == ["quick", "standard"]
    for budget in c4.BUDGETS.values():
        configs = [c4.training_config(a, budget, 5) for a in ALGORITHMS]
        assert {(c.game, c.init, c.seed, c.depth, c.games) for c in configs} == {
            ("connect4", "random", 5, budget.depth, budget.games)
        }
        assert all(c.step_size is None for c in configs)  # Connect Four's defaults


def test_a_connect4_curve_plays_at_a_fixed_depth() -> None:
    assert fixed_depth("depth=4") == 4
    for tc in ("60+1", "nodes=100", "depth=0", "depth=x"):
        with pytest.raises(ValueError, match="fixed depth"):
            fixed_depth(tc)


def test_a_curve_pool_holds_one_game(tmp_path: Path) -> None:
    def run(name: str, config: TrainConfig) -> Path:
        train(config, tmp_path / name)
        return tmp_path / name

    tiny = {"games": 2, "seed": 4, "depth": 1, "checkpoint_every": 2}
    c4_a = run("a", game_config("connect4", algorithm="treestrap-ab", **tiny))
    c4_b = run("b", game_config("connect4", algorithm="td-leaf", **tiny))
    pool = curve_pool([c4_a, c4_b], 1)
    assert pool.game == "connect4"
    specs = [weights_player(name, str(path), "depth=3") for name, path in pool.weight_files()]
    assert specs == [
        f"{UNTRAINED}={c4_a / 'checkpoints' / 'game-000000.npz'}:depth=3",
        f"treestrap-ab@2={c4_a / 'checkpoints' / 'game-000002.npz'}:depth=3",
        f"td-leaf@2={c4_b / 'checkpoints' / 'game-000002.npz'}:depth=3",
    ]
    chess = run("c", TrainConfig(algorithm="rootstrap-ab", max_plies=8, **tiny))
    with pytest.raises(ValueError, match="different games"):
        curve_pool([c4_a, chess], 1)


BAD = [
    (["--game", "go"], "unknown game 'go'"),
    (["--game", "connect4", "--budget", "paper"], "unknown budget 'paper'"),
    (["--game", "connect4", "--positions", "missing.txt"], "not found"),
    (["--game", "connect4", "--backend", "ray"], "local backend"),
    (["--positions", "x.txt"], "--game connect4"),
]


@pytest.mark.parametrize(("extra", "phrase"), BAD, ids=[p for _, p in BAD])
def test_bad_input_gives_one_error_line(
    extra: list[str], phrase: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = run_cli(["reproduce", "veness2009", *extra, "--out", str(out)])
    printed, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if "error:" in line]
    assert code == 2 and "Traceback" not in printed + err
    assert len(lines) == 1 and lines[0].startswith("error: ") and phrase in lines[0], err
    assert not out.exists()


def test_serban2014_is_chess_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["reproduce", "serban2014", "--game", "connect4"]) == 2
    assert capsys.readouterr().err.strip() == "error: --game connect4: serban2014 is chess only"
