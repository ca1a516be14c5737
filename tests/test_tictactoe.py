"""Tic-tac-toe, a game only the test suite registers (tests/tictactoe_game.py, in
conftest.py), trains, resumes, plays tournaments and is rated through the command line
as the built-in games are: a game is one registration."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
import tictactoe_kernels as kernels
from tictactoe_game import MODELS, NAME, PLAYERS, TICTACTOE_GAME

from treestrap.cli import main
from treestrap.play.contract_game import RandomMovePlayer, play_contract_game
from treestrap.play.kernel_players import PerfectPlayer

TRAIN = ["train", "--game", NAME, "--algorithm", "treestrap-ab", "--depth", "2"]


def _cli(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's usage errors
        return int(exc.code or 0)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A TreeStrap(alpha-beta) run of 20 games at depth 2."""
    run = tmp_path_factory.mktemp(NAME) / "run"
    assert _cli([*TRAIN, "--games", "20", "--out", str(run)]) == 0
    return run


def test_a_run_writes_weights_records_and_checkpoints_and_learns(run: Path) -> None:
    assert json.loads((run / "config.json").read_text())["game"] == NAME
    learned = MODELS.load(run / "weights.npz")
    start = MODELS.load(run / "checkpoints" / "game-000000.npz")
    assert learned.metadata["run_state"]["games"] == 20
    assert np.abs(learned.weights - start.weights).max() > 10.0  # it learned
    checkpoints = sorted(p.name for p in (run / "checkpoints").iterdir())
    assert checkpoints == [f"game-{n:06d}.npz" for n in (0, 1, 2, 5, 10, 20)]
    lines = (run / "games.txt").read_text().splitlines()
    assert [line.split("\t")[0] for line in lines] == [str(n) for n in range(1, 21)]
    for line in lines:
        _number, moves, result, opening, why = line.split("\t")
        assert moves.startswith(opening) and 1 <= len(opening) <= 2
        assert len(set(moves)) == len(moves) and set(moves) <= set("123456789")
        assert (why, result in ("1-0", "0-1")) in [("three in a row", True), ("full board", False)]
    assert len((run / "metrics.jsonl").read_text().splitlines()) == 20


def test_a_run_resumes_into_the_same_games(run: Path, tmp_path: Path) -> None:
    split = tmp_path / "split"
    assert _cli([*TRAIN, "--games", "8", "--out", str(split)]) == 0
    assert _cli(["train", "--resume", str(split), "--games", "20"]) == 0
    whole_weights = MODELS.load(run / "weights.npz").weights
    assert np.array_equal(MODELS.load(split / "weights.npz").weights, whole_weights)
    assert (split / "games.txt").read_text() == (run / "games.txt").read_text()


def _score(pgn: str, player: str, opponent: str) -> float:
    """``player``'s points per game against ``opponent`` in a tournament's PGN."""
    games = re.findall(r'\[White "(.*)"\]\n\[Black "(.*)"\]\n\[Result "(.*)"\]', pgn)
    points = {"1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0}
    met = [(w == player, points[r]) for w, b, r in games if {w, b} == {player, opponent}]
    return sum(p if white else 1.0 - p for white, p in met) / len(met)


def test_the_learned_weights_beat_or_draw_the_random_start(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "tournament"
    learned, start = run / "weights.npz", run / "checkpoints" / "game-000000.npz"
    players = [f"learned={learned}:depth=2", f"start={start}:depth=2", "random", "perfect"]
    argv = ["tournament", "--game", NAME, *players, "--games-per-pair", "16"]
    assert _cli([*argv, "--out", str(out), "--quiet"]) == 0
    pgn = (out / "games.pgn").read_text()
    assert pgn.count("[Event ") == 6 * 16 and '[Variant "Tic-tac-toe"]' in pgn
    assert _score(pgn, "learned", "start") >= 0.5
    assert _score(pgn, "perfect", "random") > 0.5
    capsys.readouterr()
    assert _cli(["rate", "--game", NAME, str(out)]) == 0
    table = capsys.readouterr().out
    assert all(name in table for name in ("learned", "start", "random", "perfect"))


def test_perfect_play_draws_itself_and_never_loses() -> None:
    perfect = PerfectPlayer(TICTACTOE_GAME, "perfect")
    assert perfect.value(kernels.new_position()) == 0  # tic-tac-toe is a draw
    other, random_player = PerfectPlayer(TICTACTOE_GAME, "other"), RandomMovePlayer(TICTACTOE_GAME)
    for seed in range(8):
        assert play_contract_game(TICTACTOE_GAME, perfect, other, [], seed).result == "1/2-1/2"
        assert play_contract_game(TICTACTOE_GAME, perfect, random_player, [], seed).result != "0-1"
        assert play_contract_game(TICTACTOE_GAME, random_player, perfect, [], seed).result != "1-0"


@pytest.mark.parametrize(
    ("spec", "phrase"),
    [
        ("nobody", "unknown tic-tac-toe player"),
        ("random:depth=2", "unknown tic-tac-toe player"),
        ("missing.npz", "weight file not found"),
    ],
)
def test_a_wrong_player_fails_before_any_game(spec: str, phrase: str) -> None:
    with pytest.raises(ValueError, match=phrase):
        PLAYERS.parse_all([spec])
