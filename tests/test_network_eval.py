"""Networks inside the compiled searches: the compiled network equals its PyTorch model,
the first-layer accumulator kept through moves equals a recomputation, alpha-beta equals
minimax with a network, one compiled search serves every model kind, and weights move
from a supervised checkpoint to a network file by code."""

from __future__ import annotations

import random
from functools import cache

import numba
import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from search_helpers import QUIET_STARTS, random_positions

from treestrap.core.makemove import make_move, make_null_move, unmake_move, unmake_null_move
from treestrap.core.movegen import generate_moves
from treestrap.core.notation import STARTING_FEN, parse_fen
from treestrap.core.position import ST_PLY, ST_SIDE, Position, in_check
from treestrap.evaluation.feature_sets import get_feature_set
from treestrap.evaluation.feature_sets.feature_set import dense_features
from treestrap.evaluation.model import LINEAR, NETWORK, evaluate, evaluate_gradient
from treestrap.evaluation.network import (
    ACC_SLOTS,
    accumulator,
    accumulator_row,
    pack_network,
    refresh_accumulator,
)
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.outcome import (
    CENTIPAWNS_PER_LOGIT,
    score_from_white_probability,
    white_win_probability,
)
from treestrap.evaluation.presets import hand_set_model
from treestrap.evaluation.weight_file_format import WeightFileError
from treestrap.evaluation.weight_files import load_weights
from treestrap.search.minimax import MinimaxSearch
from treestrap.search.training import TrainingOptions, TrainingSearch
from treestrap.search.tree import OVERFLOW
from treestrap.supervised.convert import network_parameters
from treestrap.supervised.models import ModelSpec, SupervisedModel, build_model

torch.set_num_threads(1)
SPECS = {
    "logreg": ModelSpec("logreg", 769),
    "mlp20": ModelSpec("mlp", 769, hidden=(20,)),
    "mlp8x6": ModelSpec("mlp", 769, hidden=(8, 6)),
}
BITBOARD = get_feature_set("bitboard")


@cache
def torch_model(name: str) -> SupervisedModel:
    """A supervised model with random weights (fresh ones have a zero top layer) and a
    random input mean, so that the mean's folding is checked too."""
    model = build_model(SPECS[name], seed=0)
    gen = torch.Generator().manual_seed(7)
    with torch.no_grad():
        for p in model.net.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * 0.3)
        model.input_mean.copy_(torch.rand(769, generator=gen) * 0.2)
    return model.eval()


@cache
def network(name: str) -> NetworkModel:
    return NetworkModel(*network_parameters(torch_model(name), "bitboard"))


def torch_score(model: SupervisedModel, pos: Position) -> tuple[float, float]:
    """The reference: ``C (z_win - z_loss)`` for white, negated when black is to move,
    and ``C (|z_win| + |z_loss|)``, the size of what was subtracted (float32 rounding is
    relative to it, not to the difference)."""
    dtype = next(model.parameters()).dtype
    x = torch.from_numpy(dense_features(pos, BITBOARD))[None].to(dtype)
    with torch.no_grad():
        z = model(x)[0].double().numpy()
    white = CENTIPAWNS_PER_LOGIT * (z[0] - z[2])
    size = CENTIPAWNS_PER_LOGIT * (abs(z[0]) + abs(z[2]))
    return (white if pos.st[ST_SIDE] == 0 else -white), size


@cache
def torch_model64(name: str) -> SupervisedModel:
    import copy

    return copy.deepcopy(torch_model(name)).double()


def random_game(seed: int, plies: int, fen: str = STARTING_FEN) -> Position:
    rng = random.Random(seed)
    pos = parse_fen(fen)
    moves = np.zeros(256, dtype=np.int32)
    for _ in range(plies):
        n = generate_moves(pos, moves)
        if n == 0:
            break
        make_move(pos, int(moves[rng.randrange(n)]))
    return pos


SETTINGS = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


@SETTINGS
@given(seed=st.integers(0, 2**31), plies=st.integers(0, 120))
def test_compiled_network_equals_the_torch_model(seed: int, plies: int) -> None:
    pos = random_game(seed, plies)
    for name in SPECS:
        ours = evaluate(pos, network(name).evaluator())
        ref, size = torch_score(torch_model(name), pos)  # float32, as trained
        assert abs(ours - ref) <= 1e-5 * max(size, 1.0), (name, ours, ref)
        ref64, _ = torch_score(torch_model64(name), pos)  # the same weights in float64
        assert abs(ours - ref64) <= 1e-9 * max(abs(ref64), 1.0), (name, ours, ref64)


def test_network_gradient_pairs_are_its_input() -> None:
    pos = random_game(3, 30)
    ev = network("mlp20").evaluator()
    score, n = evaluate_gradient(pos, ev)
    assert score == evaluate(pos, ev)
    dense = np.zeros(769)
    np.add.at(dense, ev.idx[:n], ev.val[:n])
    assert np.array_equal(dense, dense_features(pos, BITBOARD))


def _recomputed(pos: Position, buf: np.ndarray) -> np.ndarray:
    scratch = buf.copy()
    refresh_accumulator(pos, scratch, 0)
    return accumulator(scratch, 0)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**31), steps=st.integers(1, 160), start=st.sampled_from(QUIET_STARTS))
def test_accumulator_kept_through_moves_equals_a_recomputation(
    seed: int, steps: int, start: str
) -> None:
    """Random walks of makes, null moves and unmakes, evaluated at random moments (so
    rows are brought up to date over several plies at once, forwards from an ancestor
    or backwards from a fresh row): every row read equals a recomputation exactly."""
    rng = random.Random(seed)
    pos = parse_fen(start)
    net = network("mlp8x6")
    ev, full = net.evaluator(), net.evaluator(incremental=False)
    stack: list[bool] = []  # True for a null move
    moves = np.zeros(256, dtype=np.int32)
    for _ in range(steps):
        n = generate_moves(pos, moves)
        r = rng.random()
        if stack and (r < 0.3 or n == 0):
            (unmake_null_move if stack.pop() else unmake_move)(pos)
        elif r < 0.37 and not in_check(pos) and not (stack and stack[-1]):
            make_null_move(pos)
            stack.append(True)
        elif n:
            make_move(pos, int(moves[rng.randrange(n)]))
            stack.append(False)
        if rng.random() < 0.4:
            row = accumulator_row(pos, ev.weights)
            assert row == pos.st[ST_PLY] % ACC_SLOTS
            assert np.array_equal(accumulator(ev.weights, row), _recomputed(pos, ev.weights))
            assert evaluate(pos, ev) == evaluate(pos, full)
        if rng.random() < 0.05:  # another position in between: its rows must not leak
            other = random_game(seed + 1, rng.randrange(20))
            assert evaluate(other, ev) == evaluate(other, full)


def test_rows_of_one_game_serve_a_copy_and_the_search() -> None:
    net = network("mlp20")
    ev, full = net.evaluator(), net.evaluator(incremental=False)
    pos = random_game(11, 70)  # deeper than nothing: the first walk fills rows backwards
    assert evaluate(pos, ev) == evaluate(pos, full)
    result = TrainingSearch().search(pos, ev, 3)
    assert result.value == TrainingSearch().search(pos, full, 3).value


QUIET = random_positions(12, seed=12, min_ply=1, max_ply=12, starts=QUIET_STARTS)


@pytest.mark.parametrize("name", ["mlp20", "logreg"])
def test_alphabeta_equals_minimax_with_a_network(name: str) -> None:
    ev = network(name).evaluator()
    bare = TrainingSearch(TrainingOptions(use_tt=False, check_extension=False))
    minimax = MinimaxSearch(capacity=300_000)
    compared = [0, 0, 0]
    for fen in QUIET:
        for depth in (1, 2, 3):
            mm = minimax.search(parse_fen(fen), ev, depth)
            if mm.stopped:
                assert minimax.tree.meta[OVERFLOW]
                break
            ab = bare.search(parse_fen(fen), ev, depth)
            assert ab.value == mm.value, (fen, depth)
            compared[depth - 1] += 1
    assert min(compared) >= 4, compared


def test_one_compiled_search_serves_every_kind() -> None:
    linear = hand_set_model().evaluator()
    net = network("mlp20").evaluator()
    assert (linear.kind, net.kind) == (LINEAR, NETWORK)
    assert numba.typeof(linear) == numba.typeof(net)


def test_outcome_mapping_round_trips_and_matches_the_logistic_scale() -> None:
    scores = np.array([-9999.0, -400.0, -1.0, 0.0, 250.0, 9999.0])
    for white in (True, False):
        h = white_win_probability(scores, white)
        assert np.all((h >= 0) & (h <= 1))
        inner = np.abs(scores) < 9000
        back = score_from_white_probability(h[inner], white)
        assert np.allclose(back, scores[inner], atol=1e-6)
    # 400 centipawns for the side to move are odds of 10 to 1.
    p = white_win_probability(400.0, True)
    assert p / (1 - p) == pytest.approx(10.0)
    assert white_win_probability(400.0, False) == pytest.approx(1 / 11)


def test_network_file_round_trip_and_refusals(tmp_path, capsys) -> None:
    net = network("mlp8x6")
    path = tmp_path / "net.npz"
    net.metadata["note"] = "test"
    net.save(path)
    back = load_weights(path)
    assert isinstance(back, NetworkModel)
    assert back.sizes == [8, 6, 1] and back.metadata["note"] == "test"
    assert np.array_equal(back.weights, net.weights)
    pos = random_game(5, 25)
    assert back.evaluate(pos) == net.evaluate(pos)
    from treestrap.cli import main

    assert main(["weights", "show", str(path)]) == 0
    shown = capsys.readouterr().out
    assert "mlp 8,6 network on bitboard" in shown and "note: test" in shown
    # A file whose parameters do not fit its layers is refused with the reason.
    with np.load(path) as archive:
        meta = archive["meta"]
        weights = archive["weights"]
    np.savez(tmp_path / "short.npz", weights=weights[:-1], meta=meta)
    with pytest.raises(WeightFileError, match="weights of shape"):
        load_weights(tmp_path / "short.npz")
    with pytest.raises(ValueError, match="end in one output"):
        pack_network(net.weights, [8, 6])


def test_supervised_convert_writes_a_network_for_an_mlp_checkpoint(tmp_path, capsys) -> None:
    from test_supervised_support import data_of, random_boards, split_from_boards, thirds

    from treestrap.cli import main
    from treestrap.supervised.checkpoint import BEST, load_checkpoint
    from treestrap.supervised.convert import centipawns
    from treestrap.supervised.inputs import encode
    from treestrap.supervised.train import TrainConfig, train_run

    boards = random_boards(6, seed=4)
    split = split_from_boards(boards, [(i // 5) % 3 for i in range(len(boards))])
    data = data_of(*thirds(split))
    config = TrainConfig(model="mlp", hidden=(20,), epochs=2, lr=0.5, mean_subtract=True)
    train_run(data, config, tmp_path / "run")
    out = tmp_path / "net.npz"
    assert main(["supervised", "convert", str(tmp_path / "run"), "--out", str(out)]) == 0
    assert "mlp 20 network on bitboard" in capsys.readouterr().out
    net = load_weights(out)
    assert isinstance(net, NetworkModel) and net.sizes == [20, 1]
    assert net.metadata["model"] == "mlp" and net.metadata["sizes"] == {"hidden": [20]}
    model = load_checkpoint(tmp_path / "run" / "trial-0" / BEST).model()
    assert float(model.input_mean.abs().sum()) > 0  # the mean is folded into layer 0
    rows = np.arange(len(boards))
    cp = centipawns(model, encode(split, data.encoding, rows))  # the supervised mapping
    assert np.abs(cp).max() > 1.0
    sign = np.where(split.white_to_move, 1.0, -1.0)
    ev = net.evaluator()
    ours = np.array([evaluate(parse_fen(b.fen()), ev) for b in boards])
    size = np.abs(cp) + 1.0
    assert np.all(np.abs(ours - sign * cp) <= 1e-5 * size)
    # A logistic regression converts to a network on request, to the same scores as
    # its linear weights.
    config = TrainConfig(model="logreg", epochs=2, lr=0.05, mean_subtract=True)
    train_run(data, config, tmp_path / "lr")
    for extra in ([], ["--network"]):
        path = tmp_path / f"lr{len(extra)}.npz"
        assert (
            main(["supervised", "convert", str(tmp_path / "lr"), "--out", str(path), *extra]) == 0
        )
    linear, as_net = load_weights(tmp_path / "lr0.npz"), load_weights(tmp_path / "lr1.npz")
    assert isinstance(as_net, NetworkModel) and as_net.sizes == [1]
    for b in boards[:50]:
        pos = parse_fen(b.fen())
        assert as_net.evaluate(pos) == pytest.approx(linear.evaluate(pos), rel=1e-9, abs=1e-6)


def test_a_network_plays_legal_games_in_a_tournament_and_over_uci(tmp_path) -> None:
    from test_uci import legal_in, start_engine

    from treestrap.play.game import GameRules, GameSetup, play_game
    from treestrap.play.openings import load_openings
    from treestrap.play.players import parse_player
    from treestrap.play.timecontrol import TimeControl

    path = tmp_path / "mlp.npz"
    network("mlp20").save(path)
    white, black = parse_player(str(path)), parse_player("hand-set")
    setup = GameSetup(
        white, black, load_openings(None)[0], TimeControl(depth=2), GameRules(max_plies=40)
    )
    record = play_game(setup)
    assert "forfeit" not in record.termination, record.termination
    assert record.plies >= 20 or record.termination != "max plies"
    p = start_engine("--weights", str(path))
    try:
        p.send("position startpos moves e2e4")
        assert legal_in(STARTING_FEN, ["e2e4"], p.go("depth 3")[1])
    finally:
        assert p.close() == 0
