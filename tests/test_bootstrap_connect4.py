"""``treestrap bootstrap --game connect4``: the smoke budget end to end through the
command line, a run killed in its steps resumed to the same files, the Connect Four
position records and their refusal as chess data (and chess's as theirs), and a
learned player that is only ever a search over the run's own weight files."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from treestrap.bootstrap import connect4_selfplay
from treestrap.bootstrap.connect4_budgets import CONNECT4_BUDGETS, Connect4Budget, Connect4SelfPlay
from treestrap.bootstrap.connect4_gate import learned_player
from treestrap.bootstrap.pipeline import (
    ForeignDataError,
    RunOptions,
    bootstrap,
    check_own_data,
    finished_rounds,
    round_dir,
)
from treestrap.cli import main
from treestrap.connect4.board import (
    NOT_TERMINAL,
    parse_moves,
    position_key,
    side_to_move,
    terminal_value,
)
from treestrap.connect4.search import Connect4Search
from treestrap.distill.connect4_fit import POINTS_PER_LOGIT, player_scale
from treestrap.distill.connect4_records import (
    CONNECT4_RECORD,
    CONNECT4_RECORD_NAME,
    mirrored,
    pack_connect4,
    record_position,
)
from treestrap.distill.position_file import (
    RECORD,
    PositionFileError,
    PositionWriter,
    read_header,
    read_records,
    record_count,
)
from treestrap.evaluation.provenance import file_sha256
from treestrap.games.connect4_model import hand_written_connect4_model, load_connect4_model
from treestrap.games.facts import GameFacts
from treestrap.games.registry import register, unregister
from treestrap.play.contract_tournament import load_contract_config
from treestrap.play.sprt_match import SprtWatch
from treestrap.search.value import MATE_BOUND

SMOKE = CONNECT4_BUDGETS["smoke"]
GAME = "connect4"
OPTIONS = RunOptions(progress=False, bench_depth=2)


class Killed(Exception):
    """What the patched steps raise in place of a kill."""


@pytest.fixture(scope="module")
def whole_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Connect Four smoke run, uninterrupted, through the command line."""
    run = tmp_path_factory.mktemp("bootstrap-c4") / "whole"
    args = ["bootstrap", "--game", GAME, "--out", str(run), "--budget", "smoke", "--quiet"]
    assert main(args) == 0
    return run


@pytest.fixture(scope="module")
def hand_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("c4-player") / "hand-set.npz"
    hand_written_connect4_model().save(path)
    return path


def test_the_smoke_budget_runs_every_round_and_reports_them(whole_run: Path) -> None:
    records = finished_rounds(whole_run)
    assert [r["round"] for r in records] == [0, 1, 2]
    assert records[0]["games"] == SMOKE.round0_games and records[0]["accepted"]
    assert json.loads((whole_run / "bootstrap.json").read_text())["game"] == GAME
    for r in records[1:]:
        assert r["games"] == SMOKE.selfplay.games and r["positions"] > 0
        assert np.isfinite(r["held_out_loss"]) and r["nps"] > 0
        assert r["cpu_seconds"] > records[r["round"] - 1]["cpu_seconds"]
        gate = json.loads((round_dir(whole_run, r["round"]) / "gate" / "gate.json").read_text())
        assert gate["games"] <= SMOKE.gate.max_games and gate["accepted"] == r["accepted"]
    for name in ("report.md", "curve.png", "rounds.jsonl"):
        assert (whole_run / name).stat().st_size > 0
    assert "| 2 | linear |" in (whole_run / "report.md").read_text()


def test_a_candidates_provenance_goes_back_to_random_weights_by_self_play(
    whole_run: Path,
) -> None:
    model = load_connect4_model(round_dir(whole_run, 1) / "candidate.npz")
    record = model.metadata["provenance"]
    assert record["tool"] == "treestrap bootstrap" and record["budget"] == "smoke"
    assert record["self_play_only"] and record["games"] == {"self-play": SMOKE.selfplay.games}
    assert "--game connect4" in record["command"]
    data_player = record["parents"][0]
    assert data_player["role"] == "self-play data" and data_player["self_play_only"]
    roots = data_player["provenance"]["parents"]
    assert [p["kind"] for p in roots] == ["random"]


def test_the_run_plays_only_its_own_weight_files(whole_run: Path) -> None:
    """No data file and no gate names a player other than the run's weight files, each
    a search at the budget's depth: never the solver (``perfect``)."""
    own = {
        file_sha256(whole_run / r["player_file"])
        for r in finished_rounds(whole_run)
        if r["accepted"]
    }
    for number in (1, 2):
        folder = round_dir(whole_run, number)
        for chunk in sorted((folder / "data").glob("*.tspos")):
            header = read_header(chunk, CONNECT4_RECORD_NAME)[0]
            assert header["game"] == GAME and header["player_sha256"] in own
            assert header["player"].endswith(".npz")
        players = load_contract_config(folder / "gate").players
        before = [r for r in finished_rounds(whole_run)[:number] if r["accepted"]]
        best = whole_run / before[-1]["player_file"]
        depth = SMOKE.gate.depth
        assert players == [
            f"candidate={folder / 'candidate.npz'}:depth={depth}",
            f"best={best}:depth={depth}",
        ]
        assert not any("perfect" in p for p in players)


def test_the_learned_player_refuses_the_solver_and_presets(hand_set: Path) -> None:
    assert learned_player("best", hand_set, 4) == f"best={hand_set}:depth=4"
    for other in ("perfect", "perfect:p=0.1", "hand-set", "random-weights", "random"):
        with pytest.raises(ValueError):
            learned_player("best", Path(other), 4)
    with pytest.raises(ValueError, match="not found"):
        learned_player("best", hand_set.with_name("missing.npz"), 4)


def test_records_round_trip_and_give_the_position_back(tmp_path: Path) -> None:
    path = tmp_path / "c4.tspos"
    texts = ["", "4453", "112233", "444433", "1122334"]
    packed = [
        pack_connect4(parse_moves(t), 40000.0 - i * 30000, i % 3 - 1, len(t))
        for i, t in enumerate(texts)
    ]
    with PositionWriter(path, {"player": "x.npz"}, CONNECT4_RECORD_NAME) as writer:
        writer.write(np.concatenate(packed))
        with pytest.raises(TypeError):
            writer.write(np.zeros(1, dtype=RECORD))
    records = read_records(path, CONNECT4_RECORD_NAME)
    assert record_count(path, CONNECT4_RECORD_NAME) == len(texts)
    assert list(records["score"]) == [32000, 10000, -20000, -32000, -32000]
    assert list(records["result"]) == [-1, 0, 1, -1, 0]
    for text, record in zip(texts, records, strict=True):
        pos, back = parse_moves(text), record_position(record)
        assert position_key(back) == position_key(pos)
        assert terminal_value(back) == terminal_value(pos)
        assert side_to_move(back) == side_to_move(pos) and record["ply"] == len(text)
    again = mirrored(mirrored(records))
    assert np.array_equal(again, np.array(records))
    # the mirror image of "4453" is "4435": the same discs, columns reversed
    assert position_key(record_position(mirrored(records[1:2])[0])) == position_key(
        parse_moves("4435")
    )


def test_a_chess_file_is_not_connect_four_data_nor_the_other_way(tmp_path: Path) -> None:
    chess_file, c4_file = tmp_path / "chess.tspos", tmp_path / "c4.tspos"
    with PositionWriter(chess_file, {"player": "chess.npz"}) as writer:
        writer.write(np.zeros(2, dtype=RECORD))
    with PositionWriter(c4_file, {"player": "c4.npz"}, CONNECT4_RECORD_NAME) as writer:
        writer.write(np.zeros(2, dtype=CONNECT4_RECORD))
    with pytest.raises(PositionFileError, match="chess-40"):
        read_records(chess_file, CONNECT4_RECORD_NAME)
    with pytest.raises(PositionFileError, match="connect4-20"):
        read_records(c4_file)  # a chess reader's default
    assert read_header(c4_file, None)[0]["game"] == GAME
    with pytest.raises(PositionFileError):
        check_own_data([chess_file], {file_sha256(chess_file)}, CONNECT4_RECORD_NAME)
    with pytest.raises(ForeignDataError, match="not by a player of this run"):
        check_own_data([c4_file], {"0" * 64}, CONNECT4_RECORD_NAME)


def test_self_play_records_carry_the_result_and_end_at_a_proof(hand_set: Path) -> None:
    settings = Connect4SelfPlay(depth=4, games=4, chunk=4, seed=5)
    evaluator = load_connect4_model(hand_set).evaluator()
    for number in (1, 2, 3):
        records, result, plies, nodes = connect4_selfplay.play_game(
            evaluator, Connect4Search(), settings, number
        )
        assert result in ("1-0", "0-1", "1/2-1/2") and nodes > 0
        assert plies in (len(records), len(records) - 1)  # a proven position: no move
        first = {"1-0": 1, "0-1": -1, "1/2-1/2": 0}[result]
        for record in records:
            pos = record_position(record)
            assert terminal_value(pos) == NOT_TERMINAL
            assert record["result"] == (first if side_to_move(pos) == 0 else -first)
        proven = np.abs(records["score"].astype(float)) >= MATE_BOUND
        assert not proven[:-1].any()  # a proof ends the game
        if proven[-1]:
            assert np.sign(records["score"][-1]) == records["result"][-1]


def test_a_players_scale_is_fitted_to_its_results() -> None:
    rng = np.random.default_rng(1)
    scores = rng.uniform(-900, 900, 20000)
    wins = rng.random(20000) < 1 / (1 + np.exp(-scores / 250.0))
    records = np.zeros(20000, dtype=CONNECT4_RECORD)
    records["score"] = np.round(scores)
    records["result"] = np.where(wins, 1, -1)
    assert player_scale(records) == pytest.approx(250.0, rel=0.1)
    assert player_scale(records[:0]) == POINTS_PER_LOGIT


def _kill_on_call(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, call: int) -> None:
    """Make ``owner.name`` raise :class:`Killed` on its ``call``-th call, once."""
    real: Callable[..., Any] = getattr(owner, name)
    calls = {"n": 0}

    def patched(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == call:
            raise Killed(name)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, patched)


def test_a_run_killed_in_its_steps_resumes_to_the_same_files(
    whole_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from treestrap.distill import connect4_fit

    run = tmp_path / "killed"
    command = json.loads((whole_run / "bootstrap.json").read_text())["command"]
    kills = [
        (connect4_selfplay, "play_game", 3),
        (connect4_fit, "_save_checkpoint", 2),
        (SprtWatch, "add", 3),
    ]
    for owner, name, call in kills:
        with monkeypatch.context() as patch:
            _kill_on_call(patch, owner, name, call)
            with pytest.raises(Killed):
                bootstrap(run, SMOKE, 0, command, OPTIONS, GAME)
    assert [r["round"] for r in bootstrap(run, SMOKE, 0, command, OPTIONS, GAME)] == [0, 1, 2]
    for number in (1, 2):
        folder = round_dir(whole_run, number).relative_to(whole_run)
        for chunk in sorted((whole_run / folder / "data").glob("*.tspos")):
            other = run / folder / "data" / chunk.name
            a = read_records(chunk, CONNECT4_RECORD_NAME)
            assert np.array_equal(a, read_records(other, CONNECT4_RECORD_NAME))
        a = load_connect4_model(whole_run / folder / "candidate.npz").weights
        assert np.array_equal(a, load_connect4_model(run / folder / "candidate.npz").weights)
        gates = [
            json.loads((r / folder / "gate" / "gate.json").read_text()) for r in (whole_run, run)
        ]
        keys = ("decision", "wins", "draws", "losses")
        assert [gates[0][k] for k in keys] == [gates[1][k] for k in keys]


def test_a_run_of_one_game_is_not_resumed_as_another(whole_run: Path) -> None:
    args = ["bootstrap", "--out", str(whole_run), "--budget", "smoke", "--quiet"]
    assert main(args) == 2  # chess, the default game


def test_budgets_round_trip_through_the_run_settings() -> None:
    for budget in CONNECT4_BUDGETS.values():
        assert Connect4Budget.from_json(budget.to_json()) == budget


def test_a_game_without_the_pipeline_is_refused_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    register(GameFacts(name="toy-bootstrap", title="Toy", contract="nowhere:NOTHING"))
    try:
        args = ["bootstrap", "--game", "toy-bootstrap", "--out", str(tmp_path / "r"), "--quiet"]
        assert main(args) == 2
    finally:
        unregister("toy-bootstrap")
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: --game toy-bootstrap")
    assert main(["bootstrap", "--game", "nosuch", "--out", str(tmp_path / "r"), "--quiet"]) == 2
    assert not (tmp_path / "r").exists()
