"""Ratings rest on whole tournaments: ``treestrap rate`` and
``benchmarks/network_budget_curve.py`` refuse a stored tournament whose schedule has
games left to play (a stopped or running one), unless ``--partial``, and then say first
what the numbers rest on; a match its SPRT decided is complete, a PGN file of its own
has no schedule. The stores are written directly: nothing plays.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from treestrap.cli import main
from treestrap.play.results_db import ResultsDB, StoredGame, now
from treestrap.play.tournament import TournamentConfig
from treestrap.play.tournament_store import PGN_NAME, stored_schedule, write_pgn
from treestrap.rating.results import DB_NAME

REPO = Path(__file__).resolve().parents[1]


def _store(run_dir: Path, results: list[str], games_per_pair: int = 4, sprt: str = "") -> None:
    """A two-player tournament stored with the first ``len(results)`` games of its
    schedule (``a`` is white in the even ids), as a stopped run leaves it."""
    players = ["a=random:1", "b=random:2"]
    config = TournamentConfig(players, games_per_pair=games_per_pair, sprt=sprt or None)
    games = []
    for i, result in enumerate(results):
        white, black = ("a", "b") if i % 2 == 0 else ("b", "a")
        pgn = f'[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n\n{result}'
        games.append(StoredGame(i, i // 2 + 1, white, black, "o", result, "t", 0, pgn, now()))
    with ResultsDB.create(run_dir, config.to_json()) as db:
        for game in games:
            db.add_game(game)
    write_pgn(run_dir / PGN_NAME, games)


def test_rate_refuses_a_store_with_games_left_unless_partial(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    _store(run, ["1-0", "1/2-1/2", "0-1"])
    for source in (run, run / DB_NAME, run / PGN_NAME):
        assert main(["rate", str(source)]) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [
            f"error: {run} holds 3 of the 4 games of its schedule: no rating from an "
            f"incomplete tournament; finish it with treestrap tournament --resume {run} "
            "(or the command that began it, run again), or rate the games played with "
            "--partial"
        ]
    assert main(["rate", str(run), "--partial"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"rests on 3 of 4 games (incomplete: {run}: 3 of 4 played)"
    argv = ["rate", str(run), "--partial", "--sprt", "0,10", "--player", "a", "--opponent", "b"]
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith("rests on 3 of 4 games")


def test_a_complete_store_or_one_its_sprt_decided_is_rated_as_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = tmp_path / "whole"
    _store(whole, ["1-0", "1/2-1/2", "0-1", "1-0"])
    assert main(["rate", str(whole)]) == 0
    assert not capsys.readouterr().out.startswith("rests on")
    # a wins both pairs: the SPRT accepted H1 after 4 of 10 games, and the match stopped.
    decided = tmp_path / "decided"
    _store(decided, ["1-0", "0-1"] * 2, 10, "elo0=0,elo1=800,alpha=0.3,beta=0.3")
    schedule = stored_schedule(decided)
    assert schedule is not None and schedule.decided and schedule.complete
    assert main(["rate", str(decided)]) == 0
    undecided = tmp_path / "undecided"
    _store(undecided, ["1-0", "0-1"], 10, "elo0=0,elo1=800,alpha=0.3,beta=0.3")
    assert main(["rate", str(undecided)]) == 1
    assert "holds 2 of the 10 games" in capsys.readouterr().err
    # A PGN file of its own has no schedule: rated as before.
    pgn = tmp_path / "loose.pgn"
    pgn.write_text((whole / PGN_NAME).read_text())
    assert main(["rate", str(pgn)]) == 0


def _budget_curve(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    path = REPO / "benchmarks" / "network_budget_curve.py"
    spec = importlib.util.spec_from_file_location("network_budget_curve", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # its dataclass looks itself up
    spec.loader.exec_module(module)
    return module


def test_the_budget_curve_refuses_a_match_with_games_left_unless_partial(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    run = tmp_path / "m1"
    _store(run, ["1-0", "1/2-1/2", "0-1"])
    curve = _budget_curve(monkeypatch)
    argv = [f"a:1.5:{run}", "--reference", "b"]
    assert curve.main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {run} holds 3 of the 4 games of its schedule")
    assert curve.main([*argv, "--partial"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"rests on 3 of 4 games (incomplete: {run}: 3 of 4 played)"
    assert out[1].startswith("| candidate |")
