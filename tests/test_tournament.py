"""Tournaments: schedule, storage and resume, forfeits, adjudication, the command.

Most games are between the toy engines of ``tests/engines`` (real UCI / xboard
programs that play random legal moves and crash, hang or kill their worker on cue);
a few are between in-process weight sets.
"""

from __future__ import annotations

import argparse
import io
import os
import shlex
import signal
import sqlite3
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot
import pytest

from treestrap.commands.tournament import add_parser
from treestrap.play import game as game_module
from treestrap.play.adjudication import (
    Adjudication,
    adjudicate,
    is_dead_draw,
    resign_winner,
)
from treestrap.play.game import GameRecord, GameSetup, play_game
from treestrap.play.openings import load_openings
from treestrap.play.players import (
    IN_PROCESS,
    RANDOM,
    UCI,
    XBOARD,
    PlayerSpec,
    parse_player,
    parse_players,
)
from treestrap.play.sessions import MATE_SCORE, InProcessSession, Reply
from treestrap.play.timecontrol import TimeControl, parse_time_control
from treestrap.play.tournament import (
    TournamentConfig,
    load_config,
    plan_tournament,
    run_tournament,
)
from treestrap.rating.standings import standings

REPO = Path(__file__).resolve().parents[1]
ENGINES = Path(__file__).resolve().parent / "engines"
PGN_TAGS = (
    "Event", "Site", "Date", "Round", "White", "Black", "Result",
    "TimeControl", "Opening", "Termination", "PlyCount",
)  # fmt: skip


def toy(name: str, *options: str, protocol: str = UCI) -> str:
    """A named player spec for a toy engine with ``options``."""
    script = ENGINES / f"toy_{protocol}.py"
    line = " ".join(shlex.quote(w) for w in (sys.executable, str(script), *options))
    return f"{name}={protocol}:{line}"


def rows(run_dir: Path) -> list[tuple]:
    with sqlite3.connect(run_dir / "results.sqlite") as conn:
        return conn.execute("SELECT * FROM games ORDER BY id").fetchall()


def pgn_games(path: Path) -> list[chess.pgn.Game]:
    games = []
    with open(path, encoding="utf-8") as fh:
        while (game := chess.pgn.read_game(fh)) is not None:
            games.append(game)
    return games


def parsed(pgn: str) -> chess.pgn.Game:
    game = chess.pgn.read_game(io.StringIO(pgn))
    assert game is not None
    return game


def engine_moves(game: chess.pgn.Game, color: chess.Color) -> int:
    """Moves ``color`` made itself (book moves have no comment)."""
    return sum(1 for node in game.mainline() if node.comment and node.turn() != color)


def quick(players: list[str], **overrides: object) -> TournamentConfig:
    settings: dict = {"games_per_pair": 2, "max_plies": 40, "workers": 2, "tc": "depth=1"}
    return TournamentConfig(players=players, **{**settings, **overrides})


# --- specs, time controls, standings ------------------------------------------------


def test_player_specs_and_default_names(tmp_path: Path) -> None:
    weights = tmp_path / "game-000010.npz"
    weights.write_bytes(b"")
    specs = parse_players(["hand-set", "random", "random:3", str(weights), f"weights:{weights}"])
    assert [s.name for s in specs] == [
        "hand-set", "random", "random-3", "game-000010", "game-000010-2",
    ]  # fmt: skip
    assert all(s.kind == IN_PROCESS for s in specs)
    assert specs[2].preset == RANDOM and specs[2].seed == 3
    named = parse_player(f"untrained={weights}")
    assert (named.name, named.weights) == ("untrained", str(weights))
    uci = parse_player(f"treestrap-uci:{weights}")
    assert uci.kind == UCI and uci.command[-2:] == ("--weights", str(weights))
    assert parse_player("treestrap-uci:random").options == (("Preset", "random"),)
    xboard = parse_player(toy("x", "--seed", "2", protocol=XBOARD))
    assert xboard.kind == XBOARD and xboard.command[-2:] == ("--seed", "2")
    assert parse_player(f"uci:{sys.executable} {ENGINES / 'toy_uci.py'}").name == "toy_uci"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("alphazero", "unknown player"),
        ("missing.npz", "weight file not found"),
        ("weights:missing.npz", "weight file not found"),
        ("treestrap-uci:missing.npz", "weight file not found"),
        ("uci:no-such-engine-here --x", "engine program not found"),
        ("xboard:", "needs a command line"),
        ("random:abc", "whole number"),
    ],
)
def test_bad_player_specs_say_why(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_player(spec)


def test_explicit_names_must_differ() -> None:
    with pytest.raises(ValueError, match="given twice"):
        parse_players(["a=hand-set", "a=random"])


def test_time_controls_round_trip() -> None:
    for text in ("10+0.1", "60", "depth=3", "nodes=5000"):
        tc = parse_time_control(text)
        assert parse_time_control(tc.text()) == tc
    assert parse_time_control("10+0.1") == TimeControl(base=10, increment=0.1)
    assert parse_time_control("depth=4").pgn_tag() == "-"
    for bad in ("fast", "depth=0", "nodes=-1", "0+1", "10+-1", "nan"):
        with pytest.raises(ValueError, match=r"time control|at least"):
            parse_time_control(bad)


def test_standings_count_points_and_keep_idle_players() -> None:
    table = standings(
        ["a", "b", "c"], [("a", "b", "1-0"), ("b", "a", "1/2-1/2"), ("a", "b", "0-1")]
    )
    by_name = {s.name: s for s in table}
    assert (by_name["a"].wins, by_name["a"].draws, by_name["a"].losses) == (1, 1, 1)
    assert by_name["b"].points == 1.5 and by_name["c"].games == 0
    assert [s.name for s in table] == ["a", "b", "c"]


# --- adjudication rules ---------------------------------------------------------------

W, B = chess.WHITE, chess.BLACK


def test_resign_needs_both_sides_to_agree_for_n_moves_each() -> None:
    rule = Adjudication(resign_score=500, resign_moves=2)
    agreed = [(W, 10.0), (B, -20.0), (W, 600.0), (B, -550.0), (W, 500.0), (B, -900.0)]
    assert resign_winner(agreed, rule) == W
    assert resign_winner(agreed[:-1], rule) is None  # black has only one move past it
    assert resign_winner([*agreed[:-1], (B, -499.0)], rule) is None  # black disagrees
    assert resign_winner([*agreed[:-1], (B, None)], rule) is None  # no score: no verdict
    black_wins = [(W, -600.0), (B, MATE_SCORE), (W, -MATE_SCORE), (B, 800.0)]
    assert resign_winner(black_wins, rule) == B
    assert adjudicate(black_wins, 60, rule) == ("0-1", "adjudicated: resign")
    assert resign_winner(agreed, Adjudication()) is None  # the rule is off by default


def test_draw_needs_small_scores_after_the_given_move() -> None:
    rule = Adjudication(draw_score=10, draw_moves=2, draw_after=30)
    quiet = [(W, 50.0), (B, 5.0), (W, -10.0), (B, 0.0), (W, 3.0)]
    assert is_dead_draw(quiet, 60, rule)
    assert not is_dead_draw(quiet, 59, rule)  # move 30 is not over yet
    assert not is_dead_draw([*quiet, (B, 11.0)], 61, rule)
    assert not is_dead_draw([*quiet[:-1], (W, MATE_SCORE)], 60, rule)
    assert not is_dead_draw(quiet[-3:], 60, rule)  # fewer than two moves each
    assert adjudicate(quiet, 60, rule) == ("1/2-1/2", "adjudicated: draw")
    with pytest.raises(ValueError):
        Adjudication(resign_moves=0)


# --- the game loop with stand-in players ---------------------------------------------


Choice = Callable[[chess.Board], Reply]


class StandIn:
    """A player whose moves come from a function of the board."""

    def __init__(self, name: str, choose: Choice) -> None:
        self.name, self.choose = name, choose

    def play(self, board: chess.Board, clocks: dict) -> Reply:
        return self.choose(board)

    def kill(self) -> None:
        pass

    def close(self) -> None:
        pass


def first_legal(board: chess.Board) -> Reply:
    return Reply(min(board.legal_moves, key=lambda m: m.uci()), 0.0)


def stand_in_game(monkeypatch: pytest.MonkeyPatch, black_choose: Choice | None) -> GameRecord:
    players = {"w": first_legal, "b": black_choose}

    def fake_open(spec: PlayerSpec, tc: TimeControl, slot: int = 0, **_: object) -> StandIn:
        choose = players[spec.name]
        if choose is None:
            raise OSError("no such engine")
        return StandIn(spec.name, choose)

    monkeypatch.setattr(game_module, "open_session", fake_open)
    white, black = PlayerSpec("w", UCI), PlayerSpec("b", UCI)
    opening = load_openings(None)[0]
    return play_game(GameSetup(white, black, opening, TimeControl(depth=1)))


def test_players_that_raise_or_cheat_forfeit(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(board: chess.Board) -> Reply:
        raise RuntimeError("boom")

    record = stand_in_game(monkeypatch, boom)
    assert (record.result, record.termination) == (
        "1-0",
        "forfeit: engine error: RuntimeError: boom (black, b)",
    )
    record = stand_in_game(monkeypatch, lambda board: Reply(chess.Move.from_uci("a1a8"), 0.0))
    assert record.termination == "forfeit: illegal move a1a8 (black, b)"
    record = stand_in_game(monkeypatch, lambda board: Reply(None, None))
    assert record.termination == "forfeit: no move (black, b)"
    record = stand_in_game(monkeypatch, None)
    assert (
        record.termination == "forfeit: engine failed to start: OSError: no such engine (black, b)"
    )
    assert record.result == "1-0" and "[Termination" in record.pgn


def test_in_process_positions_follow_the_game_incrementally() -> None:
    from treestrap.core.notation import format_fen, position_from_board
    from treestrap.core.position import current_key

    session = InProcessSession(parse_player("hand-set"), TimeControl(depth=1), slot=0)
    board = chess.Board()
    for san in ("Nf3", "Nf6", "Ng1", "Ng8", "Nf3"):
        board.push_san(san)
        pos = session._position(board)
        full = position_from_board(board)
        assert format_fen(pos) == format_fen(full)
        assert int(current_key(pos)) == int(current_key(full))
    other = chess.Board()
    other.push_san("e4")  # a different game: rebuilt, not extended
    assert format_fen(session._position(other)) == format_fen(position_from_board(other))
    reply = session.play(board, {})
    assert reply.move in board.legal_moves and reply.score is not None


# --- schedules ------------------------------------------------------------------------


def test_round_robin_and_gauntlet_schedules() -> None:
    players = ["a=hand-set", "b=random:1", "c=random:2", "d=random:3"]
    robin = plan_tournament(TournamentConfig(players, games_per_pair=4, seed=5)).games
    assert len(robin) == 6 * 4
    gauntlet = plan_tournament(TournamentConfig(players, format="gauntlet", games_per_pair=4))
    pairings = [(g.white.name, g.black.name, g.opening.name) for g in gauntlet.games]
    assert len(pairings) == 3 * 4
    assert all("a" in (w, b) for w, b, _ in pairings)
    assert {(w, b, o) for w, b, o in pairings} == {(b, w, o) for w, b, o in pairings}
    assert len({o for _, _, o in pairings}) == 2
    again = plan_tournament(TournamentConfig(players, games_per_pair=4, seed=5)).games
    assert [g.opening for g in again] == [g.opening for g in robin]


def test_configs_round_trip_through_json() -> None:
    config = TournamentConfig(
        ["hand-set", "random"], tc=TimeControl(depth=2), adjudication=Adjudication(draw_score=5)
    )
    back = TournamentConfig.from_json(config.to_json())
    assert back.to_json() == config.to_json()
    assert back.adjudication == Adjudication(draw_score=5) and back.tc == "depth=2"
    for bad in ("[]", '{"players": ["a", "b"], "colour": "red"}', "{"):
        with pytest.raises(ValueError, match="not a tournament config"):
            TournamentConfig.from_json(bad)


# --- whole tournaments between toy engines ------------------------------------------


def test_round_robin_of_three_toy_engines(tmp_path: Path) -> None:
    players = [
        toy("alpha", "--seed", "1"),
        toy("beta", "--seed", "2"),
        toy("gamma", "--seed", "3", "--score", "5", protocol=XBOARD),
    ]
    result = run_tournament(quick(players, games_per_pair=4), tmp_path, progress=False)
    stored = rows(tmp_path)
    assert [r[0] for r in stored] == list(range(12))
    assert len(result.games) == 12 and result.given_up == []
    assert sum(s.points for s in result.standings) == 12
    assert all(s.games == 8 for s in result.standings)
    colours: dict[tuple[str, str], set[str]] = {}
    for g in result.games:
        colours.setdefault((g.opening, "-".join(sorted((g.white, g.black)))), set()).add(g.white)
    assert len(colours) == 6 and all(len(whites) == 2 for whites in colours.values())
    games = pgn_games(result.pgn_path)
    assert len(games) == 12
    for game in games:
        assert all(tag in game.headers for tag in PGN_TAGS)
        assert not game.errors
        assert int(game.headers["PlyCount"]) == len(list(game.mainline_moves())) <= 40
        assert game.headers["Result"] in ("1-0", "0-1", "1/2-1/2")
    gamma_notes = [n.comment for g in games if g.headers["White"] == "gamma" for n in g.mainline()]
    assert any(c.startswith("+0.05") for c in gamma_notes)  # xboard scores came through
    assert load_config(tmp_path).players == players
    with pytest.raises(ValueError, match="differs"):
        run_tournament(quick(players, games_per_pair=2), tmp_path, resume=True, progress=False)


def test_resume_after_a_kill_plays_only_the_missing_games(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    players = [toy(n, "--seed", str(i), "--delay", "0.01") for i, n in enumerate("abc")]
    config = quick(players, games_per_pair=6, max_plies=30)
    script = (
        "import sys\nfrom treestrap.play.tournament import TournamentConfig, "
        "run_tournament\nconfig = TournamentConfig.from_json(sys.argv[1])\n"
        "run_tournament(config, sys.argv[2], progress=False)\n"
    )
    log = open(tmp_path / "runner.log", "w")  # noqa: SIM115 (closed below)
    proc = subprocess.Popen(
        [sys.executable, "-c", script, config.to_json(), str(run_dir)],
        cwd=REPO,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if (run_dir / "results.sqlite").exists() and len(rows(run_dir)) >= 4:
                break
            time.sleep(0.1)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the runner and its workers at once
        proc.wait()
        log.close()
    before = rows(run_dir) if (run_dir / "results.sqlite").exists() else []
    assert 4 <= len(before) < 18, (tmp_path / "runner.log").read_text()[-2000:]
    with pytest.raises(ValueError, match="--resume"):
        run_tournament(config, run_dir, progress=False)
    result = run_tournament(load_config(run_dir), run_dir, resume=True, progress=False)
    after = rows(run_dir)
    assert [r[0] for r in after] == list(range(18))
    assert [r for r in after if r[0] in {b[0] for b in before}] == before
    assert len(result.games) == 18 and sum(s.points for s in result.standings) == 18
    assert len(pgn_games(run_dir / "games.pgn")) == 18  # rewritten from the database


def test_a_crashing_engine_forfeits_each_game_and_restarts(tmp_path: Path) -> None:
    config = quick([toy("crasher", "--crash-after", "3"), toy("steady")], games_per_pair=4)
    result = run_tournament(config, tmp_path, progress=False)
    assert len(result.games) == 4
    for stored in result.games:
        game = parsed(stored.pgn)
        colour = chess.WHITE if stored.white == "crasher" else chess.BLACK
        name = chess.COLOR_NAMES[colour]
        assert stored.termination == f"forfeit: engine crashed ({name}, crasher)"
        assert stored.result == ("0-1" if colour == chess.WHITE else "1-0")
        assert engine_moves(game, colour) == 3  # a fresh process in every game


def _alive_with(tag: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if entry.name.isdigit() and tag.encode() in cmdline:
            found.append(int(entry.name))
    return found


def test_a_hung_engine_is_killed_and_forfeits(tmp_path: Path) -> None:
    tag = f"hang-{os.getpid()}-{tmp_path.name}"
    players = [toy("sleepy", "--hang-after", "1", "--tag", tag), toy("steady")]
    config = quick(players, move_timeout=1.5, workers=1)
    result = run_tournament(config, tmp_path, progress=False)
    assert len(result.games) == 2
    for stored in result.games:
        side = "white" if stored.white == "sleepy" else "black"
        assert stored.termination == f"forfeit: engine hung for 1.5 s ({side}, sleepy)"
    time.sleep(0.5)
    assert _alive_with(tag) == []


def test_a_dead_worker_process_does_not_end_the_tournament(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "killed-once"
    players = [toy("killer", "--kill-parent-once", str(marker)), toy("steady")]
    result = run_tournament(quick(players, workers=1), tmp_path / "run", progress=False)
    assert marker.exists()
    assert [g.id for g in result.games] == [0, 1] and result.given_up == []
    assert "worker process died" in capsys.readouterr().err


def test_resign_and_draw_adjudication_from_engine_scores(tmp_path: Path) -> None:
    confident = [toy("winner", "--score", "2000"), toy("loser", "--score", "-2000")]
    rule = Adjudication(resign_score=1000, resign_moves=2)
    result = run_tournament(quick(confident, adjudication=rule), tmp_path / "r", progress=False)
    for g in result.games:
        game = parsed(g.pgn)
        assert g.termination == "adjudicated: resign"
        assert g.result == ("1-0" if g.white == "winner" else "0-1")
        assert engine_moves(game, W) == engine_moves(game, B) == 2
    calm = [toy("calm", "--score", "0"), toy("still", "--score", "3")]
    rule = Adjudication(draw_score=10, draw_moves=3, draw_after=0)
    result = run_tournament(quick(calm, adjudication=rule), tmp_path / "d", progress=False)
    assert {(g.result, g.termination) for g in result.games} == {("1/2-1/2", "adjudicated: draw")}
    for game in pgn_games(result.pgn_path):
        assert engine_moves(game, W) == engine_moves(game, B) == 3


def test_maximum_length_and_finishing_with_a_reference_engine(tmp_path: Path) -> None:
    book = tmp_path / "won.epd"
    book.write_text("6k1/8/8/8/8/8/8/QQ4K1 w - -\n")  # two queens against a bare king
    players = [toy("r1", "--seed", "1"), toy("r2", "--seed", "2")]
    config = quick(players, openings=str(book), max_plies=2)
    capped = run_tournament(config, tmp_path / "capped", progress=False)
    assert {(g.result, g.termination, g.plies) for g in capped.games} == {
        ("1/2-1/2", "adjudicated: maximum length", 2)
    }
    config.finish_with = toy("ref", "--style", "mobility")
    finished = run_tournament(config, tmp_path / "finished", progress=False)
    for g in finished.games:
        game = parsed(g.pgn)
        assert g.termination == "finished by ref (checkmate)" and g.result == "1-0"
        assert g.plies > 2 and game.end().board().is_checkmate()
        assert "ref finishes" in list(game.mainline())[2].comment


def test_a_side_out_of_time_loses_on_time(tmp_path: Path) -> None:
    players = [toy("slow", "--delay", "0.4"), toy("quick")]
    result = run_tournament(quick(players, tc="1+0", workers=2), tmp_path, progress=False)
    for g in result.games:
        assert g.termination == "time forfeit"
        assert g.result == ("0-1" if g.white == "slow" else "1-0")


def test_in_process_players_in_a_gauntlet(tmp_path: Path) -> None:
    players = ["hand-set", "random:1", "random:2"]
    config = quick(players, format="gauntlet", tc="depth=1", max_plies=30)
    result = run_tournament(config, tmp_path, progress=False)
    pairings = sorted((g.white, g.black) for g in result.games)
    expected = [("hand-set", "random-1"), ("hand-set", "random-2")]
    assert pairings == sorted(expected + [(b, a) for a, b in expected])
    games = pgn_games(result.pgn_path)
    assert all(not g.errors for g in games)
    # The engine reports its own scores (pawns, mover's view) in every move's comment.
    comments = [n.comment for g in games for n in g.mainline() if n.comment]
    assert comments and all(c[0] in "+-" for c in comments)


def test_polyglot_books_give_weighted_random_lines(tmp_path: Path) -> None:
    def entry(board: chess.Board, uci: str, weight: int) -> tuple[int, bytes]:
        move = chess.Move.from_uci(uci)
        encoded = move.to_square | (move.from_square << 6)
        key = chess.polyglot.zobrist_hash(board)
        return key, struct.pack(">QHHI", key, encoded, weight, 0)

    start = chess.Board()
    after_e4, after_d4 = chess.Board(), chess.Board()
    after_e4.push_san("e4")
    after_d4.push_san("d4")
    entries = [
        entry(start, "e2e4", 3),
        entry(start, "d2d4", 1),
        entry(after_e4, "e7e5", 1),
        entry(after_e4, "c7c5", 1),
        entry(after_d4, "d7d5", 1),
    ]
    book = tmp_path / "tiny.bin"
    book.write_bytes(b"".join(data for _, data in sorted(entries)))
    lines = load_openings(str(book))
    assert {o.moves for o in lines} == {("e4", "e5"), ("e4", "c5"), ("d4", "d5")}
    assert all(o.name == "book: " + " ".join(o.moves) for o in lines)
    (tmp_path / "empty.bin").write_bytes(b"")
    with pytest.raises(ValueError, match="no openings"):
        load_openings(str(tmp_path / "empty.bin"))


# --- the command ----------------------------------------------------------------------


def run_command(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="treestrap")
    add_parser(parser.add_subparsers())
    args = parser.parse_args(["tournament", *argv])
    return int(args.func(args))


def test_command_plays_resumes_and_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    players = [toy("one", "--seed", "1"), toy("two", "--seed", "2")]
    assert run_command([*players, "--out", str(out), "--max-plies", "20", "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "one" in printed and "two" in printed and "results.sqlite" in printed
    assert run_command(["--resume", str(out), "--workers", "1", "--quiet"]) == 0
    assert len(rows(out)) == 2


@pytest.mark.parametrize(
    "argv",
    [
        ["hand-set", "--out", "{tmp}/x"],
        ["hand-set", "nonsense", "--out", "{tmp}/x"],
        ["hand-set", "random", "--out", "{tmp}/x", "--games-per-pair", "3"],
        ["hand-set", "random", "--out", "{tmp}/x", "--tc", "soon"],
        ["hand-set", "random", "--out", "{tmp}/x", "--openings", "{tmp}/none.pgn"],
        ["hand-set", "random"],
        ["--resume", "{tmp}/nowhere"],
        ["hand-set", "--resume", "{tmp}/x"],
    ],
)
def test_bad_command_input_exits_2_with_an_error(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_command([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    assert capsys.readouterr().err.startswith("error: ")
    assert not (tmp_path / "x").exists()


def test_command_refuses_a_used_run_dir_and_bad_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "results.sqlite").write_bytes(b"")
    assert run_command(["hand-set", "random", "--out", str(tmp_path)]) == 2
    assert "--resume" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        run_command(["hand-set", "random", "--out", str(tmp_path), "--workers", "0"])
    assert exit_info.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_importing_the_command_stays_light() -> None:
    code = (
        "import sys, treestrap.commands.tournament\n"
        "heavy = [m for m in ('numba', 'matplotlib', 'chess') if m in sys.modules]\n"
        "print(heavy)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert out.stdout.strip() == "[]"


def test_pgn_of_a_fen_opening_has_setup_tags(tmp_path: Path) -> None:
    book = tmp_path / "one.epd"
    fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    book.write_text(fen + "\n")
    config = quick([toy("p", "--seed", "1"), toy("q", "--seed", "2")], openings=str(book))
    run_tournament(config, tmp_path / "run", progress=False)
    text = (tmp_path / "run" / "games.pgn").read_text()
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    assert game.headers["FEN"] == fen and game.headers["SetUp"] == "1"
