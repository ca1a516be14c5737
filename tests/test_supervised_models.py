"""Each supervised model solves a tiny synthetic problem it must be able to solve, and
fails one its family cannot; a one-expert mixture is a logistic regression; EM training
of a mixture never lowers the likelihood (Serban eq. 3.42)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_supervised_support import data_of, split_from_dense, thirds

from treestrap.supervised.models import ModelSpec, build_model
from treestrap.supervised.models.moe import em_update
from treestrap.supervised.train import TrainConfig, batch_tensors, train_trial

torch.set_num_threads(1)
WHITE_WINS, DRAW, BLACK_WINS = 0, 1, 2


def _noise(rng: np.random.Generator, n: int, p: float) -> np.ndarray:
    dense = (rng.random((n, 769)) < p).astype(np.float32)
    dense[:, 768] = rng.random(n) < 0.5
    return dense


def _xor_data():
    """White wins iff exactly one of two balanced bits is set; sparse noise elsewhere."""
    rng = np.random.default_rng(0)
    n = 1500
    dense = _noise(rng, n, 0.02)
    dense[:, 100] = rng.random(n) < 0.5
    dense[:, 200] = rng.random(n) < 0.5
    y = np.where(dense[:, 100] != dense[:, 200], WHITE_WINS, BLACK_WINS)
    return data_of(*thirds(split_from_dense(dense, y)))


def test_logreg_fits_a_linearly_separable_rule(tmp_path) -> None:
    rng = np.random.default_rng(1)
    n = 900
    dense = _noise(rng, n, 0.05)
    dense[:, 10] = rng.random(n) < 1 / 3
    dense[:, 20] = rng.random(n) < 1 / 2
    a, b = dense[:, 10] == 1, dense[:, 20] == 1
    # a -> white wins; else b -> black wins; else draw: three half-spaces
    y = np.where(a, WHITE_WINS, np.where(b, BLACK_WINS, DRAW))
    data = data_of(*thirds(split_from_dense(dense, y)))
    config = TrainConfig(model="logreg", epochs=10, lr=0.5, batch_size=20)
    result = train_trial(data, config, tmp_path, seed=0)
    assert result.result["test_accuracy"] == 1.0
    assert result.best_validation_accuracy == 1.0


def test_mlp_fits_xor_where_logreg_cannot(tmp_path) -> None:
    data = _xor_data()
    common = dict(epochs=15, lr=1.0, batch_size=20, momentum=0.5)
    logreg = train_trial(data, TrainConfig(model="logreg", **common), tmp_path / "l", seed=0)
    mlp = train_trial(data, TrainConfig(model="mlp", hidden=(8,), **common), tmp_path / "m", seed=0)
    assert logreg.result["test_accuracy"] < 0.65  # a linear rule gets ~half of XOR
    assert mlp.result["test_accuracy"] > 0.9


def test_two_layer_mlp_builds_and_trains(tmp_path) -> None:
    data = _xor_data()
    config = TrainConfig(model="mlp", hidden=(8, 4), epochs=2, lr=0.5, batch_size=50)
    result = train_trial(data, config, tmp_path, seed=0)
    assert result.epochs_run == 2
    model = build_model(config.spec(), seed=0)
    shapes = [tuple(p.shape) for p in model.parameters()]
    assert shapes == [(8, 769), (8,), (4, 8), (4,), (3, 4), (3,)]


def test_convnet_learns_a_spatial_pattern_anywhere_on_the_board(tmp_path) -> None:
    """White wins iff the black pawn stands right in front of the white knight, wherever
    the pair is; otherwise the two are far apart. Translation invariance is the point."""
    rng = np.random.default_rng(0)
    n = 3000
    dense = np.zeros((n, 769), dtype=np.float32)
    y = np.zeros(n, dtype=np.int64)
    for i in range(n):
        if i % 2 == 0:
            knight = int(rng.integers(56))
            pawn = knight + 8
            y[i] = WHITE_WINS
        else:
            while True:
                knight, pawn = (int(s) for s in rng.integers(64, size=2))
                if max(abs(knight % 8 - pawn % 8), abs(knight // 8 - pawn // 8)) > 1:
                    break
            y[i] = BLACK_WINS
        dense[i, 1 * 64 + knight] = 1.0
        dense[i, 6 * 64 + pawn] = 1.0
        dense[i, 768] = rng.random() < 0.5
    data = data_of(*thirds(split_from_dense(dense, y)))
    common = dict(epochs=15, lr=0.03, batch_size=10, momentum=0.9, mean_subtract=True)
    convnet = TrainConfig(model="convnet", kernels=(3,), maps=(8,), fc=16, **common)
    result = train_trial(data, convnet, tmp_path / "c", seed=0)
    logreg = train_trial(data, TrainConfig(model="logreg", **common), tmp_path / "l", seed=0)
    assert result.result["test_accuracy"] > 0.9
    assert logreg.result["test_accuracy"] < 0.75


def test_convnet_sizes_follow_table_6_14() -> None:
    """5x5 then 3x3 without padding leaves 2 x 2 maps: Serban's 20-40-200 net has 7,240
    second-layer and 32,200 fully connected weights."""
    spec = ModelSpec("convnet", 769, kernels=(5, 3), maps=(20, 40), fc=200)
    net = build_model(spec, seed=0).net
    assert net.convs[1].weight.numel() + net.convs[1].bias.numel() == 7240
    assert net.fc.weight.numel() + net.fc.bias.numel() == 32200
    with pytest.raises(ValueError, match="fit an 8 x 8 board"):
        build_model(ModelSpec("convnet", 769, kernels=(5, 5), maps=(2, 2)), seed=0)


def test_one_expert_mixture_trains_exactly_like_logreg(tmp_path) -> None:
    data = _xor_data()
    common = dict(epochs=3, lr=0.3, batch_size=25, momentum=0.6, lr_decay=1.0)
    logreg = train_trial(data, TrainConfig(model="logreg", **common), tmp_path / "l", seed=3)
    moe = train_trial(data, TrainConfig(model="moe", experts=1, **common), tmp_path / "m", seed=3)
    for a, b in zip(logreg.history, moe.history, strict=True):
        for key in ("loss", "train_accuracy", "validation_accuracy", "validation_loss"):
            assert a[key] == pytest.approx(b[key], rel=1e-5, abs=1e-6), key
    assert logreg.result["confusion"] == moe.result["confusion"]
    w_logreg = torch.load(tmp_path / "l" / "best.pt", weights_only=True)["state"]
    w_moe = torch.load(tmp_path / "m" / "best.pt", weights_only=True)["state"]
    assert w_logreg["net.linear.weight"].abs().max() > 0.01  # it did learn something
    torch.testing.assert_close(
        w_logreg["net.linear.weight"], w_moe["net.expert.weight"], atol=1e-5, rtol=1e-4
    )
    torch.testing.assert_close(
        w_logreg["net.linear.bias"], w_moe["net.expert.bias"], atol=1e-5, rtol=1e-4
    )


def _log_likelihood(model, x, y) -> float:
    with torch.no_grad():
        return float(model(x).gather(1, y[:, None]).sum())


def test_em_training_never_lowers_the_likelihood() -> None:
    """Full-batch EM with small M-steps: each E-step makes the free energy equal to the
    likelihood, and each M-step raises the free energy, so l(theta) never falls."""
    data = _xor_data()
    rows = np.arange(len(data.train))
    x, y = batch_tensors(data.train, data.encoding, rows)
    model = build_model(ModelSpec("moe", 769, experts=4), seed=1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    history = [_log_likelihood(model, x, y)]
    for _ in range(30):
        em_update(model, x, y, optimizer, m_steps=3)
        history.append(_log_likelihood(model, x, y))
    steps = np.diff(history)
    assert steps.min() > -1e-3 * abs(history[0])  # float noise only
    assert history[-1] > history[0] + 0.1 * abs(history[0])


def test_em_with_one_m_step_takes_the_likelihood_gradient() -> None:
    """The gradient of F(q, theta) at the theta that gave q equals the gradient of the
    log-likelihood (the KL term of eq. 3.40 is at its minimum): one M-step = one SGD step."""
    data = _xor_data()
    x, y = batch_tensors(data.train, data.encoding, np.arange(200))
    a = build_model(ModelSpec("moe", 769, experts=3), seed=2)
    with torch.no_grad():
        for p in a.parameters():
            p.add_(0.1 * torch.randn(p.shape, generator=torch.Generator().manual_seed(5)))
    b = build_model(ModelSpec("moe", 769, experts=3), seed=2)
    b.load_state_dict(a.state_dict())
    em_update(a, x, y, torch.optim.SGD(a.parameters(), lr=1.0), m_steps=1)
    opt = torch.optim.SGD(b.parameters(), lr=1.0)
    loss = torch.nn.functional.cross_entropy(b(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    for pa, pb in zip(a.parameters(), b.parameters(), strict=True):
        torch.testing.assert_close(pa, pb, atol=1e-5, rtol=1e-4)


def test_em_with_several_m_steps_differs_from_sgd(tmp_path) -> None:
    data = _xor_data()
    common = dict(model="moe", experts=2, epochs=2, lr=0.3, batch_size=50)
    sgd = train_trial(data, TrainConfig(**common), tmp_path / "s", seed=0)
    em = train_trial(
        data, TrainConfig(moe_training="em", m_steps=3, **common), tmp_path / "e", seed=0
    )
    assert sgd.history[0]["loss"] != pytest.approx(em.history[0]["loss"], rel=1e-6) or (
        sgd.history[1]["loss"] != pytest.approx(em.history[1]["loss"], rel=1e-6)
    )


def test_stockfish_model_places_two_thresholds_on_the_score(tmp_path) -> None:
    """Serban eq. 3.8: one scalar, three classes, two thresholds."""
    rng = np.random.default_rng(4)
    n = 900
    score = rng.uniform(-600, 600, n)
    y = np.where(score > 150, WHITE_WINS, np.where(score < -150, BLACK_WINS, DRAW))
    dense = np.zeros((n, 769), dtype=np.float32)
    dense[:, 768] = rng.random(n) < 0.5
    data = data_of(*thirds(split_from_dense(dense, y, sf_score=score)), features="stockfish")
    config = TrainConfig(model="stockfish", features="stockfish", epochs=30, lr=2.0, batch_size=20)
    result = train_trial(data, config, tmp_path, seed=0)
    assert result.result["test_accuracy"] > 0.95
