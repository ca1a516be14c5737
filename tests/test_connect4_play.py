"""Connect Four players, games, tournaments and the measurement against perfect play
(``treestrap.games.connect4_players``, ``treestrap.games.connect4_tournament``,
``treestrap.play.connect4``, ``treestrap connect4 measure``, ``treestrap tournament
--game connect4``, ``treestrap rate --game connect4``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from treestrap.cli import main
from treestrap.connect4.board import NOT_TERMINAL, parse_moves, terminal_value
from treestrap.connect4.solver import Solver
from treestrap.games.connect4_players import (
    PerfectPlayer,
    RandomPlayer,
    make_player,
    parse_connect4_player,
    parse_connect4_players,
)
from treestrap.games.connect4_tournament import can_win_now, random_openings
from treestrap.play.connect4.game import DRAWN, FIRST_WINS, SECOND_WINS, play_connect4_game
from treestrap.play.connect4.measure import (
    Share,
    games_against,
    opening_results,
    position_agreement,
)
from treestrap.play.connect4.reference import ReferencePosition, load_reference
from treestrap.play.results_db import ResultsDB
from treestrap.play.tournament import TournamentConfig

REFERENCE = "connect4/solved-1000.txt"


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver()


_LOADED: dict[str, list[ReferencePosition]] = {}


@pytest.fixture
def reference(reference_data) -> list[ReferencePosition]:
    path = reference_data(REFERENCE)
    if str(path) not in _LOADED:  # read once for the module's tests
        _LOADED[str(path)] = load_reference(path)
    return _LOADED[str(path)]


def _late(refs: list[ReferencePosition], discs: int) -> list[ReferencePosition]:
    """Positions the solver answers in milliseconds."""
    return [r for r in refs if len(r.moves) >= discs]


def run_cli(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


# ------------------------------------------------------------------ specs


def test_specs_parse_to_players_with_names() -> None:
    assert parse_connect4_player("perfect").kind == "perfect"
    weak = parse_connect4_player("perfect:p=0.25")
    assert (weak.name, weak.p) == ("perfect-p0.25", 0.25)
    search = parse_connect4_player("random-weights:seed=3:depth=2")
    assert (search.name, search.model, search.seed, search.depth) == (
        "random-weights-3-d2",
        "random-weights",
        3,
        2,
    )
    assert parse_connect4_player("hand-set").with_depth(4).name == "hand-set-d4"
    assert parse_connect4_player("hand-set:depth=2").with_depth(4).depth == 2
    names = [s.name for s in parse_connect4_players(["random", "random", "me=perfect"])]
    assert names == ["random", "random-2", "me"]


# ------------------------------------------------------------------ openings and games


def test_openings_are_repeatable_and_leave_no_win_at_once() -> None:
    openings = random_openings(30, 6, seed=7)
    assert openings == random_openings(30, 6, seed=7)
    assert openings != random_openings(30, 6, seed=8)
    for opening in openings:
        pos = parse_moves(opening)
        assert len(opening) == 6
        assert terminal_value(pos) == NOT_TERMINAL
        assert not can_win_now(pos)


def _value_for_mover(ref: ReferencePosition) -> int:
    return (ref.best > 0) - (ref.best < 0)


def test_perfect_play_reaches_the_game_theoretic_result(
    reference: list[ReferencePosition], solver: Solver
) -> None:
    """Perfect against perfect from reference positions ends as the scores say."""
    sample = _late(reference, 16)[:40]
    names = {1: "mover", -1: "other"}
    for k, ref in enumerate(sample):
        mover, other = PerfectPlayer("mover", 0, solver), PerfectPlayer("other", 0, solver)
        first, second = (mover, other) if len(ref.moves) % 2 == 0 else (other, mover)
        game = play_connect4_game(first, second, ref.moves, seed=k)
        value = _value_for_mover(ref)
        if value == 0:
            assert game.result == DRAWN, ref.moves
        else:
            winner = names[value]
            assert game.result == (FIRST_WINS if game.first == winner else SECOND_WINS)


@pytest.mark.parametrize("opponent", ["random", "perfect:p=0.5"])
def test_perfect_never_loses_what_it_holds(
    reference: list[ReferencePosition], solver: Solver, opponent: str
) -> None:
    """The perfect player, moving in reference positions it wins or draws, wins every
    won one and loses none, whatever a weaker opponent plays."""
    sample = [r for r in _late(reference, 14) if r.best >= 0][:40]
    assert len(sample) == 40
    other = make_player(parse_connect4_player(opponent), solver)
    perfect = PerfectPlayer("perfect", 0, solver)
    for k, ref in enumerate(sample):
        as_first = len(ref.moves) % 2 == 0
        first, second = (perfect, other) if as_first else (other, perfect)
        game = play_connect4_game(first, second, ref.moves, seed=k)
        assert game.score_of("perfect") >= (1.0 if ref.best > 0 else 0.5), ref.moves


def test_the_weakened_player_moves_at_random_at_its_rate(
    reference: list[ReferencePosition], solver: Solver
) -> None:
    player = PerfectPlayer("weak", 0.3, solver)
    player.new_game(11)
    positions = _late(reference, 20)
    for k in range(1500):
        player.choose(parse_moves(positions[k % len(positions)].moves))
    rate = player.random_moves / player.moves
    assert player.moves == 1500
    assert abs(rate - 0.3) < 0.06  # 5 standard deviations of a binomial rate


# ------------------------------------------------------------------ measurement


def test_the_perfect_player_always_picks_a_best_move(
    reference: list[ReferencePosition], solver: Solver
) -> None:
    sample = _late(reference, 17)
    best, kept = position_agreement(PerfectPlayer("perfect", 0, solver), sample)
    assert best.total == len(sample) > 200
    assert best.hits == best.total and kept.hits == kept.total


def test_a_random_player_picks_best_moves_at_the_expected_rate(
    reference: list[ReferencePosition],
) -> None:
    expected = sum(
        sum(s == r.best for s in r.scores) / sum(s > -1000 for s in r.scores) for r in reference
    )
    player = RandomPlayer()
    best, kept = position_agreement(player, reference)
    assert best.total == 1000
    # the sum of 1000 Bernoulli draws has a standard deviation below 16
    assert abs(best.hits - expected) < 80
    lo, hi = best.interval()
    assert lo < best.value < hi and hi - lo < 0.07
    assert kept.hits > best.hits


def test_wilson_interval_holds_the_share() -> None:
    lo, hi = Share(0, 50).interval()
    assert lo == 0.0 and 0.0 < hi < 0.1
    lo, hi = Share(50, 50).interval()
    assert hi == 1.0 and 0.9 < lo < 1.0
    lo, hi = Share(27, 100).interval()
    assert lo < 0.27 < hi and abs(lo - 0.1927) < 1e-4 and abs(hi - 0.3643) < 1e-4


def test_games_against_perfect_count_both_colours(solver: Solver) -> None:
    openings = random_openings(4, 8, seed=5)
    values = opening_results(openings, solver)
    perfect = PerfectPlayer("p", 0, solver)
    tally = games_against(RandomPlayer(), perfect, openings, values, 1)
    assert tally.games == 8 and sum(tally.first) == 4
    # a random player holds no more than the openings' results allow: against the
    # solver it can never win a game the solver's side holds at least a draw in
    won_or_drawn_for_random = sum(v >= 0 for v in values) + sum(v <= 0 for v in values)
    assert tally.wins + tally.draws <= won_or_drawn_for_random
    assert tally.wins <= sum(v != 0 for v in values)
    assert tally.turned == 0  # nothing is turned against the solver
    assert tally.fair == sum(v >= 0 for v in values) + sum(v <= 0 for v in values)
    self_play = games_against(PerfectPlayer("q", 0, solver), perfect, openings, values, 1)
    assert self_play.held == self_play.fair  # perfect play holds every result
    assert self_play.score == pytest.approx(0.5)  # each opening with both colours


def test_measure_command_writes_its_table(
    reference_data, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    positions = reference_data(REFERENCE)
    argv = ["connect4", "measure", "hand-set", "random", "--depths", "2"]
    argv += ["--positions", str(positions), "--every", "50", "--games", "2", "--p", "0.5"]
    argv += ["--out", str(tmp_path), "--quiet"]
    assert run_cli(argv) == 0
    out = capsys.readouterr().out
    assert re.search(r"^hand-set-d2\s+2\s+\d+\.\d% \[", out, re.M)
    data = json.loads((tmp_path / "measure.json").read_text(encoding="utf-8"))
    # the random start is measured beside them as a reference
    assert [p["player"] for p in data["players"]] == ["hand-set-d2", "random", "random-weights-d2"]
    assert data["players"][0]["best_move"]["total"] == 20
    assert data["players"][0]["games"][0]["games"] == 2
    rows = (tmp_path / "measure.csv").read_text(encoding="utf-8").splitlines()
    assert len(rows) == 4 and rows[0].startswith("player,spec,depth,seconds,mean_depth,best_move")


def test_measure_on_a_small_solved_file_gives_the_shares_a_hand_count_gives(
    reference: list[ReferencePosition], tmp_path: Path
) -> None:
    """Six late reference positions, the last two with their scores altered so that the
    perfect player's move is no longer a best move there (and in the last one no longer
    keeps the result): by hand, 4 of 6 best moves and 5 of 6 results kept."""
    won = [r for r in _late(reference, 20) if 0 < r.best < 20][:6]
    lines = [[r.moves, *r.scores] for r in won]
    for line, altered in ((lines[4], "slower"), (lines[5], "lost")):
        scores = line[1:]
        best = max(scores)
        other = next(k for k, s in enumerate(scores) if -1000 < s < best)
        for k, score in enumerate(scores):
            if score == best:  # every truly best column, whichever the player picks
                scores[k] = best if altered == "slower" else -best
        scores[other] = best + 1 if altered == "slower" else best
        line[1:] = scores
    path = tmp_path / "small.txt"
    path.write_text("".join(" ".join(map(str, line)) + "\n" for line in lines))
    argv = ["measure", "--game", "connect4", "perfect", "--positions", str(path)]
    assert (
        run_cli([*argv, "--games", "0", "--no-references", "--out", str(tmp_path), "--quiet"]) == 0
    )
    measured = json.loads((tmp_path / "measure.json").read_text(encoding="utf-8"))["players"][0]
    assert (measured["best_move"]["hits"], measured["best_move"]["total"]) == (4, 6)
    assert (measured["keeps_result"]["hits"], measured["keeps_result"]["total"]) == (5, 6)


# ------------------------------------------------------------------ tournaments


def test_a_tournament_writes_results_that_rate_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    argv = ["tournament", "--game", "connect4", "hand-set:depth=2", "random"]
    assert run_cli([*argv, "--games-per-pair", "4", "--out", str(run), "--quiet"]) == 0
    with ResultsDB.open(run) as db:
        games = db.games()
        config = json.loads(db.config_json())
    assert config["game"] == "connect4" and len(games) == 4
    # each opening twice, colours reversed
    assert [(g.white, g.black) for g in games[:2]] == [
        ("hand-set-d2", "random"),
        ("random", "hand-set-d2"),
    ]
    assert games[0].opening == games[1].opening != games[2].opening
    assert {g.result for g in games} <= {FIRST_WINS, SECOND_WINS, DRAWN}
    capsys.readouterr()
    assert run_cli(["rate", "--game", "connect4", str(run)]) == 0
    table = capsys.readouterr().out
    assert "hand-set-d2" in table and "random" in table
    assert run_cli(["rate", str(run / "games.pgn")]) == 0
    assert "hand-set-d2" in capsys.readouterr().out
    # a run that lost its last game resumes to play just that one, the same way
    with ResultsDB.open(run) as db, db.conn:
        db.conn.execute("DELETE FROM games WHERE id = 3")
    assert run_cli(["tournament", "--resume", str(run), "--quiet"]) == 0
    with ResultsDB.open(run) as db:
        again = db.games()
    assert [g.id for g in again] == [0, 1, 2, 3]
    assert [g.pgn.split("\n\n")[1] for g in again] == [g.pgn.split("\n\n")[1] for g in games]
    assert (run / "games.pgn").read_text(encoding="utf-8").count("[Event ") == 4


# ------------------------------------------------------------------ bad input


def _chess_run(tmp: Path) -> str:
    ResultsDB.create(tmp / "chess", TournamentConfig(players=["a", "b"]).to_json()).close()
    return str(tmp / "chess")


CHESS_WEIGHTS = "src/treestrap/evaluation/data/learned.npz"
BAD = [
    (["connect4", "measure", "missing.npz"], "weight file not found"),
    (["connect4", "measure", CHESS_WEIGHTS], "chess weights"),
    (["connect4", "measure", "hand-set", "--depths", "0"], "depth"),
    (["connect4", "measure", "hand-set", "--positions", "missing.txt"], "not found"),
    (["connect4", "measure", "perfect:p=1.5"], "probability"),
    (["tournament", "--game", "connect4", "hand-set", "random", "--tc", "depth=4"], "--tc"),
    (["tournament", "--game", "connect4", "hand-set:depth=x", "random"], "depth"),
    (["tournament", "--game", "connect4", "random", "random", "--workers", "2"], "--workers"),
    (["rate", "--game", "connect4", "CHESS_RUN"], "chess tournament"),
]


@pytest.mark.parametrize(("argv", "phrase"), BAD, ids=[" ".join(a[:3]) + p for a, p in BAD])
def test_bad_input_gives_one_error_line(
    argv: list[str], phrase: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = Path(__file__).resolve().parents[1]
    argv = [str(repo / a) if a == CHESS_WEIGHTS else a for a in argv]
    argv = [_chess_run(tmp_path) if a == "CHESS_RUN" else a for a in argv]
    if argv[0] == "tournament":
        argv += ["--out", str(tmp_path / "out")]
    capsys.readouterr()
    code = run_cli(argv)
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if "error:" in line]
    assert code == 2 and "Traceback" not in out + err
    assert len(lines) == 1 and lines[0].startswith("error: ") and phrase in lines[0], err
    assert not (tmp_path / "out").exists()


def test_random_player_is_repeatable_by_seed() -> None:
    pos = parse_moves("4455")
    a, b = RandomPlayer(), RandomPlayer()
    a.new_game(3)
    b.new_game(3)
    assert [a.choose(pos) for _ in range(20)] == [b.choose(pos) for _ in range(20)]
