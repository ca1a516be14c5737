"""Time odds: one player of a tournament under its own clock (``--player-tc``)."""

from __future__ import annotations

import argparse
from pathlib import Path

import chess
import pytest
from test_tournament import pgn_games, quick, toy

from treestrap.commands.tournament import add_parser
from treestrap.play import game as game_module
from treestrap.play.game import GameSetup, play_game
from treestrap.play.openings import load_openings
from treestrap.play.players import UCI, PlayerSpec
from treestrap.play.sessions import Reply, increments
from treestrap.play.timecontrol import TimeControl
from treestrap.play.tournament import TournamentConfig, plan_tournament, run_tournament


def run_command(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers())
    args = parser.parse_args(["tournament", *argv])
    return int(args.func(args))


def test_each_side_is_told_its_own_increment() -> None:
    board = chess.Board()
    own, other = TimeControl(base=10, increment=0.1), TimeControl(base=20, increment=0.2)
    assert increments(board, own, other) == {chess.WHITE: 0.1, chess.BLACK: 0.2}
    board.push_san("e4")
    assert increments(board, own, other) == {chess.BLACK: 0.1, chess.WHITE: 0.2}


def test_sessions_start_under_their_own_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    opened: dict[str, tuple[TimeControl, TimeControl | None]] = {}
    first_clocks: list[dict[chess.Color, float]] = []

    class FirstLegal:
        def __init__(self, name: str) -> None:
            self.name = name

        def play(self, board: chess.Board, clocks: dict[chess.Color, float]) -> Reply:
            first_clocks.append(dict(clocks))
            return Reply(min(board.legal_moves, key=lambda m: m.uci()), 0.0)

        def kill(self) -> None:
            pass

        def close(self) -> None:
            pass

    def fake_open(
        spec: PlayerSpec, tc: TimeControl, slot: int = 0, other_tc: TimeControl | None = None
    ) -> FirstLegal:
        opened[spec.name] = (tc, other_tc)
        return FirstLegal(spec.name)

    monkeypatch.setattr(game_module, "open_session", fake_open)
    base, odds = TimeControl(base=1, increment=0.01), TimeControl(base=30, increment=0.3)
    setup = GameSetup(
        PlayerSpec("w", UCI),
        PlayerSpec("b", UCI),
        load_openings(None)[0],
        base,
        player_tcs={"b": odds},
    )
    record = play_game(setup)
    assert opened == {"w": (base, odds), "b": (odds, base)}
    assert first_clocks[0] == {chess.WHITE: 1.0, chess.BLACK: 30.0}
    assert '[WhiteTimeControl "1+0.01"]' in record.pgn
    assert '[BlackTimeControl "30+0.3"]' in record.pgn


def test_odds_keep_a_slow_engine_on_the_board(tmp_path: Path) -> None:
    # At 1+0 this engine loses every game on time (test_tournament); with 30 seconds
    # of its own it plays each one to the end.
    players = [toy("slow", "--delay", "0.3"), toy("quick")]
    config = quick(players, tc="1+0", max_plies=16, player_tcs={"slow": "30+0"})
    result = run_tournament(config, tmp_path, progress=False)
    assert len(result.games) == 2
    assert all(g.termination != "time forfeit" for g in result.games)
    for game in pgn_games(result.pgn_path):
        slow_colour = "White" if game.headers["White"] == "slow" else "Black"
        assert game.headers[f"{slow_colour}TimeControl"] == "30+0"
        assert game.headers["TimeControl"] == "1+0"


def test_odds_are_checked_and_stored() -> None:
    config = TournamentConfig(["hand-set", "random"], tc="10+0.1", player_tcs={"hand-set": "20"})
    back = TournamentConfig.from_json(config.to_json())
    assert back.player_tcs == {"hand-set": "20.0+0.0"}
    plan = plan_tournament(back)
    assert {g.tc_of(chess.WHITE).base for g in plan.games} == {10.0, 20.0}
    with pytest.raises(ValueError, match="no such player"):
        plan_tournament(TournamentConfig(["hand-set", "random"], player_tcs={"zero": "depth=2"}))
    with pytest.raises(ValueError, match="not of the kind"):
        TournamentConfig(["hand-set", "random"], tc="depth=1", player_tcs={"random": "1"}).check()


@pytest.mark.parametrize(
    "extra", [["--player-tc", "hand-set"], ["--player-tc", "hand-set=soon"], ["--player-tc", "=5"]]
)
def test_bad_odds_on_the_command_line_exit_2(extra: list[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exit_info:
        run_command(["hand-set", "random", "--out", str(tmp_path / "x"), *extra])
    assert exit_info.value.code == 2


def test_resume_refuses_new_odds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--resume", str(tmp_path), "--player-tc", "hand-set=20"]
    assert run_command(argv) == 2
    assert "--player-tc" in capsys.readouterr().err
