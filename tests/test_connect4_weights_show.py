"""``treestrap weights show`` on Connect Four files: linear weights by group and by
size, a network's shape, the training provenance, and one error line for what does not
apply."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from treestrap.cli import main
from treestrap.connect4.features import SIZE, feature_names
from treestrap.games.connect4_model import Connect4Model
from treestrap.games.connect4_network import random_connect4_network
from treestrap.reports.connect4_weights import feature_group

META = {
    "algorithm": "treestrap-ab",
    "games": 40,
    "init": "random",
    "seed": 3,
    "run_state": {"wins": 20, "draws": 5, "losses": 15, "cpu_seconds": 36.0},
}


def show(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["weights", "show", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_linear_weights_by_group_and_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    weights = np.random.default_rng(1).normal(size=SIZE)
    path = tmp_path / "c4.npz"
    Connect4Model(weights, dict(META)).save(path)
    code, out, _ = show([str(path), "--top", "3"], capsys)
    assert code == 0
    assert f"linear weights over {SIZE} features" in out
    assert "treestrap-ab, 40 games from random weights (seed 3)" in out
    assert "+20 =5 -15" in out and "0.010 CPU hours" in out
    names = feature_names()
    largest = np.argsort(-np.abs(weights))[:3]
    listed = out.split("largest weights:")[1].split("\n\n")[0].split()
    assert listed[0::2] == [names[i] for i in largest]
    assert [float(v) for v in listed[1::2]] == pytest.approx(weights[largest], abs=1e-3)
    groups = {feature_group(n) for n in names}
    assert {"line", "threats", "column", "bias"} <= groups
    for group in groups:
        count = sum(feature_group(n) == group for n in names)
        assert any(line.split()[:2] == [group, str(count)] for line in out.splitlines())


def test_a_group_filter_and_a_network(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "c4.npz"
    Connect4Model(np.arange(SIZE, dtype=np.float64), {}).save(path)
    code, out, _ = show([str(path), "--group", "threats", "--top", "2"], capsys)
    assert code == 0
    rows = out.split("largest weights:")[1].split("\n\n")[0].split()[0::2]
    assert len(rows) == 2 and all(r.startswith("threats") for r in rows)
    net = random_connect4_network([16, 1], seed=2)
    net.metadata = dict(META)
    net.save(tmp_path / "net.npz")
    code, out, _ = show([str(tmp_path / "net.npz")], capsys)
    assert code == 0 and "MLP(16) network" in out
    assert f"parameters: {net.weights.size}" in out and "40 games" in out


@pytest.mark.parametrize(
    ("extra", "phrase"),
    [(["--plot", "x.png"], "--plot draws chess"), (["--group", "zz"], "starts with 'zz'")],
)
def test_what_does_not_apply_is_one_error_line(
    extra: list[str], phrase: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "c4.npz"
    Connect4Model(np.zeros(SIZE), {}).save(path)
    code, out, err = show([str(path), *extra], capsys)
    assert code == 2 and out == ""
    assert err.count("error:") == 1 and phrase in err and "Traceback" not in err
