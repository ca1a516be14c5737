"""No result from an incomplete tournament: given-up games stop every caller before a
table is written, our own players' errors stop the run with their traceback saved,
forfeits are counted by reason, and ``--resume`` runs only the players given.

Given-up games are injected with a stand-in runner (``games_run_by``) that stores a
draw for every game but one, so no test trains or searches for long.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import chess
import pytest

from treestrap.cli import main
from treestrap.evaluation.presets import random_model
from treestrap.evaluation.weights import save_weights
from treestrap.play import tournament as tournament_module
from treestrap.play.errors import ERROR_FILE, IncompleteTournament, PlayerFailed
from treestrap.play.forfeits import forfeit_reason, format_forfeits
from treestrap.play.game import GameRecord, GameSetup, play_game
from treestrap.play.gamepool import games_run_by
from treestrap.play.openings import load_openings
from treestrap.play.players import parse_player
from treestrap.play.sessions import InProcessSession
from treestrap.play.timecontrol import TimeControl
from treestrap.play.tournament import TournamentConfig, run_tournament
from treestrap.reproduce import veness2009
from treestrap.reproduce.serban2014.gauntlets import play_gauntlet

ENGINES = Path(__file__).resolve().parent / "engines"


def toy(name: str, *options: str) -> str:
    script = ENGINES / "toy_uci.py"
    line = " ".join(shlex.quote(w) for w in (sys.executable, str(script), *options))
    return f"{name}=uci:{line}"


def drawing_runner(give_up: int) -> Callable[..., list[int]]:
    """A runner that stores a draw for every game but the first ``give_up``, which it
    gives up (as the pool does for games whose workers kept dying)."""

    def run(
        setups: Mapping[int, GameSetup],
        workers: int,
        on_done: Callable[[int, GameRecord], None],
        on_problem: Callable[[str], None],
    ) -> list[int]:
        ids = sorted(setups)
        for game_id in ids[give_up:]:
            s = setups[game_id]
            pgn = f'[White "{s.white.name}"]\n[Black "{s.black.name}"]\n\n1/2-1/2'
            record = GameRecord(
                s.white.name, s.black.name, "1/2-1/2", "adjudicated: draw", s.opening.name, pgn, 0
            )
            on_done(game_id, record)
        return ids[:give_up]

    return run


@pytest.fixture
def giving_up_one() -> Iterator[None]:
    with games_run_by(drawing_runner(1)):
        yield


def fake_runs(root: Path, algorithms: tuple[str, ...]) -> list[Path]:
    """Training run directories of two checkpoints each, the same random start."""
    runs = []
    for i, algorithm in enumerate(algorithms):
        run = root / "train" / algorithm
        (run / "checkpoints").mkdir(parents=True)
        (run / "config.json").write_text(json.dumps({"algorithm": algorithm}))
        save_weights(random_model(seed=1), run / "checkpoints" / "game-000000.npz")
        save_weights(random_model(seed=10 + i), run / "checkpoints" / "game-000001.npz")
        runs.append(run)
    return runs


# --- given-up games ---------------------------------------------------------------


def test_require_complete_names_the_count_and_resume(tmp_path: Path, giving_up_one: None) -> None:
    config = TournamentConfig(["a=random:1", "b=random:2"], games_per_pair=4, tc="depth=1")
    result = run_tournament(config, tmp_path, progress=False)
    assert result.given_up == [0] and len(result.games) == 3 and result.scheduled == 4
    with pytest.raises(IncompleteTournament) as caught:
        result.require_complete()
    message = str(caught.value)
    assert message.startswith("1 of 4 games in ")
    assert f"treestrap tournament --resume {tmp_path} replays them" in message
    assert "\n" not in message


def test_reproduce_veness2009_exits_1_and_writes_no_table(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    giving_up_one: None,
) -> None:
    out = tmp_path / "out"
    runs = fake_runs(out, veness2009.ALGORITHMS)
    monkeypatch.setattr(veness2009, "train_all", lambda *args, **kwargs: runs)
    argv = ["reproduce", "veness2009", "--budget", "quick", "--out", str(out)]
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    # 5 players (the start and one checkpoint each), 10 pairs, 4 games a pair.
    assert err[-1] == (
        f"error: 1 of 40 games in {out / 'tournament'} were given up (worker processes "
        "died or the game failed 3 times): no result is written from an incomplete "
        "tournament; run the same command again (or treestrap tournament --resume "
        f"{out / 'tournament'}) to replay them"
    )
    for name in ("table.txt", "ratings.txt", "curve.csv"):
        assert not (out / name).exists()
    # The same command again replays the given-up game, then writes the table.
    with games_run_by(drawing_runner(0)):
        assert main(argv) == 0
    table = (out / "table.txt").read_text()
    assert "trained  games" in table
    assert "tournament: 40 games; forfeits: 0" in table
    untrained = next(line for line in table.splitlines() if line.startswith("Untrained"))
    assert untrained.split()[3:] == ["0", "16", "250"]  # trained 0; 4 opponents x 4 games


def test_curve_command_exits_1_on_given_up_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], giving_up_one: None
) -> None:
    runs = fake_runs(tmp_path, ("treestrap-ab", "td-leaf"))
    out = tmp_path / "curve"
    argv = ["curve", *map(str, runs), "--out", str(out), "--tc", "depth=1"]
    assert main(argv) == 1
    assert "error: 1 of 6 games in " in capsys.readouterr().err
    assert not (out / "ratings.txt").exists()


def test_serban_gauntlet_raises_before_any_table(tmp_path: Path, giving_up_one: None) -> None:
    config = TournamentConfig(
        ["sl=random:1", "rl@10=random:2", "rl@20=random:3"],
        format="gauntlet",
        games_per_pair=2,
        tc="depth=1",
    )
    with pytest.raises(IncompleteTournament, match=r"1 of 4 games in .*run the same command"):
        play_gauntlet(config, tmp_path / "logreg", progress=False)


def test_tournament_command_exits_1_without_a_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], giving_up_one: None
) -> None:
    out = tmp_path / "run"
    argv = ["tournament", "a=random:1", "b=random:2", "--out", str(out), "--quiet"]
    assert main(argv) == 1
    printed = capsys.readouterr()
    assert "head to head" not in printed.out
    assert printed.err.strip().splitlines()[-1].startswith(f"error: 1 of 2 games in {out}")


# --- our own players raise -----------------------------------------------------------


def test_an_in_process_search_that_raises_is_an_error_not_a_forfeit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def boom(self: InProcessSession, board: chess.Board, clocks: dict) -> None:
        raise RuntimeError("search broke")

    monkeypatch.setattr(InProcessSession, "play", boom)
    white, black = parse_player("hand-set"), parse_player("random:1")
    setup = GameSetup(white, black, load_openings(None)[0], TimeControl(depth=1))
    with pytest.raises(PlayerFailed) as caught:
        play_game(setup)
    assert str(caught.value).startswith("in-process player hand-set raised (hand-set - random-1")
    assert str(caught.value).endswith("RuntimeError: search broke")
    assert "Traceback (most recent call last)" in caught.value.details
    assert 'raise RuntimeError("search broke")' in caught.value.details


def test_a_player_that_raises_stops_the_tournament_with_its_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Weights that cannot be read: the check before the games is skipped, so the
    # player fails in its worker process, as a bug in our engine would.
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a weight file")
    monkeypatch.setattr(tournament_module, "check_player", lambda spec: None)
    out = tmp_path / "run"
    argv = ["tournament", f"bad={broken}", "random:1", "--out", str(out), "--tc", "depth=1"]
    assert main([*argv, "--quiet", "--workers", "1"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: in-process player bad raised (bad - random-1")
    assert err[-1].endswith(f"(the run stopped; traceback in {out / ERROR_FILE})")
    saved = (out / ERROR_FILE).read_text()
    assert "Traceback (most recent call last)" in saved and "broken.npz" in saved
    assert not any("given up" in line for line in err)  # stopped at once, not retried


def test_a_connect4_player_that_raises_stops_the_tournament(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from treestrap.play import contract_tournament

    def boom(*args: object) -> None:
        raise RuntimeError("column trouble")

    monkeypatch.setattr(contract_tournament, "play_contract_game", boom)
    out = tmp_path / "c4"
    argv = ["tournament", "--game", "connect4", "a=random", "b=random", "--out", str(out)]
    assert main([*argv, "--quiet"]) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("error: in-process player raised (game 0: a - b, opening ")
    assert "RuntimeError: column trouble" in err and str(out / ERROR_FILE) in err
    assert "column trouble" in (out / ERROR_FILE).read_text()


def test_a_failing_finisher_gives_the_game_up_instead_of_a_draw(tmp_path: Path) -> None:
    book = tmp_path / "won.epd"
    book.write_text("6k1/8/8/8/8/8/8/QQ4K1 w - -\n")
    players = [toy("r1", "--seed", "1"), toy("r2", "--seed", "2")]
    config = TournamentConfig(
        players,
        openings=str(book),
        max_plies=2,
        tc="depth=1",
        workers=2,
        finish_with=toy("ref", "--crash-after", "0"),
    )
    result = run_tournament(config, tmp_path / "run", progress=False)
    assert result.games == [] and result.given_up == [0, 1]
    with pytest.raises(IncompleteTournament, match=r"^2 of 2 games"):
        result.require_complete()


# --- forfeits by reason --------------------------------------------------------------


def test_forfeits_are_counted_by_reason() -> None:
    terminations = [
        "time forfeit",
        "forfeit: illegal move a1a8 (black, b)",
        "forfeit: engine crashed (white, x)",
        "forfeit: engine crashed (black, x)",
        "forfeit: engine hung for 1.5 s (white, y)",
        "checkmate",
        "adjudicated: draw",
        None,
    ]
    assert format_forfeits(terminations) == "forfeits: 5 (time 1, illegal move 1, crash 2, hung 1)"
    assert format_forfeits(["checkmate"]) == "forfeits: 0"
    assert forfeit_reason("forfeit: engine failed to start: OSError: x (black, b)") == (
        "failed to start"
    )
    assert forfeit_reason("forfeited by the arbiter") is None


def test_the_tournament_summary_prints_the_forfeits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    players = [toy("crasher", "--crash-after", "2"), toy("steady")]
    assert main(["tournament", *players, "--out", str(out), "--tc", "depth=1", "--quiet"]) == 0
    assert "forfeits: 2 (crash 2)" in capsys.readouterr().out.splitlines()


# --- resume checks the players ---------------------------------------------------------


def test_resume_refuses_other_players_and_shows_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    stored = [toy("one", "--seed", "1"), toy("two", "--seed", "2")]
    base = ["tournament", "--tc", "depth=1", "--max-plies", "10", "--quiet"]
    assert main([*base, *stored, "--out", str(out)]) == 0
    capsys.readouterr()
    other = [stored[0], "two=uci:/bin/sh -c 'echo something else'"]
    assert main([*base[:1], "--resume", str(out), *other]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: the players given differ from those stored in {out}")
    assert f"  stored: {' '.join(shlex.quote(p) for p in stored)}\n" in err
    assert f"  given:  {' '.join(shlex.quote(p) for p in other)}\n" in err
    # The stored players themselves are accepted (nothing left to play here).
    assert main([*base[:1], "--resume", str(out), *stored, "--quiet"]) == 0
    assert main([*base[:1], "--resume", str(out), "--quiet"]) == 0
    assert "resuming with the stored players: " in capsys.readouterr().err
