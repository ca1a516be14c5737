"""Games against the perfect player from a start position, the persistent cache of
solved positions behind it, and the first thrown-away win
(``treestrap.play.connect4.solved``, ``treestrap.play.connect4.versus``, ``treestrap
measure --game connect4 --versus-perfect``). Positions are a few plies from the end,
where the solver answers in milliseconds."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from treestrap.cli import main
from treestrap.connect4.board import (
    LOSS,
    NOT_TERMINAL,
    make_move,
    parse_moves,
    terminal_value,
)
from treestrap.connect4.solver import FULL_COLUMN, Solver
from treestrap.games.connect4_players import RandomPlayer, make_player, parse_connect4_player
from treestrap.play.connect4.reference import ReferencePosition, load_reference
from treestrap.play.connect4.solved import DRAW, LOSE, WIN, SolvedPositions
from treestrap.play.connect4.versus import (
    CachedPerfectPlayer,
    VersusGame,
    check_moves,
    play_versus_perfect,
)

REFERENCE = "connect4/solved-1000.txt"


_LOADED: dict[str, list[ReferencePosition]] = {}


@pytest.fixture
def late(reference_data) -> list[ReferencePosition]:
    """Reference positions of 22 discs or more: milliseconds each (read once)."""
    path = str(reference_data(REFERENCE))
    if path not in _LOADED:
        _LOADED[path] = [r for r in load_reference(path) if len(r.moves) >= 22]
    return _LOADED[path]


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def test_the_cache_holds_what_the_solver_computes(
    late: list[ReferencePosition], tmp_path: Path
) -> None:
    path = tmp_path / "solved.json"
    solved = SolvedPositions(path)
    picked = late[:40]
    for ref in picked:
        pos = parse_moves(ref.moves)
        assert solved.score(pos) == ref.best
        assert solved.column_scores(pos).tolist() == list(ref.scores)
    solved.save()
    again = SolvedPositions(path)
    assert again.bounds == solved.bounds and len(again.bounds) > len(picked)
    for ref in picked:  # answered from the file: no node searched
        assert again.score(parse_moves(ref.moves)) == ref.best
        assert again.column_scores(parse_moves(ref.moves)).tolist() == list(ref.scores)
    assert again.solver.nodes == 0


def test_bounds_answer_without_a_search_once_known(late: list[ReferencePosition]) -> None:
    solved = SolvedPositions()
    for ref in late[:30]:
        pos = parse_moves(ref.moves)
        expected = {v: ref.best >= v for v in (-3, 0, 1, 4)}
        assert {v: solved.at_least(pos, v) for v in expected} == expected
        nodes = solved.solver.nodes
        assert {v: solved.at_least(pos, v) for v in expected} == expected
        assert solved.solver.nodes == nodes
        assert solved.result(pos) == _sign(ref.best)


def test_best_moves_are_the_reference_best(late: list[ReferencePosition]) -> None:
    solved = SolvedPositions()
    for ref in late[:60]:
        pos = parse_moves(ref.moves)
        legal = [c for c in range(7) if ref.scores[c] != FULL_COLUMN]
        assert solved.best_moves(pos) == [c for c in legal if ref.scores[c] == ref.best]
        # by result only: every column of the best result, every column when all lose
        same = [c for c in legal if _sign(ref.scores[c]) == _sign(ref.best)]
        assert solved.best_moves(pos, exact=False) == (legal if ref.best < 0 else same)


def test_the_perfect_player_never_lowers_the_value(late: list[ReferencePosition]) -> None:
    check = Solver()
    for exact in (True, False):
        perfect = CachedPerfectPlayer(SolvedPositions(), exact=exact)
        for k, ref in enumerate(late[:25]):
            pos = parse_moves(ref.moves)
            perfect.new_game(k)
            rng = RandomPlayer()
            rng.new_game(k)
            mover = 0
            while terminal_value(pos) == NOT_TERMINAL:
                if mover == 0:
                    before = check.solve(pos)
                    make_move(pos, perfect.choose(pos))
                    after = -check.solve(pos)
                    assert after == before if exact else _sign(after) == _sign(before)
                else:
                    make_move(pos, rng.choose(pos))
                mover ^= 1


def _thrown_game(late: list[ReferencePosition], solver: Solver) -> tuple[str, str]:
    """(start, moves): from a won position the first player keeps the win, the
    perfect reply, then a move that gives the win up."""
    for ref in late:
        if len(ref.moves) % 2 or ref.best <= 0:
            continue
        pos = parse_moves(ref.moves)
        keep = next(c for c in range(7) if ref.scores[c] > 0)
        make_move(pos, keep)
        if terminal_value(pos) != NOT_TERMINAL:
            continue
        reply = solver.best_moves(pos)[0]
        make_move(pos, reply)
        if terminal_value(pos) != NOT_TERMINAL:
            continue
        scores = solver.analyze(pos)
        throw = [c for c in range(7) if FULL_COLUMN < scores[c] <= 0]
        if max(scores) > 0 and throw:
            return ref.moves, ref.moves + f"{keep + 1}{reply + 1}{throw[0] + 1}"
    raise AssertionError("no position to throw a win away from")


def test_the_first_thrown_away_win_is_found(late: list[ReferencePosition]) -> None:
    start, moves = _thrown_game(late, Solver())
    checks = check_moves(moves, len(start), 0, SolvedPositions())
    assert [c.ply for c in checks] == [len(start) + 1, len(start) + 3]
    assert (checks[0].before, checks[0].after) == (WIN, WIN)
    assert checks[1].before == WIN and checks[1].after in (DRAW, LOSE)
    game = VersusGame("p", True, start, moves, "*", checks)
    assert game.lost_win_ply == len(start) + 3 == game.first_drop_ply
    assert "threw the win away at ply" in game.describe()
    # the second player's moves, checked the same way, never start from a win here
    theirs = check_moves(moves, len(start), 1, SolvedPositions())
    assert [c.ply for c in theirs] == [len(start) + 2]
    assert theirs[0].before == theirs[0].after == LOSE


def test_a_game_against_perfect_ends_as_its_moves_say(late: list[ReferencePosition]) -> None:
    solved = SolvedPositions()
    perfect = CachedPerfectPlayer(solved)
    player = make_player(parse_connect4_player("hand-set:depth=2"))
    for ref in late[:6]:
        for first in (True, False):
            game = play_versus_perfect(player, perfect, ref.moves, first, seed=3)
            assert game.moves.startswith(ref.moves)
            pos = parse_moves(game.moves)
            value = terminal_value(pos)
            assert value != NOT_TERMINAL
            mover_won = len(game.moves) % 2 == (1 if first else 0)
            expected = 0.5 if value != LOSS else (1.0 if mover_won else 0.0)
            assert game.score == expected
            # the perfect player never gives anything away: the player ends at most
            # at its result with perfect play at its first move
            if game.checks:
                assert game.score <= (game.start_result + 1) / 2


def run_cli(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


VERSUS = ["measure", "--game", "connect4", "--versus-perfect"]


def test_the_old_spelling_says_the_new_one_and_plays_the_same_games(
    late: list[ReferencePosition], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start = next(r.moves for r in late if len(r.moves) % 2 == 0 and r.best > 0)
    argv = ["hand-set:depth=2", "--start", start, "--cache", str(tmp_path / "solved.json")]
    assert run_cli([*VERSUS, *argv, "--quiet"]) == 0
    new = capsys.readouterr().out
    assert run_cli(["connect4", "versus-perfect", *argv, "--quiet"]) == 0
    old, err = capsys.readouterr()
    assert "is now treestrap measure --game connect4 --versus-perfect" in err
    games = [line for line in new.splitlines() if line.startswith("hand-set")]
    assert games and games == [line for line in old.splitlines() if line.startswith("hand-set")]


def test_the_command_plays_and_writes_its_games(
    late: list[ReferencePosition], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start = next(r.moves for r in late if len(r.moves) % 2 == 0 and r.best > 0)
    cache = tmp_path / "solved.json"
    argv = [*VERSUS, "hand-set", "random", "--depths", "2,3"]
    argv += ["--start", start, "--cache", str(cache), "--seeds", "2", "--as-second"]
    argv += ["--out", str(tmp_path / "out"), "--quiet"]
    assert run_cli(argv) == 0
    out = capsys.readouterr().out
    data = json.loads((tmp_path / "out" / "versus-perfect.json").read_text())
    games = data["games"]
    assert len(games) == 3 * 2 * 2  # players x sides x seeds
    assert {g["player"] for g in games} == {"hand-set-d2", "hand-set-d3", "random"}
    for g in games:
        assert g["moves"].startswith(start) and g["moves"] in out
        assert terminal_value(parse_moves(g["moves"])) != NOT_TERMINAL
        lost = [c[0] for c in g["checks"] if c[2] == WIN and c[3] != WIN]
        assert g["lost_win_ply"] == (lost[0] if lost else None)
    assert SolvedPositions(cache).bounds  # the solved positions were kept
    for name in ("hand-set-d2", "hand-set-d3", "random"):
        for side, first in (("first", True), ("second", False)):
            mine = [g for g in games if g["player"] == name and g["player_first"] == first]
            wins = sum(g["score"] == 1.0 for g in mine)
            draws = sum(g["score"] == 0.5 for g in mine)
            plies = " ".join(str(g["lost_win_ply"] or "-") for g in mine)
            line = f"{name} ({side}): +{wins} ={draws} -{2 - wins - draws}; "
            assert f"{line}win thrown away at plies: {plies}\n" in out


BAD = [
    (["hand-set", "--start", "4x"], "--start"),
    (["hand-set", "--start", "1111111"], "--start"),
    (["hand-set", "--start", "1212121"], "game is over"),
    (["hand-set", "--seeds", "0"], "--seeds"),
    (["hand-set", "--depths", "0"], "depth"),
    (["hand-set", "--table-bits", "40"], "--table-bits"),
    (["perfect"], "perfect"),
    (["hand-set", "--cache", "BROKEN"], "not a solved-positions cache"),
    (["hand-set", "--cache", "LIST"], "not a solved-positions cache"),
]


@pytest.mark.parametrize(("argv", "phrase"), BAD, ids=[p for _, p in BAD])
def test_bad_input_gives_one_error_line(
    argv: list[str], phrase: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]")
    argv = [str(broken) if a == "BROKEN" else str(listed) if a == "LIST" else a for a in argv]
    if "--cache" not in argv:
        argv += ["--cache", str(tmp_path / "solved.json")]
    capsys.readouterr()
    code = run_cli([*VERSUS, *argv, "--out", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if "error:" in line]
    assert code == 2 and "Traceback" not in out + err
    assert len(lines) == 1 and lines[0].startswith("error: ") and phrase in lines[0], err
    assert not (tmp_path / "out").exists()


def test_a_killed_solve_keeps_its_bounds(late: list[ReferencePosition], tmp_path: Path) -> None:
    """Each null window that took long enough is written at once (here: all)."""
    import treestrap.play.connect4.solved as solved_module

    path = tmp_path / "solved.json"
    old = solved_module.SAVE_AFTER_S, solved_module.LOG_AFTER_S
    solved_module.SAVE_AFTER_S = solved_module.LOG_AFTER_S = 0.0
    lines: list[str] = []
    try:
        solved = SolvedPositions(path, log=lines.append)
        ref = random.Random(5).choice([r for r in late if len(r.moves) < 26])
        solved.score(parse_moves(ref.moves))  # no save() called
    finally:
        solved_module.SAVE_AFTER_S, solved_module.LOG_AFTER_S = old
    assert SolvedPositions(path).score(parse_moves(ref.moves)) == ref.best
    # progress: the solve's line, and a line per null window that left a range
    assert lines[-1].startswith(f"solved {ref.moves}: exact score, score = {ref.best} (")
    assert all(line.startswith(f"solving {ref.moves}: in ") for line in lines[:-1])
