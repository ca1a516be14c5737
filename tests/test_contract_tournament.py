"""A tournament of in-process players for a game that only a test registers
(``play/contract_tournament.py``): the game's ``TournamentPlay`` gives the players,
openings and record, and nothing of ``play/`` or ``commands/`` names the game."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import NamedTuple

import pytest

from treestrap.bootstrap.connect4_gate import stored_games_cpu_seconds
from treestrap.cli import main
from treestrap.games.connect4_game import CONNECT4_GAME
from treestrap.games.contract import MovePlayer, TournamentPlay
from treestrap.games.facts import GameFacts
from treestrap.games.move_pgn import move_pgn, recorded_cpu_seconds
from treestrap.games.registry import register, unregister
from treestrap.play.contract_game import RandomMovePlayer
from treestrap.play.contract_tournament import (
    ContractTournamentConfig,
    load_contract_config,
    run_contract_tournament,
    tournament_play,
)
from treestrap.play.errors import ERROR_FILE, PlayerFailed
from treestrap.play.results_db import ResultsDB
from treestrap.play.tournament_store import stored_game_kind

TOY = "toy-columns"


class _Crashing(RandomMovePlayer):
    def choose(self, pos: object) -> int:
        raise RuntimeError("no move today")


class _Busy(RandomMovePlayer):
    """Spends 10 ms of CPU time on each choice."""

    def choose(self, pos: object) -> int:
        end = time.process_time() + 0.01
        while time.process_time() < end:
            pass
        return super().choose(pos)


class _Spec(NamedTuple):
    name: str


def _parse(texts: list[str]) -> list[_Spec]:
    if len(set(texts)) < len(texts):
        raise ValueError("a player name is given twice")
    return [_Spec(text) for text in texts]


def _make(specs: list[_Spec]) -> list[MovePlayer]:
    def kind(name: str) -> type[RandomMovePlayer]:
        if name.startswith("crash"):
            return _Crashing
        return _Busy if name.startswith("busy") else RandomMovePlayer

    return [kind(s.name)(CONNECT4_GAME, s.name) for s in specs]


def _openings(count: int, plies: int, seed: int) -> list[list[int]]:
    return [[(seed + i + k) % 7 for k in range(plies)] for i in range(count)]


def _weights(name: str, path: str, tc: str) -> str:
    raise ValueError("no weight files")


@pytest.fixture
def toy() -> Iterator[str]:
    """Connect Four's kernels under another name, with a tournament of its own."""
    play = TournamentPlay(_parse, _make, _openings, partial(move_pgn, "Toy"), _weights)
    game = dataclasses.replace(CONNECT4_GAME, name=TOY, tournament_play=play)
    register(GameFacts(name=TOY, title="Toy", contract="unused:UNUSED"), game)
    yield TOY
    unregister(TOY)


def test_a_registered_game_plays_resumes_and_rates(
    toy: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = ContractTournamentConfig.of(toy, ["a", "b", "c"], 3, games_per_pair=4, seed=2)
    run = tmp_path / "run"
    result = run_contract_tournament(config, run, progress=False)
    assert len(result.games) == result.scheduled == 12 and result.players == ["a", "b", "c"]
    assert stored_game_kind(run) == toy and load_contract_config(run) == config
    stored = json.loads(ResultsDB.open(run).config_json())
    assert stored["event"] == f"treestrap {toy} tournament" and stored["opening_plies"] == 3
    first = result.games[0]
    assert (first.white, first.black, first.opening, first.round) == ("a", "b", "345", 1)
    assert '[Variant "Toy"]' in first.pgn and first.pgn.split("\n\n")[1].startswith("3 4 5 ")
    with ResultsDB.open(run) as db, db.conn:
        db.conn.execute("DELETE FROM games WHERE id = 11")
    again = run_contract_tournament(config, run, resume=True, progress=False)
    assert [g.pgn.split("\n\n")[1] for g in again.games] == [
        g.pgn.split("\n\n")[1] for g in result.games
    ]
    assert (run / "games.pgn").read_text(encoding="utf-8").count("[Event ") == 12
    assert main(["rate", "--game", toy, str(run)]) == 0
    assert "a" in capsys.readouterr().out


def test_each_game_keeps_its_players_cpu_time_for_a_gate_that_goes_on(
    toy: str, tmp_path: Path
) -> None:
    config = ContractTournamentConfig.of(toy, ["busy", "quick"], 0, games_per_pair=2)
    result = run_contract_tournament(config, tmp_path, progress=False)
    seconds = [recorded_cpu_seconds(game.pgn) for game in result.games]
    busy_moves = [game.plies // 2 for game in result.games]  # at least this many each
    assert all(s >= 0.01 * moves for s, moves in zip(seconds, busy_moves, strict=True))
    assert stored_games_cpu_seconds(tmp_path) == pytest.approx(sum(seconds), abs=0.002)


def test_the_command_line_takes_the_game_and_refuses_engine_options(
    toy: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cli"
    assert main(["tournament", "--game", toy, "x", "y", "--out", str(out), "--quiet"]) == 0
    assert "2 games in" in capsys.readouterr().out
    assert main(["tournament", "--resume", str(out), "--quiet"]) == 0
    argv = ["tournament", "--game", toy, "x", "y", "--tc", "depth=2"]
    assert main([*argv, "--out", str(tmp_path / "no")]) == 2
    assert "--tc is for engine tournaments" in capsys.readouterr().err


def test_a_player_that_raises_stops_the_tournament(toy: str, tmp_path: Path) -> None:
    config = ContractTournamentConfig.of(toy, ["a", "crash"], 2)
    with pytest.raises(PlayerFailed, match="in-process player raised") as caught:
        run_contract_tournament(config, tmp_path / "run", progress=False)
    assert "no move today" in str(caught.value)
    assert "no move today" in (tmp_path / "run" / ERROR_FILE).read_text()


def test_zero_opening_plies_is_kept_and_none_is_the_games_default() -> None:
    assert ContractTournamentConfig.of("connect4", ["random", "random"], 0).opening_plies == 0
    default = ContractTournamentConfig.of("connect4", ["random", "random"]).opening_plies
    assert default == tournament_play("connect4").opening_plies > 0


def test_a_match_under_an_sprt_stops_when_it_decides_and_resumes_decided(tmp_path: Path) -> None:
    players = ["strong=hand-set:depth=2", "random"]
    config = ContractTournamentConfig.of(
        "connect4", players, games_per_pair=200, sprt="elo0=0,elo1=100"
    )
    run = tmp_path / "match"
    result = run_contract_tournament(config, run, progress=False)
    assert result.sprt is not None and result.sprt.result.decision == "H1"
    assert len(result.games) < result.scheduled == 200
    assert json.loads(ResultsDB.open(run).config_json())["sprt"] == "elo0=0,elo1=100"
    again = run_contract_tournament(config, run, resume=True, progress=False)
    assert len(again.games) == len(result.games) and again.sprt is not None
    assert again.sprt.pairs == result.sprt.pairs and again.sprt.decided
    plain = json.loads(ContractTournamentConfig.of("connect4", players).to_json())
    assert "sprt" not in plain  # configs without a test are stored as before
    with pytest.raises(ValueError, match="one player against one other"):
        ContractTournamentConfig.of("connect4", [*players, "perfect"], sprt="elo0=0,elo1=5").check(
            tournament_play("connect4")
        )
