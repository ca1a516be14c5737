"""The perspective network (``evaluation/perspective.py``): its compiled evaluation
against its torch twin and against a fresh evaluation on positions of real games, its
accumulators carried incrementally through games, every kind of move and searches, its
colour symmetry, its weight file, and the command line that reads the file."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import chess
import chess.engine
import chess.pgn
import numpy as np
import pytest
import torch
from conftest import data_dir, require
from test_supervised_support import python_chess_bitboard

from treestrap.core.makemove import make_move, make_null_move, unmake_move, unmake_null_move
from treestrap.core.movegen import generate_moves
from treestrap.core.notation import parse_fen, parse_uci_move
from treestrap.core.position import ST_PLY
from treestrap.core.status import new_move_buffer
from treestrap.engine.bench import BENCH_FENS
from treestrap.engine.engine import Engine
from treestrap.evaluation.model import evaluate
from treestrap.evaluation.outcome import CENTIPAWNS_PER_LOGIT
from treestrap.evaluation.perspective import (
    ACC_SLOTS,
    P_ACC,
    P_INTS,
    P_NARROW,
    P_WIDTH,
    QA,
    accumulators,
    split_parameters,
    unpack_parameters,
)
from treestrap.evaluation.perspective_random import material_perspective, random_perspective
from treestrap.evaluation.perspective_weights import PerspectiveModel, parse_spec
from treestrap.evaluation.torch_perspective import perspective_parameters_of
from treestrap.evaluation.weight_file_format import WeightFileError
from treestrap.evaluation.weight_files import load_weights
from treestrap.search.timeman import SearchLimits

torch.set_num_threads(1)
GAMES = "games/twic0920-sample.pgn"
#: Games of the file played through: about 2,500 positions.
N_GAMES = 30
#: Networks under test: wide enough to clip, small enough to be quick; random weights
#: large enough that accumulators leave [0, 1] at both ends.
NETWORKS = {
    "crelu": dict(width=64, activation="crelu", buckets=1),
    "screlu, 8 buckets": dict(width=32, activation="screlu", buckets=8),
    # output weights large enough that the output is summed in int64, not int32
    "screlu, int64 output": dict(width=32, activation="screlu", buckets=2, output=16.0),
}
#: Positions where every kind of move is legal: castling both ways, en passant,
#: promotions with and without capture, checks.
MOVE_KINDS = (
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/Pp2P3/2N2Q1p/1PPBBPPP/R3K2R b KQkq a3 0 1",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N w - - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
)


def _model(name: str, seed: int = 7) -> PerspectiveModel:
    shape = dict(NETWORKS[name])
    output = shape.pop("output", 1.0)
    model = random_perspective(seed=seed, scale=4.0, **shape)
    _, _, ow, _ = split_parameters(model.weights, model.width, model.buckets)
    ow *= output
    model = PerspectiveModel(model.width, model.weights, {}, model.activation, model.buckets)
    assert model.evaluator().weights[P_NARROW] == (output == 1.0)
    return model


@functools.cache
def _games() -> list[list[str]]:
    """The first games of the file that start from the start, as UCI moves."""
    path = data_dir() / GAMES
    require(path.exists(), f"reference file {GAMES} not found under {data_dir()}")
    games: list[list[str]] = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        while len(games) < N_GAMES and (game := chess.pgn.read_game(fh)) is not None:
            if not game.errors and game.board().fen() == chess.STARTING_FEN:
                games.append([m.uci() for m in game.mainline_moves()])
    return games


def _twin_scores(
    model: PerspectiveModel, boards: list[chess.Board], dtype: torch.dtype
) -> np.ndarray:
    """The twin's side-to-move scores of ``boards``, fed python-chess's own encoding."""
    x = torch.from_numpy(np.stack([python_chess_bitboard(b) for b in boards]))
    with torch.no_grad():
        z_white = model.torch_twin(dtype)(x)[:, 0].double().numpy()
    sign = np.where([b.turn == chess.WHITE for b in boards], 1.0, -1.0)
    return CENTIPAWNS_PER_LOGIT * sign * z_white


@pytest.mark.parametrize("name", list(NETWORKS))
def test_real_games_incrementally_equal_fresh_evaluations_and_the_twin(name: str) -> None:
    """Each game played through make_move with one evaluator (its accumulators carried
    from ply to ply): at every ply the value equals a fresh evaluator's, which
    recomputes the accumulators, and the float64 twin's bit for bit; the float32 twin's
    to a thousandth of a centipawn (a millionth of larger values)."""
    model = _model(name)
    carried, fresh = model.evaluator(), model.evaluator(incremental=False)
    ours, boards = [], []
    for moves in _games():
        pos, board = parse_fen(chess.STARTING_FEN), chess.Board()
        for uci in moves:
            make_move(pos, parse_uci_move(pos, uci))
            board.push_uci(uci)
            value = evaluate(pos, carried)
            assert value == evaluate(pos, fresh), (uci, board.fen())
            ours.append(value)
            boards.append(board.copy(stack=False))
    ours_a = np.array(ours)
    assert len(ours) > 2000 and np.abs(ours_a).max() > 50.0
    assert np.array_equal(ours_a, _twin_scores(model, boards, torch.float64))
    in_float32 = _twin_scores(model, boards, torch.float32)
    assert np.all(np.abs(ours_a - in_float32) <= 1e-3 + 1e-6 * np.abs(ours_a))  # centipawns
    # The accumulators left the clipped range at both ends, so clipping was tested.
    twin = model.torch_twin()
    x = torch.from_numpy(np.stack([python_chess_bitboard(b) for b in boards[::10]]))
    with torch.no_grad():
        a = twin.transformer(x.double()[:, :768]).numpy()
    assert (a < 0).mean() > 0.05 and (a > 1).mean() > 0.05


@pytest.mark.parametrize("name", list(NETWORKS))
def test_every_kind_of_move_through_make_and_unmake(name: str) -> None:
    """Every legal move (captures, promotions, castling, en passant) and a null move,
    made and unmade, two plies deep: the carried evaluator equals a fresh one after
    each make and each unmake."""
    model = _model(name)
    carried, fresh = model.evaluator(), model.evaluator(incremental=False)

    def check(pos: object) -> None:
        assert evaluate(pos, carried) == evaluate(pos, fresh)

    for fen in MOVE_KINDS:
        pos = parse_fen(fen)
        check(pos)
        for move in _moves(pos):
            make_move(pos, move)
            check(pos)
            for reply in _moves(pos):
                make_move(pos, reply)
                check(pos)
                unmake_move(pos)
                check(pos)
            make_null_move(pos)
            check(pos)
            unmake_null_move(pos)
            unmake_move(pos)
            check(pos)


def _row(pos: object) -> int:
    return int(pos.st[ST_PLY]) % ACC_SLOTS


def _moves(pos: object) -> list[int]:
    buffer = new_move_buffer()
    return [int(m) for m in buffer[: generate_moves(pos, buffer)]]


def test_a_child_steps_from_its_parents_accumulators() -> None:
    """A child of an evaluated parent is not recomputed: a mark put into the parent's
    accumulators (one unit added to every entry) shows up in the child's."""
    model = _model("crelu")
    ev = model.evaluator()
    pos = parse_fen(BENCH_FENS[1])
    evaluate(pos, ev)
    buf = ev.weights
    n = int(buf[P_WIDTH])
    ints = buf[int(buf[P_INTS]) :].view(np.int16)
    start = int(buf[P_ACC]) + _row(pos) * 2 * n
    ints[start : start + 2 * n] += 1
    make_move(pos, _moves(pos)[0])
    evaluate(pos, ev)
    marked = accumulators(buf, _row(pos))
    fresh = model.evaluator()
    evaluate(pos, fresh)
    assert np.array_equal(
        marked - accumulators(fresh.weights, _row(pos)), np.full_like(marked, 1 / QA)
    )


@pytest.mark.parametrize("name", list(NETWORKS))
def test_a_position_and_its_colour_flip_score_the_same(name: str) -> None:
    """The side to move's score does not depend on its colour."""
    model = _model(name, seed=3)
    ev = model.evaluator(incremental=False)
    board = chess.Board()
    for uci in _games()[0][:60]:
        board.push_uci(uci)
        mirrored = board.mirror()
        assert evaluate(parse_fen(board.fen()), ev) == evaluate(parse_fen(mirrored.fen()), ev)


def test_a_search_is_the_same_with_accumulators_carried_or_recomputed() -> None:
    """The tournament search to a fixed depth, one engine through all the bench
    positions (accumulators left from one search meet the next): the same nodes, score
    and best move as with accumulators recomputed at every evaluation."""
    model = material_perspective(64, seed=2, activation="screlu", buckets=4)
    results = []
    for ev in (model.evaluator(), model.evaluator(incremental=False)):
        engine = Engine(ev, hash_mb=4)
        run = []
        for fen in BENCH_FENS[:6]:
            out = engine.go(parse_fen(fen), SearchLimits(depth=5))
            run.append((out.nodes, out.score, out.best_move))
        results.append(run)
    assert results[0] == results[1]


def test_the_weight_file_round_trip(tmp_path: Path) -> None:
    model = _model("screlu, 8 buckets")
    model.metadata = {"note": "a round trip"}
    path = tmp_path / "p.npz"
    model.save(path)
    back = load_weights(path)
    assert isinstance(back, PerspectiveModel)
    assert back.spec == model.spec == "perspective:32:screlu:buckets8"
    assert parse_spec(back.spec) == (32, "screlu", 8)
    assert np.array_equal(back.weights, model.weights) and back.metadata == model.metadata
    pos = parse_fen(MOVE_KINDS[0])
    assert back.evaluate(pos) == model.evaluate(pos)
    # the packed network and the twin give the parameters back
    assert np.array_equal(unpack_parameters(model.evaluator().weights), model.weights)
    assert np.array_equal(perspective_parameters_of(model.torch_twin()), model.weights)


def test_new_parameters_written_into_an_evaluator_forget_its_accumulators() -> None:
    a, b = _model("crelu", seed=1), _model("crelu", seed=2)
    ev = a.evaluator()
    pos = parse_fen(MOVE_KINDS[0])
    assert evaluate(pos, ev) == a.evaluate(pos)
    PerspectiveModel.write_evaluator(ev, b.weights)
    assert evaluate(pos, ev) == b.evaluate(pos) != a.evaluate(pos)


def test_bad_files_and_parameters_are_refused(tmp_path: Path) -> None:
    model = _model("crelu")
    path = tmp_path / "off-grid.npz"
    model.save(path)
    meta, weights = _read(path)
    weights = weights + 1e-6
    from treestrap.evaluation.weight_file_format import write_weight_file

    write_weight_file(path, weights, meta)
    with pytest.raises(WeightFileError, match="off the network's integer grid"):
        load_weights(path)
    write_weight_file(path, weights - 1e-6, {**meta, "quantization": {"QA": 255, "QB": 64}})
    with pytest.raises(WeightFileError, match="quantization"):
        load_weights(path)
    big = model.weights.copy()
    big[: 768 * 64] = 3.0  # 32 pieces of 3.0: an accumulator of 96 < 128 fits
    PerspectiveModel(64, big)
    big[: 768 * 64] = 5.0
    with pytest.raises(ValueError, match="int16"):
        PerspectiveModel(64, big)
    with pytest.raises(ValueError):
        parse_spec("perspective:64:relu")


def _read(path: Path) -> tuple[dict, np.ndarray]:
    from treestrap.evaluation.weight_file_format import read_weight_file

    return read_weight_file(path)


def test_the_command_line_writes_shows_and_plays_a_perspective_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``weights random-perspective`` writes a file that ``weights show`` describes, a
    tournament and ``treestrap uci`` (``setoption name Weights``) play with, and
    ``train`` refuses to start from (self-play does not learn these networks yet)."""
    from treestrap.cli import main

    path = tmp_path / "p64.npz"
    args = ["weights", "random-perspective", str(path), "--width", "64", "--material"]
    assert main([*args, "--activation", "screlu"]) == 0
    assert "perspective:64:screlu" in capsys.readouterr().out
    assert main(["weights", "show", str(path)]) == 0
    shown = capsys.readouterr().out
    assert "perspective (768 -> 64) x 2 -> 1, screlu" in shown and "int16" in shown
    games = tmp_path / "tournament"
    tournament = ["tournament", str(path), "hand-set", "--games-per-pair", "2", "--workers", "1"]
    assert main([*tournament, "--tc", "0.1+0.01", "--max-plies", "16", "--out", str(games)]) == 0
    assert (games / "games.pgn").read_text().count("[Result ") == 2
    run = tmp_path / "run"
    assert main(["train", "--init", str(path), "--games", "1", "--out", str(run)]) == 2
    assert "training runs do not learn perspective networks" in capsys.readouterr().err
    assert not run.exists()
    command = [sys.executable, "-m", "treestrap.cli", "uci"]
    with chess.engine.SimpleEngine.popen_uci(command, timeout=600) as engine:
        engine.configure({"Weights": str(path)})
        info = engine.analyse(chess.Board(), chess.engine.Limit(depth=4))
    assert info["depth"] == 4 and info.get("pv")


def test_the_gradient_pairs_are_the_twins_inputs() -> None:
    """``evaluate_gradient`` gives the same score as ``evaluate`` and, as for every
    network, the ``bitboard`` inputs its torch twin reads."""
    from treestrap.evaluation.model import evaluate_gradient
    from treestrap.games.chess_game import CHESS_GAME

    model = _model("crelu")
    ev = model.evaluator()
    pos = parse_fen(MOVE_KINDS[1])
    score, n = evaluate_gradient(pos, ev)
    assert score == evaluate(pos, model.evaluator(incremental=False))
    row = CHESS_GAME.network_input_row(pos)
    assert sorted(ev.idx[:n]) == list(np.flatnonzero(row)) and np.all(ev.val[:n] == 1.0)
