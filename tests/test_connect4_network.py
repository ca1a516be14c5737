"""Connect Four networks: the compiled evaluation against its torch twin, inside the
searches, its learning gradient against a finite difference, non-linear TreeStrap on
Connect Four search trees, ``treestrap train --game connect4 --model`` and the saved
network as a measure or tournament player."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from conftest import require_module
from test_bad_inputs import check_one_error_line

torch = require_module("torch", "torch")

from treestrap.cli import main  # noqa: E402
from treestrap.connect4.board import Position, copy_position, parse_moves  # noqa: E402
from treestrap.connect4.evaluator import evaluate, make_evaluator, new_connect4_tree  # noqa: E402
from treestrap.connect4.features import SIZE  # noqa: E402
from treestrap.connect4.hand_eval import hand_weights  # noqa: E402
from treestrap.connect4.inputs import INPUT_NB, dense_inputs, mirror_inputs  # noqa: E402
from treestrap.connect4.network import (  # noqa: E402
    POINTS_PER_LOGIT,
    network_buffer,
    parameter_count,
    write_parameters,
)
from treestrap.connect4.search import (  # noqa: E402
    Connect4Minimax,
    Connect4Search,
    SearchOptions,
    walk_tt,
)
from treestrap.evaluation.outcome import CENTIPAWNS_PER_LOGIT  # noqa: E402
from treestrap.evaluation.torch_network import torch_network  # noqa: E402
from treestrap.games.connect4_game import CONNECT4_GAME, random_opening  # noqa: E402
from treestrap.games.connect4_model import load_connect4_model  # noqa: E402
from treestrap.games.connect4_network import (  # noqa: E402
    Connect4NetworkModel,
    random_connect4_network,
)
from treestrap.games.connect4_players import make_player, parse_connect4_player  # noqa: E402
from treestrap.games.network_inputs import CONNECT4_INPUTS  # noqa: E402
from treestrap.learn.objectives_network import bounded_gradient, bounded_loss  # noqa: E402
from treestrap.learn.replay import ReplaySet, hybrid_tree_samples  # noqa: E402
from treestrap.play.connect4.reference import load_reference  # noqa: E402
from treestrap.training.config import network_config  # noqa: E402
from treestrap.training.learner import Learner  # noqa: E402

REFERENCE = "connect4/solved-1000.txt"
LAYERS = ([1], [16, 1], [16, 8, 1])


def _positions(reference_data, every: int = 25) -> list[Position]:
    """Positions of real games: every ``every``-th reference position, and each one's
    game prefixes (so every disc count from 1 on turns up)."""
    found = []
    for ref in load_reference(reference_data(REFERENCE))[::every]:
        for end in range(1, len(ref.moves) + 1, 3):
            found.append(parse_moves(ref.moves[:end]))
    return found


def _twin_value(net, pos: Position) -> float:
    """The torch twin's side-to-move value of ``pos``."""
    x = np.zeros(INPUT_NB)
    dense_inputs(pos, x)
    with torch.no_grad():
        z = float(net(torch.from_numpy(x[None]))[0, 0])
    first_to_move = int(pos.st[0]) % 2 == 0
    return POINTS_PER_LOGIT * z * (1.0 if first_to_move else -1.0)


@pytest.mark.parametrize("sizes", LAYERS)
def test_the_compiled_network_equals_its_torch_twin_on_real_positions(
    sizes, reference_data
) -> None:
    model = random_connect4_network(sizes, seed=5, scale=3.0)
    ev = model.evaluator()
    net = torch_network(sizes, model.weights, INPUT_NB)
    positions = _positions(reference_data)
    assert len(positions) > 200
    values = np.array([evaluate(p, ev) for p in positions])
    twins = np.array([_twin_value(net, p) for p in positions])
    assert np.abs(values).max() > 10.0  # far from trivially zero
    assert np.abs(values - twins).max() <= 1e-9 * max(1.0, np.abs(twins).max())
    assert POINTS_PER_LOGIT == CENTIPAWNS_PER_LOGIT  # the replay set's mapping


def test_a_network_buffer_is_never_taken_for_linear_weights() -> None:
    for hidden in range(1, 40):
        sizes = [hidden, 1]
        buf = network_buffer(sizes, np.zeros(parameter_count(sizes)))
        assert buf.shape[0] != SIZE
    with pytest.raises(ValueError, match="parameters"):
        network_buffer([16, 1], np.zeros(3))


def test_alpha_beta_equals_minimax_with_a_network(reference_data) -> None:
    ev = random_connect4_network([16, 1], seed=2, scale=3.0).evaluator()
    alphabeta = Connect4Search(tt_bits=14)
    plain = Connect4Search(tt_bits=14, options=SearchOptions(prune=False))
    minimax = Connect4Minimax(capacity=200_000, max_nodes=199_999)
    for pos in _positions(reference_data, every=100)[::4]:
        a = alphabeta.search(copy_position(pos), ev, 3).value
        b = plain.search(copy_position(pos), ev, 3).value
        c = minimax.search(copy_position(pos), ev, 3).value
        assert a == b == c


def test_the_mirror_is_the_mirrored_positions_inputs() -> None:
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(30):
        moves = "".join(str(c) for c in rng.integers(1, 8, 12))
        try:
            pos = parse_moves(moves)
            mirror = parse_moves("".join(str(8 - int(c)) for c in moves))
        except ValueError:
            continue  # a full column or a finished game
        x, y = np.zeros((1, INPUT_NB)), np.zeros((1, INPUT_NB))
        dense_inputs(pos, x[0])
        dense_inputs(mirror, y[0])
        assert np.array_equal(mirror_inputs(x), y)
        checked += 1
    assert checked >= 20  # 24 of the 30 sequences are games (seed 0)


def test_a_mirrored_sample_keeps_its_bounds() -> None:
    replay = ReplaySet(8, CONNECT4_INPUTS)
    x = np.zeros((1, INPUT_NB), dtype=np.uint8)
    dense_inputs(parse_moves("1"), x[0])  # second to move: a lower bound bounds V above
    replay.add(x, np.array([-100.0]), np.array([200.0]))
    assert replay.size == 2
    assert replay.lower[0] == replay.lower[1] < 0.5 < replay.upper[0] == replay.upper[1]
    assert np.array_equal(replay.inputs[1], mirror_inputs(x)[0])


def _torch_gradient(net, x: np.ndarray, lower, upper, objective: str) -> np.ndarray:
    """The parameter gradient of the mean one-sided loss, as ``minibatch_step`` takes it
    (through ``bounded_gradient``), flat in the compiled network's order."""
    scores = net(torch.from_numpy(x))
    z = scores[:, 0] - scores[:, 2]
    grad = bounded_gradient(objective, z.detach().double().numpy(), lower, upper) / len(x)
    net.zero_grad()
    z.backward(torch.from_numpy(grad))
    parts = []
    for k, linear in enumerate(net.net.linears()):
        g = linear.weight.grad.double().numpy()
        parts += [(g.T if k == 0 else g).reshape(-1), linear.bias.grad.double().numpy()]
    return np.concatenate(parts)


@pytest.mark.parametrize("objective", ["soft-ce", "squared"])
def test_the_learning_gradient_equals_a_finite_difference(objective, reference_data) -> None:
    sizes = [12, 1]
    model = random_connect4_network(sizes, seed=8, scale=2.0)
    positions = _positions(reference_data, every=200)[:40]
    x = np.zeros((len(positions), INPUT_NB))
    for row, pos in zip(x, positions, strict=True):
        dense_inputs(pos, row)
    first = x[:, -1] == 1
    rng = np.random.default_rng(1)
    # bounds in V = P(first player wins); some exact, some one-sided, some violated
    lower = rng.uniform(0.05, 0.6, len(x))
    upper = np.where(rng.random(len(x)) < 0.3, lower, rng.uniform(0.6, 0.95, len(x)))
    ev = model.evaluator()

    def loss(params: np.ndarray) -> float:
        write_parameters(ev.weights, params)
        v = np.array([evaluate(p, ev) for p in positions]) / POINTS_PER_LOGIT
        z = np.where(first, v, -v)  # the first player's logit
        return float(bounded_loss(objective, z, lower, upper).mean())

    net = torch_network(sizes, model.weights, INPUT_NB)
    grad = _torch_gradient(net, x, lower, upper, objective)
    assert np.abs(grad).max() > 1e-4
    eps = 1e-6
    for i in rng.choice(len(model.weights), 40, replace=False):
        up, down = model.weights.copy(), model.weights.copy()
        up[i] += eps
        down[i] -= eps
        numeric = (loss(up) - loss(down)) / (2 * eps)
        assert numeric == pytest.approx(grad[i], rel=1e-5, abs=1e-8)


# --- non-linear TreeStrap on Connect Four search trees --------------------------------


#: The hand-written evaluation's points times this: values of a few logits, so the
#: targets' probabilities spread over (0, 1).
TARGET_SCALE = 10.0


def _tree_samples(ev, seeds: range) -> list[tuple[np.ndarray, ...]]:
    """Fixed targets: per search of games played by the (scaled) hand-written evaluation
    at depth 4, the table walk's nodes recorded with the network evaluator ``ev`` (its
    inputs) and the bounds the hand-written search left in the table."""
    hand = make_evaluator(hand_weights() * TARGET_SCALE)
    search = Connect4Search(tt_bits=16)
    tree = new_connect4_tree(1 << 16)
    game = CONNECT4_GAME
    found = []
    for seed in seeds:
        pos = game.start_position()
        for move in random_opening(seed, 1):
            game.make_move(pos, move)
        buffer = game.new_move_buffer()
        while game.terminal(pos, buffer)[0] is None:
            result = search.search(pos, hand, 4)
            walk_tt(pos, ev, search, tree, min_depth=1)
            found.append((tree, hybrid_tree_samples(tree, 300, size=INPUT_NB)[:3]))
            game.make_move(pos, result.best_move)
    return [samples for _tree, samples in found]


def _held_out_error(model: Connect4NetworkModel, samples) -> float:
    """The mean squared one-sided error of ``H = sigmoid(z)`` against the samples' bounds
    on ``V`` (each sample and its mirror; 0 inside the bounds)."""
    net = torch_network(model.sizes, model.weights, INPUT_NB)
    errors = []
    for inputs, lower, upper in samples:
        replay = ReplaySet(2 * len(inputs) + 2, CONNECT4_INPUTS)
        replay.add(inputs, lower, upper)
        x = replay.inputs[: replay.size].astype(np.float64)
        with torch.no_grad():
            h = torch.sigmoid(net(torch.from_numpy(x))[:, 0]).numpy()
        lo, hi = replay.lower[: replay.size], replay.upper[: replay.size]
        errors.append(np.maximum(lo - h, 0.0) + np.maximum(h - hi, 0.0))
    return float((np.concatenate(errors) ** 2).mean())


def test_a_short_network_run_lowers_its_held_out_error() -> None:
    config = network_config(
        "mlp:16",
        game="connect4",
        feature_set="connect4",
        algorithm="treestrap-ab",
        depth=4,
        tree_nodes=300,
        batch_size=64,
        replay_steps=4,
        step_size=0.01,
        seed=3,
    )
    start = random_connect4_network([16, 1], seed=3)
    learner = Learner(config, dataclasses.replace(start, weights=start.weights.copy()))
    train, held_out = (
        _tree_samples(learner.ev, range(1, 9)),
        _tree_samples(learner.ev, range(50, 54)),
    )
    before = _held_out_error(start, held_out)
    rule = learner.algorithm
    for number in range(2):  # two passes over the fixed training trees
        rule.start_game(number + 1)
        for inputs, lower, upper in train:
            rule.trainer.learn_from_samples(inputs, lower, upper)
    learned = learner.model()
    after = _held_out_error(learned, held_out)
    assert after < 0.8 * before, (before, after)
    # the searches' evaluator holds the learned parameters
    pos = parse_moves("4453")
    assert evaluate(pos, learner.ev) == pytest.approx(learned.evaluate(pos), rel=1e-12)


# --- treestrap train --game connect4 --model, and the saved network as a player ----


def _cli(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's usage errors
        return int(exc.code or 0)


@pytest.mark.parametrize("algorithm", ["treestrap-ab", "treestrap-mm"])
def test_a_connect4_network_run_trains_and_resumes_bit_for_bit(algorithm, tmp_path) -> None:
    base = ["train", "--game", "connect4", "--model", "mlp:8", "--algorithm", algorithm]
    base += ["--depth", "2", "--minimax-nodes", "300", "--seed", "4", "--tree-nodes", "100"]
    assert _cli([*base, "--games", "3", "--out", str(tmp_path / "whole")]) == 0
    assert _cli([*base, "--games", "2", "--out", str(tmp_path / "split")]) == 0
    assert _cli(["train", "--resume", str(tmp_path / "split"), "--games", "3"]) == 0
    whole = load_connect4_model(tmp_path / "whole" / "weights.npz")
    split = load_connect4_model(tmp_path / "split" / "weights.npz")
    first = load_connect4_model(tmp_path / "whole" / "checkpoints" / "game-000000.npz")
    assert isinstance(whole, Connect4NetworkModel) and whole.sizes == [8, 1]
    assert not np.array_equal(whole.weights, first.weights)  # it learned
    assert np.array_equal(whole.weights, split.weights)
    assert whole.metadata["model"] == "mlp:8" and whole.metadata["run_state"]["games"] == 3
    config = json.loads((tmp_path / "whole" / "config.json").read_text())
    assert config["game"] == "connect4" and config["model"] == "mlp:8"
    rows = [json.loads(x) for x in (tmp_path / "whole" / "metrics.jsonl").read_text().splitlines()]
    assert all(r["replay_positions"] > 0 for r in rows)


def test_a_connect4_network_learns_through_two_actors(tmp_path, capsys) -> None:
    run = tmp_path / "actors"
    argv = ["train", "--game", "connect4", "--model", "mlp:8", "--algorithm", "treestrap-ab"]
    argv += ["--depth", "2", "--seed", "4", "--tree-nodes", "100", "--games", "4"]
    assert _cli([*argv, "--actors", "2", "--out", str(run)]) == 0
    final = load_connect4_model(run / "weights.npz")
    start = load_connect4_model(run / "checkpoints" / "game-000000.npz")
    assert isinstance(final, Connect4NetworkModel) and final.sizes == [8, 1]
    assert not np.array_equal(final.weights, start.weights)  # the learner took steps
    rows = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert [r["game"] for r in rows] == [1, 2, 3, 4]
    assert {r["actor"] for r in rows} <= {0, 1}
    # the learner's replay set grew by what the actors shipped: every game added some
    positions = [r["replay_positions"] for r in rows]
    assert positions[0] > 0 and positions == sorted(positions) and positions[-1] > positions[0]


@pytest.mark.parametrize(
    ("options", "phrase"),
    [
        (["--init", "hand-set"], "--init hand-set is linear weights"),
        (["--linear-part", "hand-set"], "--linear-part is not for --game connect4"),
        (["--algorithm", "td-leaf"], "not by td-leaf"),
        (["--init", "LINEAR"], "linear weights, and this run learns --model mlp:8"),
    ],
)
def test_what_a_connect4_network_does_not_take_is_one_error_line(
    options, phrase, tmp_path, capsys
) -> None:
    from treestrap.games.connect4_model import random_connect4_model

    random_connect4_model(1).save(tmp_path / "linear.npz")
    options = [str(tmp_path / "linear.npz") if o == "LINEAR" else o for o in options]
    argv = ["train", "--game", "connect4", "--model", "mlp:8", "--depth", "2", *options]
    argv += ["--games", "1", "--out", str(tmp_path / "r")]
    capsys.readouterr()
    assert _cli(argv) == 2
    err = capsys.readouterr().err
    check_one_error_line(err, phrase)
    assert not (tmp_path / "r").exists()


def test_a_saved_network_plays_as_a_measure_and_tournament_player(
    reference_data, tmp_path, capsys
) -> None:
    model = random_connect4_network([16, 1], seed=11, scale=3.0)
    model.save(tmp_path / "net.npz")
    loaded = load_connect4_model(tmp_path / "net.npz")
    assert isinstance(loaded, Connect4NetworkModel) and loaded.sizes == [16, 1]
    assert np.array_equal(loaded.weights, model.weights)
    player = make_player(parse_connect4_player(f"{tmp_path / 'net.npz'}:depth=3"))
    search = Connect4Search(tt_bits=18)
    for pos in _positions(reference_data, every=200)[::5]:
        expected = search.search(copy_position(pos), model.evaluator(), 3).best_move
        assert player.choose(pos) == expected
    argv = ["connect4", "measure", f"net={tmp_path / 'net.npz'}", "--depths", "2"]
    argv += ["--positions", str(reference_data(REFERENCE)), "--every", "50", "--games", "2"]
    argv += ["--no-references", "--out", str(tmp_path / "m"), "--quiet"]
    assert _cli(argv) == 0
    data = json.loads((tmp_path / "m" / "measure.json").read_text(encoding="utf-8"))
    assert [p["player"] for p in data["players"]] == ["net-d2"]
    assert data["players"][0]["best_move"]["total"] == 20
    run = tmp_path / "t"
    argv = ["tournament", "--game", "connect4", f"net={tmp_path / 'net.npz'}:depth=2", "random"]
    assert _cli([*argv, "--games-per-pair", "2", "--out", str(run), "--quiet"]) == 0
    assert (run / "results.sqlite").is_file() and "net" in (run / "games.pgn").read_text()
