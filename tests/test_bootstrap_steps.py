"""The bootstrap pipeline's steps one by one: self-play data, its filters and its
resumption, the gate's decision, the refusal of foreign data."""

from __future__ import annotations

from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

from treestrap.bootstrap.chunks import chunk_path
from treestrap.bootstrap.gate import BEST, CANDIDATE, decide, stored_games_cpu_seconds
from treestrap.bootstrap.pipeline import ForeignDataError, check_own_data
from treestrap.bootstrap.selfplay import FIRST_RECORDED_PLY, SelfPlaySettings, play_chunk, play_game
from treestrap.distill.position_file import read_header, read_records, to_fen
from treestrap.engine.engine import Engine
from treestrap.evaluation.presets import preset_model
from treestrap.evaluation.provenance import file_sha256
from treestrap.play.game import thinking_seconds
from treestrap.play.openings import built_in_book
from treestrap.play.results_db import ResultsDB, StoredGame
from treestrap.play.sprt_match import SprtWatch
from treestrap.rating.gsprt import parse_gsprt

SETTINGS = SelfPlaySettings(nodes=400, games=4, chunk=2, max_plies=120, seed=3)


@pytest.fixture(scope="module")
def player(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("player") / "learned.npz"
    preset_model("learned").save(path)
    return path


def test_game_records_are_quiet_and_carry_the_result(player: Path) -> None:
    from treestrap.evaluation.weight_files import load_weights

    engine = Engine(load_weights(player).evaluator())
    for number in (1, 2):
        records, result, plies, nodes = play_game(engine, SETTINGS, number, built_in_book())
        assert result in ("1-0", "0-1", "1/2-1/2") and plies > 0 and nodes > 0
        white = {"1-0": 1, "0-1": -1, "1/2-1/2": 0}[result]
        for record in records:
            board = chess.Board(to_fen(record))
            assert not board.is_check()
            assert record["ply"] >= FIRST_RECORDED_PLY
            expected = white if board.turn == chess.WHITE else -white
            assert record["result"] == expected


def test_a_chunk_killed_midway_is_played_again_to_the_same_file(
    player: Path, tmp_path: Path
) -> None:
    whole = tmp_path / "whole"
    whole.mkdir()
    first = play_chunk(player, SETTINGS, whole, 0)
    assert first.games == 2 and first.positions == len(read_records(chunk_path(whole, 0)))
    header, _ = read_header(chunk_path(whole, 0))
    assert header["player_sha256"] == file_sha256(player) and header["games"] == [1, 2]

    killed = tmp_path / "killed"
    killed.mkdir()
    # what a kill leaves: a partial temporary file and no chunk
    (killed / (chunk_path(killed, 0).name + ".999.tmp")).write_bytes(b"TSPOS01\npartial")
    again = play_chunk(player, SETTINGS, killed, 0)
    assert chunk_path(killed, 0).read_bytes() == chunk_path(whole, 0).read_bytes()
    assert again.positions == first.positions
    # a chunk on disk is read back, not played again
    assert play_chunk(player, SETTINGS, killed, 0) == again


def test_foreign_data_is_refused(player: Path, tmp_path: Path) -> None:
    play_chunk(player, SETTINGS, tmp_path, 0)
    files = [chunk_path(tmp_path, 0)]
    check_own_data(files, {file_sha256(player)})
    with pytest.raises(ForeignDataError, match="not by a player of this run"):
        check_own_data(files, {"0" * 64})


def _watched(pair_scores: list[float], sprt: str = "elo0=0,elo1=10") -> tuple[list, SprtWatch]:
    """Games of pairs with these candidate points (0, 0.5, 1, 1.5 or 2 a pair)."""
    rounds: list[str] = []
    played: list[tuple[str, str, str]] = []
    for i, points in enumerate(pair_scores):
        first = 1.0 if points >= 1.5 else 0.5 if points >= 1.0 else 0.0
        first = min(first, points)
        second = points - first
        for white_first, got in ((True, first), (False, second)):
            result = {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}[got]
            if not white_first:  # the candidate plays black: the result flips
                result = {"1-0": "0-1", "0-1": "1-0"}.get(result, result)
            white, black = (CANDIDATE, BEST) if white_first else (BEST, CANDIDATE)
            played.append((white, black, result))
            rounds.append(str(i))
    watch = SprtWatch(parse_gsprt(sprt), CANDIDATE, rounds)
    for game_id, (white, _black, result) in enumerate(played):
        watch.add(game_id, white, result)
    return played, watch


def test_the_gate_accepts_a_clearly_stronger_candidate() -> None:
    played, watch = _watched([2.0, 1.5, 1.0, 1.5, 0.5] * 40)
    gate = decide(played, watch)
    assert gate.accepted and gate.decision == "H1"
    assert gate.wins > gate.losses and gate.elo > 0 and gate.lower > 0


def test_the_gate_rejects_a_weaker_or_undecided_candidate() -> None:
    played, watch = _watched([0.0, 0.5, 1.0, 0.5, 1.5] * 40)
    gate = decide(played, watch)
    assert not gate.accepted and gate.decision == "H0" and gate.elo < 0
    played, watch = _watched([1.0, 1.5])
    undecided = decide(played, watch)
    assert not undecided.accepted and undecided.decision == "continue"
    assert "undecided" in undecided.summary


def _noted_game(notes: list[str]) -> str:
    """A game's PGN whose moves carry ``notes`` as the runner writes them."""
    game = chess.pgn.Game()
    node = game
    for move, note in zip(["e4", "e5", "Nf3", "Nc6"], notes, strict=False):
        node = node.add_variation(node.board().parse_san(move), comment=note)
    return str(game)


def test_thinking_time_is_read_from_the_move_notes() -> None:
    pgn = _noted_game(["+0.34 0.20s", "-mate 1.50s", "0.30s", "-0.12 0.05s"])
    assert thinking_seconds(pgn) == pytest.approx(2.05)
    assert thinking_seconds(_noted_game([])) == 0.0


def test_a_stopped_gate_counts_its_stored_games_by_their_thinking_time(tmp_path: Path) -> None:
    """The games a stopped gate left cost the CPU time of their engines' thinking,
    which the resumed gate's own process never measures."""
    with ResultsDB.create(tmp_path, "{}") as db:
        for i, notes in enumerate([["+0.10 1.25s", "-0.10 0.75s"], ["2.50s"]]):
            pgn = _noted_game(notes)
            db.add_game(StoredGame(i, 1, CANDIDATE, BEST, "", "1-0", "", 2, pgn, ""))
    assert stored_games_cpu_seconds(tmp_path) == pytest.approx(4.5)


def test_budgets_round_trip_through_the_run_settings() -> None:
    from treestrap.bootstrap.budgets import BUDGETS, Budget, FitPlan

    for budget in BUDGETS.values():
        assert Budget.from_json(budget.to_json()) == budget
    assert np.isfinite(BUDGETS["smoke"].fit.lr)
    stored = BUDGETS["smoke"].to_json()
    del stored["fit"]["lr"]  # a setting a run's file lacks takes its default
    assert Budget.from_json(stored).fit.lr == FitPlan().lr
    stored["gate"]["tc_typo"] = "1+0"
    with pytest.raises(ValueError, match="GatePlan: unknown settings tc_typo"):
        Budget.from_json(stored)


def test_two_actors_write_the_chunks_one_process_writes(player: Path, tmp_path: Path) -> None:
    from treestrap.bootstrap.actors import play_round

    one = play_round(player, SETTINGS, tmp_path / "one", actors=1, progress=False)
    two = play_round(player, SETTINGS, tmp_path / "two", actors=2, progress=False)
    assert [s.positions for s in one] == [s.positions for s in two]
    for index in range(SETTINGS.chunks()):
        a = read_records(chunk_path(tmp_path / "one", index))
        b = read_records(chunk_path(tmp_path / "two", index))
        assert np.array_equal(a, b)
