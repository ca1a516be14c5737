"""``treestrap weights show NET --plot OUT.png``: a network's most important hidden
units drawn as 12 piece boards each (src/treestrap/reports/network_plot.py), and one
error line for a file no picture can show."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from treestrap.cli import main
from treestrap.connect4.features import SIZE as CONNECT4_SIZE
from treestrap.evaluation.feature_sets import get_feature_set
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.perspective_random import material_perspective
from treestrap.evaluation.presets import hand_set_model
from treestrap.evaluation.torch_network import random_network_parameters
from treestrap.games.connect4_model import Connect4Model
from treestrap.games.connect4_network import random_connect4_network
from treestrap.reports.network_plot import (
    first_layer,
    output_label,
    plot_network_units,
    unit_boards,
    unit_order,
)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
BITBOARD = get_feature_set("bitboard").size


def _crelu(width: int, seed: int = 0, linear: np.ndarray | None = None) -> NetworkModel:
    params = random_network_parameters([width, 1], seed=seed)
    return NetworkModel([width, 1], params, {"seed": seed}, linear=linear, activation="crelu")


def _show(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["weights", "show", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _assert_png(path: Path) -> None:
    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE) and len(data) > 10_000


def test_a_crelu_network_is_drawn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, png = tmp_path / "net.npz", tmp_path / "pictures" / "net.png"
    _crelu(16).save(path)
    code, out, err = _show([str(path), "--plot", str(png)], capsys)
    assert code == 0, err
    assert "crelu 16 network" in out and f"wrote {png}" in out
    _assert_png(png)


def test_a_perspective_network_is_drawn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, png = tmp_path / "persp.npz", tmp_path / "persp.png"
    assert main(["weights", "random-perspective", str(path), "--width", "16"]) == 0
    capsys.readouterr()
    code, out, err = _show([str(path), "--plot", str(png), "--units", "3"], capsys)
    assert code == 0, err
    assert f"wrote {png}" in out
    _assert_png(png)


def test_a_hybrid_and_a_logistic_regression_are_drawn(tmp_path: Path) -> None:
    hybrid = _crelu(8, linear=hand_set_model().weights)
    _assert_png(plot_network_units(hybrid, tmp_path / "hybrid.png", units=2))
    logreg = NetworkModel([1], random_network_parameters([1], seed=1))
    assert first_layer(logreg).outputs.shape == (1, 1)
    _assert_png(plot_network_units(logreg, tmp_path / "logreg.png"))


@pytest.mark.parametrize(
    "make",
    [
        lambda path: Connect4Model(np.zeros(CONNECT4_SIZE), {}).save(path),
        lambda path: random_connect4_network([8, 1], seed=0).save(path),
    ],
    ids=["connect4-linear", "connect4-network"],
)
def test_a_file_no_picture_shows_is_one_error_line(
    make: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, png = tmp_path / "c4.npz", tmp_path / "c4.png"
    make(path)  # type: ignore[operator]
    code, out, err = _show([str(path), "--plot", str(png)], capsys)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and "--plot" in err
    assert not png.exists()


def test_only_networks_have_a_first_layer(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="chess networks"):
        plot_network_units(hand_set_model(), tmp_path / "x.png")
    with pytest.raises(ValueError, match="units"):
        plot_network_units(_crelu(4), tmp_path / "x.png", units=0)


def test_units_are_ranked_by_input_norm_times_output_norm() -> None:
    width = 4
    params = np.zeros(BITBOARD * width + width + width + 1)
    w0 = params[: BITBOARD * width].reshape(BITBOARD, width)
    out = params[BITBOARD * width + width : BITBOARD * width + 2 * width]
    w0[:768, :] = [0.1, 1.0, 0.5, 0.2]
    out[:] = [1.0, 0.0, 0.5, -2.0]  # unit 1: large inputs, but nothing reads it
    model = NetworkModel([width, 1], params, activation="crelu")
    layer = first_layer(model)
    assert list(unit_order(layer)) == [3, 2, 0, 1]  # 0.4, 0.25, 0.1, 0
    assert output_label(layer, 3) == "output -2"


def test_unit_boards_put_a1_first_and_grey_unused_pawn_squares() -> None:
    width = 2
    params = np.zeros(BITBOARD * width + width + width + 1)
    w0 = params[: BITBOARD * width].reshape(BITBOARD, width)
    w0[1 * 64 + 1, 1] = 0.5  # a white knight on b1
    w0[11 * 64 + 60, 1] = -0.25  # a black king on e8
    boards = unit_boards(first_layer(NetworkModel([width, 1], params)), 1)
    assert boards.shape == (12, 8, 8)
    assert boards[1, 0, 1] == 0.5 and boards[11, 7, 4] == -0.25
    assert np.isnan(boards[0, [0, 7]]).all() and np.isnan(boards[6, [0, 7]]).all()
    assert not np.isnan(boards[0, 1:7]).any()


def test_a_perspective_unit_has_two_output_weights() -> None:
    model = material_perspective(4)
    layer = first_layer(model)
    assert layer.inputs.shape == (768, 4) and layer.outputs.shape == (4, 2)
    assert layer.colours == ("own", "their")
    assert "to move" in output_label(layer, 0) and "other" in output_label(layer, 0)
