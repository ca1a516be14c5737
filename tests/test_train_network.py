"""``treestrap train --model``: Serban's Algorithm 7 through the training run. A tiny
MLP run writes network checkpoints, resumes and plays; weight files of the wrong kind
are refused with one error line; a tiny run lowers the replay loss on held-out tree
positions; a linear run's files stay as they were."""

from __future__ import annotations

import json
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest
import torch
from search_helpers import random_positions

from treestrap.cli import main
from treestrap.core.notation import parse_fen
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.presets import hand_set_model
from treestrap.evaluation.torch_network import random_network_parameters, torch_network
from treestrap.evaluation.weight_files import load_weights
from treestrap.learn.objectives_network import objective_loss
from treestrap.learn.replay import ReplaySet, add_tree
from treestrap.search.minimax import MinimaxLimits, MinimaxSearch
from treestrap.training.config import TrainConfig
from treestrap.training.run import open_run, train

torch.set_num_threads(1)

#: A run small enough for CI: depth-limited minimax trees of a few hundred nodes.
TINY = [
    "--model",
    "mlp:8",
    "--depth",
    "2",
    "--minimax-nodes",
    "300",
    "--minimax-qnodes",
    "20",
    "--max-plies",
    "24",
    "--tree-nodes",
    "40",
    "--batch-size",
    "16",
    "--replay-size",
    "3000",
]


def _pgn_games(run: Path) -> list[chess.pgn.Game]:
    games = []
    with open(run / "games.pgn", encoding="utf-8") as fh:
        while (game := chess.pgn.read_game(fh)) is not None:
            assert not game.errors
            games.append(game)
    return games


def test_the_network_parameters_round_trip_through_torch() -> None:
    """The torch module the learner steps gives the compiled network's scores, and
    reads its parameters back in the file's order."""
    fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1"
    from treestrap.evaluation.feature_sets import get_feature_set
    from treestrap.evaluation.feature_sets.feature_set import dense_features
    from treestrap.evaluation.outcome import CENTIPAWNS_PER_LOGIT
    from treestrap.evaluation.torch_network import network_parameters_of

    x = dense_features(parse_fen(fen), get_feature_set("bitboard"))[None].astype(np.float32)
    for sizes in ([1], [8, 1], [5, 3, 1]):
        model = NetworkModel(sizes, random_network_parameters(sizes, seed=4, scale=3.0))
        net = torch_network(sizes, model.weights)
        assert np.array_equal(network_parameters_of(net), model.weights)
        with torch.no_grad():
            s = net(torch.from_numpy(x))[0].numpy()
        assert s[1] == s[2] == 0.0
        black_to_move = -CENTIPAWNS_PER_LOGIT * s[0]
        assert black_to_move == pytest.approx(model.evaluate(parse_fen(fen)), rel=1e-9)


def test_a_tiny_mlp_run_writes_network_checkpoints_resumes_and_plays(tmp_path, capsys) -> None:
    run = tmp_path / "run"
    assert main(["train", *TINY, "--games", "2", "--out", str(run)]) == 0
    config = json.loads((run / "config.json").read_text())
    assert config["model"] == "mlp:8" and config["algorithm"] == "treestrap-mm"
    assert config["objective"] == "soft-cross-entropy" and config["feature_set"] == "bitboard"
    start = load_weights(run / "checkpoints" / "game-000000.npz")
    after = load_weights(run / "weights.npz")
    assert isinstance(start, NetworkModel) and isinstance(after, NetworkModel)
    assert after.sizes == [8, 1] and after.metadata["model"] == "mlp:8"
    assert after.metadata["run_state"]["games"] == 2
    assert not np.array_equal(start.weights, after.weights)  # it learned
    for n in (1, 2):
        assert isinstance(load_weights(run / "checkpoints" / f"game-{n:06d}.npz"), NetworkModel)
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [r["game"] for r in rows] == [1, 2]
    assert all(np.isfinite(r["replay_loss"]) and r["replay_positions"] > 0 for r in rows)
    games = _pgn_games(run)
    assert len(games) == 2 and "mlp:8" in games[0].headers["Event"]

    # Resume to three games: the records go on, a new checkpoint at the last game.
    assert main(["train", "--resume", str(run), "--games", "3"]) == 0
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [r["game"] for r in rows] == [1, 2, 3]
    assert [g.headers["Round"] for g in _pgn_games(run)] == ["1", "2", "3"]
    final = load_weights(run / "checkpoints" / "game-000003.npz")
    assert isinstance(final, NetworkModel) and final.metadata["run_state"]["games"] == 3
    assert np.array_equal(final.weights, load_weights(run / "weights.npz").weights)
    assert "3 games" in capsys.readouterr().out

    # Playable: a game against the hand-set weights (a tournament's game) and UCI.
    from test_uci import legal_in, start_engine

    from treestrap.play.game import GameRules, GameSetup, play_game
    from treestrap.play.openings import load_openings
    from treestrap.play.players import parse_player
    from treestrap.play.timecontrol import TimeControl

    white, black = parse_player(str(run / "weights.npz")), parse_player("hand-set")
    setup = GameSetup(
        white, black, load_openings(None)[0], TimeControl(depth=1), GameRules(max_plies=16)
    )
    record = play_game(setup)
    assert "forfeit" not in record.termination and record.plies > 0
    p = start_engine("--weights", str(run / "weights.npz"))
    try:
        p.send("position startpos moves e2e4")
        assert legal_in(chess.STARTING_FEN, ["e2e4"], p.go("depth 2")[1])
    finally:
        assert p.close() == 0


@pytest.fixture(scope="module")
def weight_files(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("weights")
    files = {"linear": d / "linear.npz", "mlp8": d / "mlp8.npz"}
    hand_set_model().save(files["linear"])
    NetworkModel([8, 1], random_network_parameters([8, 1], seed=1)).save(files["mlp8"])
    return files


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--init", "{mlp8}"], "a network weight file (mlp 8)"),
        (["--algorithm", "td-leaf", "--init", "{mlp8}"], "train a network with --model mlp:8"),
        (["--model", "mlp:8", "--init", "{linear}"], "needs a network weight file"),
        (["--model", "mlp:4", "--init", "{mlp8}"], "not the mlp:4 of --model"),
        (["--model", "logreg", "--init", "{mlp8}"], "not the logreg of --model"),
        (["--model", "mlp:8", "--init", "hand-set"], "--init hand-set is linear"),
        (["--model", "mlp:8", "--algorithm", "td-leaf"], "Algorithm 7"),
        (
            ["--model", "mlp:8", "--algorithm", "treestrap-mm", "--node-value", "quiescence"],
            "is for treestrap-ab",
        ),
        (["--model", "mlp:8", "--objective", "squashed"], "is for linear models"),
        (["--objective", "reversed-kl"], "is for networks: give --model"),
        (["--model", "cnn"], "unknown model 'cnn'"),
        (["--model", "crelu:0"], "unknown model 'crelu:0'"),
        (["--model", "crelu:8", "--init", "{mlp8}"], "not the crelu:8 of --model"),
        (["--game", "connect4", "--model", "crelu:8"], "Connect Four networks have tanh"),
        (["--tree-nodes", "10"], "options of network runs"),
    ],
)
def test_mismatched_models_and_options_are_refused_with_one_error_line(
    args: list[str], message: str, weight_files: dict[str, Path], tmp_path, capsys
) -> None:
    run = tmp_path / "run"
    argv = [a.format(**{k: str(v) for k, v in weight_files.items()}) for a in args]
    assert main(["train", "--games", "1", *argv, "--out", str(run)]) == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and message in errors[0], err
    assert "Traceback" not in err
    assert not run.exists()  # no run directory left behind


def test_a_linear_run_writes_its_config_and_weights_as_before(tmp_path) -> None:
    """Network fields stay out of a linear run's files: its config.json has the
    fields it had before networks, its weights no network metadata."""
    opened = open_run(TrainConfig(games=1), tmp_path / "run")
    saved = json.loads((tmp_path / "run" / "config.json").read_text())
    assert "model" not in saved and "replay_size" not in saved
    assert "quiet_only" in saved and saved["algorithm"] == "treestrap-ab"
    assert TrainConfig(**saved) == opened.config
    meta = load_weights(tmp_path / "run" / "weights.npz").metadata
    expected = {"algorithm", "games", "seed", "init", "run_state", "format_version"}
    assert set(meta) == expected | {"provenance"}


def _held_out(model: NetworkModel, fens: list[str]) -> ReplaySet:
    """Tree positions of depth-2 minimax searches from ``fens`` with ``model`` (and
    their flips), their search values as targets."""
    ev = model.evaluator()
    mm = MinimaxSearch(capacity=50_000, limits=MinimaxLimits(max_nodes=300, max_qnodes_per_leaf=20))
    replay = ReplaySet(10_000)
    for fen in fens:
        mm.search_budget(parse_fen(fen), ev, 2)
        add_tree(replay, mm.tree, 40)
    return replay


def _loss(model: NetworkModel, replay: ReplaySet, objective: str) -> float:
    net = torch_network(model.sizes, model.weights)
    with torch.no_grad():
        s = net(torch.from_numpy(replay.inputs[: replay.size].astype(np.float32)))
    z = (s[:, 0] - s[:, 2]).numpy()
    return float(objective_loss(objective, z, replay.targets[: replay.size]).mean())


def _entropy(v: np.ndarray) -> float:
    v = np.clip(v, 1e-12, 1 - 1e-12)
    return float(np.mean(-(v * np.log(v) + (1 - v) * np.log1p(-v))))


@pytest.mark.parametrize(
    ("objective", "name"), [("squared", "squared"), ("soft-ce", "soft-cross-entropy")]
)
def test_a_tiny_run_lowers_the_replay_loss_on_held_out_tree_positions(
    objective: str, name: str, tmp_path
) -> None:
    """Three self-play games of an MLP from a random start (weights four times
    PyTorch's default scale, so that its searches disagree with it): on tree positions
    of searches from positions no game played, with the start network's search values
    as fixed targets, the trained network's loss is lower than the start's. For soft
    cross-entropy the part above the targets' own entropy (the KL divergence, what
    learning can remove) is compared."""
    config = TrainConfig(
        model="mlp:8",
        feature_set="bitboard",
        algorithm="treestrap-mm",
        objective=name,
        games=3,
        depth=2,
        minimax_nodes=300,
        minimax_qnodes=20,
        max_plies=40,
        tree_nodes=50,
        batch_size=32,
        replay_size=5000,
        replay_steps=4,
        step_size=0.05,
        init_scale=4.0,
    )
    train(config, tmp_path / "run")
    start = load_weights(tmp_path / "run" / "checkpoints" / "game-000000.npz")
    trained = load_weights(tmp_path / "run" / "weights.npz")
    assert isinstance(start, NetworkModel) and isinstance(trained, NetworkModel)
    held = _held_out(start, random_positions(30, seed=77, min_ply=6, max_ply=40))
    floor = _entropy(held.targets[: held.size]) if objective == "soft-ce" else 0.0
    before = _loss(start, held, objective) - floor
    after = _loss(trained, held, objective) - floor
    assert after < 0.9 * before, (before, after)


def _resume_config(algorithm: str, games: int) -> TrainConfig:
    """A tiny run whose replay ring (200 positions) wraps within the first game."""
    return TrainConfig(
        model="mlp:8",
        feature_set="bitboard",
        algorithm=algorithm,
        objective="soft-cross-entropy",
        games=games,
        seed=2,
        depth=2,
        minimax_nodes=200,
        minimax_qnodes=10,
        max_plies=12,
        tree_nodes=30,
        batch_size=16,
        replay_size=200,
        replay_steps=2,
        momentum=0.9,
        step_size=0.05,
        init_scale=3.0,
    )


def _final(run: Path) -> tuple[np.ndarray, list[float]]:
    weights = load_weights(run / "weights.npz")
    assert isinstance(weights, NetworkModel)
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    return weights.weights, [r["replay_loss"] for r in rows]


def test_a_resumed_run_with_a_teacher_repeats_an_uninterrupted_one(tmp_path: Path) -> None:
    """``--teacher-every 3``: four games in one go, and two then resumed to four (game 3
    still searches with the network of game 1), end with the same parameters; a run
    whose searches take every step ends elsewhere (so the comparison can fail)."""
    import dataclasses

    def config(games: int, every: int = 3) -> TrainConfig:
        return dataclasses.replace(_resume_config("treestrap-ab", games), teacher_every=every)

    whole, half, plain = tmp_path / "whole", tmp_path / "half", tmp_path / "plain"
    train(config(4), whole)
    train(config(2), half)
    train(config(4), half, resume=True)
    train(config(4, every=0), plain)
    assert np.array_equal(_final(half)[0], _final(whole)[0])
    assert _final(half)[1] == _final(whole)[1]
    assert not np.array_equal(_final(plain)[0], _final(whole)[0])


@pytest.mark.parametrize("algorithm", ["treestrap-mm", "treestrap-ab"])
def test_a_resumed_network_run_repeats_an_uninterrupted_one_bit_for_bit(
    algorithm: str, tmp_path: Path
) -> None:
    """Four games in one go; two, then resumed to four; and a kill between the replay
    state's write and the weights' (weights one game behind the newest state): the
    same network parameters and mini-batch losses, bit for bit. Without the saved
    state the resumed run goes elsewhere (so the comparison can fail)."""
    whole, half = tmp_path / "whole", tmp_path / "half"
    train(_resume_config(algorithm, 4), whole)
    weights, losses = _final(whole)
    rows = [json.loads(line) for line in (whole / "metrics.jsonl").read_text().splitlines()]
    assert rows[0]["replay_positions"] == 200  # the ring wrapped in game 1
    with np.load(whole / "optimizer.npz") as saved:
        assert int(saved["games"]) == 4 and saved["momentum"].size == weights.size

    train(_resume_config(algorithm, 2), half)
    train(_resume_config(algorithm, 4), half, resume=True)
    resumed, resumed_losses = _final(half)
    assert np.array_equal(resumed, weights)
    assert resumed_losses == losses

    # Killed after game 2's replay state was written but before its weights: the
    # weights say game 1, and the state of game 1 is the previous file.
    killed = tmp_path / "killed"
    train(_resume_config(algorithm, 2), killed)
    (killed / "weights.npz").write_bytes((killed / "checkpoints" / "game-000001.npz").read_bytes())
    train(_resume_config(algorithm, 4), killed, resume=True)
    assert np.array_equal(_final(killed)[0], weights)

    # The same resume without the saved state: a warning, and other parameters.
    lost = tmp_path / "lost"
    train(_resume_config(algorithm, 2), lost)
    (lost / "optimizer.npz").unlink()
    (lost / "optimizer-previous.npz").unlink()
    with pytest.warns(UserWarning, match="no saved replay set or momentum"):
        train(_resume_config(algorithm, 4), lost, resume=True)
    assert not np.array_equal(_final(lost)[0], weights)
