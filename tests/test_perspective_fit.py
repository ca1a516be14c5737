"""Fitting a perspective network to position files (``distill/perspective_fit.py``):
the fit learns (its held-out loss falls below its start's), the network it returns
evaluates compiled as its float64 twin does, a fit killed after a checkpoint and
started again ends with the weights of one never interrupted, and a start of another
shape is refused."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import chess
import numpy as np
import pytest
import torch

from treestrap.core.notation import parse_fen, position_from_board
from treestrap.distill import perspective_fit
from treestrap.distill.fit_checkpoints import (
    checkpointed_cpu_seconds,
    last_checkpoint,
    save_checkpoint,
)
from treestrap.distill.perspective_fit import (
    PerspectiveFitSettings,
    fit_perspective,
    held_out_errors,
    random_start,
    targets,
)
from treestrap.distill.position_file import (
    PositionWriter,
    bitboard_rows,
    game_phase,
    pack_position,
    read_records,
    to_fen,
)
from treestrap.distill.sparse_perspective import sparse_batch, sparse_perspective
from treestrap.evaluation.outcome import CENTIPAWNS_PER_LOGIT, win_probability
from treestrap.evaluation.perspective_weights import PerspectiveModel
from treestrap.evaluation.torch_perspective import torch_perspective

VALUES = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 300, chess.ROOK: 500, chess.QUEEN: 900}
#: Small and quick: a tiny network, small batches so an epoch takes many steps.
SETTINGS = PerspectiveFitSettings(width=8, epochs=2, batch=64, lr=1e-2, seed=3)


def _material(board: chess.Board) -> int:
    """The side to move's material lead in centipawns."""
    lead = sum(
        value * (len(board.pieces(piece, board.turn)) - len(board.pieces(piece, not board.turn)))
        for piece, value in VALUES.items()
    )
    return int(lead)


def _write_games(path: Path, games: int, seed: int) -> None:
    """Positions of random legal games (every fourth ply: positions of one game are
    alike), scored by material and a little noise, with a result where the score is
    decisive, written as a position file."""
    rng = random.Random(seed)
    records = []
    for _ in range(games):
        board = chess.Board()
        while board.ply() < 100 and not board.is_game_over():
            board.push(rng.choice(list(board.legal_moves)))
            if board.ply() % 4:
                continue
            score = _material(board) + rng.randint(-30, 30)
            result = 0 if abs(score) < 300 else int(np.sign(score))
            pos = position_from_board(board.copy(stack=False))
            records.append(pack_position(pos, score, result, board.ply()))
    with PositionWriter(path, {"source": "random games"}) as writer:
        writer.write(np.concatenate(records))


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Path], list[Path]]:
    """Two training files and one held-out file: about 7,000 and 2,000 positions."""
    root = tmp_path_factory.mktemp("positions")
    paths = [root / f"part-{i}.pos" for i in range(3)]
    for i, path in enumerate(paths):
        _write_games(path, 150 if i < 2 else 75, seed=i)
    return paths[:2], paths[2:]


@pytest.fixture(scope="module")
def fitted(files: tuple[list[Path], list[Path]]) -> tuple[PerspectiveModel, list]:
    train, held_out = files
    return fit_perspective(train, held_out, SETTINGS)


def test_the_fit_lowers_the_held_out_loss(files, fitted) -> None:
    """Every epoch sees every training position; the held-out loss and centipawn error
    of the fitted network are below those of its random start."""
    train, held_out = files
    start = PerspectiveModel(8, random_start(SETTINGS))
    start_loss, start_cp = held_out_errors(start, held_out, SETTINGS)
    model, reports = fitted
    assert [r.epoch for r in reports] == [1, 2]
    assert all(r.positions == sum(len(read_records(p)) for p in train) for r in reports)
    assert reports[-1].held_out_loss < start_loss - 0.1
    assert reports[-1].held_out_cp < start_cp
    assert (model.width, model.activation, model.buckets, model.metadata) == (8, "crelu", 1, {})


def test_the_compiled_network_equals_its_twins(files, fitted) -> None:
    """The fitted network's compiled evaluation equals its float64 twin's bit for bit
    (both on the integer grid) and the float32 sparse network the fit trains to
    rounding."""
    model, _ = fitted
    records = np.array(read_records(files[1][0])[:300])
    ours = np.array([model.evaluate(parse_fen(to_fen(r))) for r in records])
    x = torch.from_numpy(bitboard_rows(records))
    with torch.no_grad():
        twin = model.torch_twin().side_to_move_logit(x).numpy() * CENTIPAWNS_PER_LOGIT
        net = sparse_perspective(model.width, model.buckets, model.activation, model.weights)
        sparse = net.side_to_move_logit(sparse_batch(records, model.buckets)).double().numpy()
    assert np.abs(ours).max() > 10.0
    assert np.array_equal(ours, twin)
    assert np.all(np.abs(ours - sparse * CENTIPAWNS_PER_LOGIT) <= 1e-3 + 1e-6 * np.abs(ours))


def test_the_sparse_network_and_its_gradient_equal_the_twins() -> None:
    """With screlu and output buckets too, the sparse network the fit trains gives the
    float32 twin's ``z`` and, through its own sparse backward, the twin's gradient."""
    params = random_start(replace(SETTINGS, buckets=4))
    params += np.random.default_rng(0).normal(0.0, 0.2, params.shape)
    board, rng, boards = chess.Board(), random.Random(5), []
    while len(boards) < 200:
        board = chess.Board() if board.is_game_over() else board
        board.push(rng.choice(list(board.legal_moves)))
        boards.append(board.copy(stack=False))
    records = np.concatenate([pack_position(position_from_board(b), 0, 0, 0) for b in boards])
    twin = torch_perspective(8, 4, "screlu", params, torch.float32)
    net = sparse_perspective(8, 4, "screlu", params)
    y = torch.from_numpy(np.random.default_rng(1).uniform(size=len(records)).astype(np.float32))
    expected = twin.side_to_move_logit(torch.from_numpy(bitboard_rows(records)))
    got = net.side_to_move_logit(sparse_batch(records, 4))
    assert torch.allclose(expected, got, rtol=1e-5, atol=1e-6)
    for z in (expected, got):
        torch.nn.functional.binary_cross_entropy_with_logits(z, y).backward()
    grads = [p.grad for p in twin.parameters_in_order()]
    grads[0] = grads[0].T  # the twin holds W as [N, 768]
    for theirs, ours in zip(grads, net.parameters(), strict=True):
        assert torch.allclose(theirs, ours.grad, rtol=1e-4, atol=1e-7)


def _figures(reports: list) -> list:
    """Epoch reports without their CPU time, which no two runs share."""
    return [replace(r, cpu_seconds=0.0) for r in reports]


class Killed(Exception):
    """Stands for a kill of the fitting process."""


def test_a_killed_fit_resumes_to_the_same_weights(files, fitted, tmp_path, monkeypatch) -> None:
    """Killed after its first checkpoint, the fit started again resumes from it and
    ends with the uninterrupted fit's weights and reports; started once more, it
    returns them from its last checkpoint without another step."""
    train, held_out = files
    state = tmp_path / "state"
    save = perspective_fit.save_checkpoint

    def save_then_die(state_dir: Path, epoch: int, data: dict) -> None:
        save(state_dir, epoch, data)
        raise Killed

    with monkeypatch.context() as patch:
        patch.setattr(perspective_fit, "save_checkpoint", save_then_die)
        with pytest.raises(Killed):
            fit_perspective(train, held_out, SETTINGS, state_dir=state)
    assert sorted(p.name for p in state.iterdir()) == ["fit-epoch-1.pt"]
    model, reports = fit_perspective(train, held_out, SETTINGS, state_dir=state)
    expected, expected_reports = fitted
    assert np.array_equal(model.weights, expected.weights)
    assert _figures(reports) == _figures(expected_reports)
    assert sorted(p.name for p in state.iterdir()) == ["fit-epoch-1.pt", "fit-epoch-2.pt"]

    def no_step(*args: object) -> None:
        raise AssertionError("a finished fit took another step")

    monkeypatch.setattr(perspective_fit, "sparse_batch", no_step)
    again, _ = fit_perspective(train, held_out, SETTINGS, state_dir=state)
    assert np.array_equal(again.weights, expected.weights)
    with pytest.raises(ValueError, match="other settings"):
        fit_perspective(train, held_out, replace(SETTINGS, lr=0.5), state_dir=state)


def test_a_fit_starts_from_a_network_of_its_shape_only(files, fitted) -> None:
    """A fit from the fitted network, with steps too small to move it off its grid,
    gives that network back; a start of another width or activation is refused."""
    train, held_out = files
    model, _ = fitted
    again, _ = fit_perspective(train, held_out, replace(SETTINGS, epochs=1, lr=1e-9), model)
    assert np.array_equal(again.weights, model.weights)
    start = PerspectiveModel(16, random_start(replace(SETTINGS, width=16)))
    with pytest.raises(ValueError, match="width 16"):
        fit_perspective(train, held_out, SETTINGS, start=start)
    screlu = PerspectiveModel(8, random_start(SETTINGS), activation="screlu")
    with pytest.raises(ValueError, match="activation screlu"):
        fit_perspective(train, held_out, SETTINGS, start=screlu)


def _records(*fens: str, score: int = 300, result: int = 0) -> np.ndarray:
    return np.concatenate([pack_position(parse_fen(fen), score, result, 40) for fen in fens])


def test_the_game_phase_counts_the_pieces_not_the_pawns() -> None:
    records = _records(
        chess.STARTING_FEN,
        "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1",  # kings and pawns
        "3qk3/8/8/8/8/8/8/R3K3 w - - 0 1",  # a rook and a queen: 6 of 24
        "k7/8/8/8/8/PPPPPPPP/QQQQQQQ1/7K w - - 0 1",  # promotions: more than the start's
    )
    assert game_phase(records).tolist() == [1.0, 0.0, 0.25, 1.0]


def test_the_result_weight_rises_as_the_pieces_leave_the_board() -> None:
    """With a rise, a drawn ending's target moves from its search score towards the
    draw by more than a full board's; without one both keep the plain result weight."""
    records = _records(chess.STARTING_FEN, "4k3/pppp4/8/8/8/8/4PPPP/4K3 w - - 0 1")
    plain = targets(records, SETTINGS)
    assert plain[0] == pytest.approx(plain[1])
    rising = targets(records, replace(SETTINGS, result_weight=0.25, result_weight_rise=0.5))
    assert rising[0] == pytest.approx(plain[0])
    score = win_probability(300.0)
    assert rising[1] == pytest.approx(0.25 * score + 0.75 * 0.5)
    with pytest.raises(ValueError, match=r"in endings 1\.25"):
        fit_perspective([], [], replace(SETTINGS, result_weight=0.25, result_weight_rise=1.0))


def test_a_checkpoint_from_before_a_new_setting_resumes_with_its_default(
    files, fitted, tmp_path
) -> None:
    """A checkpoint written before ``result_weight_rise`` existed (its settings lack the
    key) resumes a fit with the default, and is refused for another value."""
    train, held_out = files
    state = tmp_path / "state"
    fit_perspective(train, held_out, SETTINGS, state_dir=state)
    path, saved = last_checkpoint(state)
    del saved["settings"]["result_weight_rise"]
    path.unlink()
    save_checkpoint(state, SETTINGS.epochs, saved)
    model, _ = fit_perspective(train, held_out, SETTINGS, state_dir=state)
    assert np.array_equal(model.weights, fitted[0].weights)
    with pytest.raises(ValueError, match="other settings"):
        fit_perspective(
            train, held_out, replace(SETTINGS, result_weight_rise=0.25), state_dir=state
        )


def test_the_checkpoints_keep_the_cpu_time_of_their_epochs(files, tmp_path) -> None:
    """Each epoch reports its CPU time, and the last checkpoint holds them all: what a
    resumed fit adds to the time its own process measures."""
    train, held_out = files
    state = tmp_path / "state"
    assert checkpointed_cpu_seconds(state) == 0.0
    _, reports = fit_perspective(train, held_out, SETTINGS, state_dir=state)
    assert all(r.cpu_seconds > 0 for r in reports)
    assert checkpointed_cpu_seconds(state) == pytest.approx(sum(r.cpu_seconds for r in reports))
