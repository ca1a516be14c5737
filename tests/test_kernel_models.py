"""The game-neutral kernel models (src/treestrap/games/kernel_models.py), through the
test suite's tic-tac-toe: files read back equal, and a wrong file is refused with a
reason before anything uses it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tictactoe_game import MODELS

from treestrap.evaluation.weight_file_format import WeightFileError, read_weight_file
from treestrap.games.kernel_models import KernelLinearModel, KernelNetworkModel


def test_linear_and_network_files_read_back_equal(tmp_path: Path) -> None:
    linear = MODELS.random_linear("tictactoe", seed=1, scale=0.5)
    network = MODELS.random_network([4, 1], "tanh", seed=2, scale=1.0)
    linear.save(tmp_path / "linear.npz")
    network.save(tmp_path / "network.npz")
    back_linear = MODELS.load(tmp_path / "linear.npz")
    back_network = MODELS.load(tmp_path / "network.npz")
    assert isinstance(back_linear, KernelLinearModel)
    assert np.array_equal(back_linear.weights, linear.weights)
    assert back_linear.metadata == {"preset": "random", "seed": 1}
    assert isinstance(back_network, KernelNetworkModel) and back_network.sizes == [4, 1]
    assert np.array_equal(back_network.weights, network.weights)
    assert back_network.spec == "mlp:4" and back_linear.spec == "linear"


def _rewrite(src: Path, dst: Path, weights: np.ndarray | None = None, **meta: object) -> Path:
    """``src``'s file again as ``dst``, its meta changed by ``meta`` (and its weights)."""
    stored, stored_weights = read_weight_file(src)
    stored.update(meta)
    values = stored_weights if weights is None else weights
    np.savez(dst, weights=values, meta=np.frombuffer(json.dumps(stored).encode(), np.uint8))
    return dst


@pytest.mark.parametrize(
    ("change", "phrase"),
    [
        ({"game": "connect4"}, "not a tictactoe weight file"),
        ({"model": "hybrid"}, "not a tictactoe weight file"),
        ({"model": "network", "sizes": [4, 2]}, "layer sizes must"),
        ({"model": "network", "sizes": "4,1"}, "bad layer sizes"),
        ({"shape": [3]}, "weights of shape"),
        ({"metadata": [1, 2]}, "metadata must be a JSON object"),
    ],
)
def test_a_wrong_file_is_refused_with_its_reason(tmp_path: Path, change: dict, phrase: str) -> None:
    good = tmp_path / "good.npz"
    MODELS.random_linear("tictactoe", seed=0, scale=0.5).save(good)
    with pytest.raises(WeightFileError, match=phrase):
        MODELS.load(_rewrite(good, tmp_path / "bad.npz", **change))


def test_weights_that_are_not_finite_are_refused(tmp_path: Path) -> None:
    good = tmp_path / "good.npz"
    model = MODELS.random_linear("tictactoe", seed=0, scale=0.5)
    model.save(good)
    weights = model.weights.copy()
    weights[3] = np.nan
    with pytest.raises(WeightFileError, match="NaN or infinity"):
        MODELS.load(_rewrite(good, tmp_path / "nan.npz", weights))
