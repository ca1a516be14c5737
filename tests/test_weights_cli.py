"""The ``treestrap weights`` command: preset files, the text report, plots and errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from treestrap.cli import main
from treestrap.evaluation.weight_files import load_weights

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _preset(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> Path:
    out = tmp_path / "w.npz"
    assert main(["weights", "preset", *args, str(out)]) == 0
    assert str(out) in capsys.readouterr().out
    return out


def _top_rows(out: str) -> list[tuple[int, str, float]]:
    """The ``rank  name  weight`` rows of the top list."""
    section = out.split("rank  name", 1)[1].split("\n\n", 1)[0]
    rows = []
    for line in section.splitlines()[1:]:
        rank, name, weight = line.split()
        rows.append((int(rank), name, float(weight)))
    return rows


def _assert_png(path: Path) -> None:
    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert len(data) > 20_000


def test_preset_hand_set_writes_loadable_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _preset(tmp_path, capsys, "hand-set")
    model = load_weights(path)
    assert model.feature_set.name == "meep"
    assert model.metadata["preset"] == "hand-set"
    names = model.feature_set.names
    assert model.weights[names.index("material/queen")] == 900.0


def test_preset_random_is_seeded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    assert main(["weights", "preset", "random", str(a), "--seed", "7"]) == 0
    assert main(["weights", "preset", "random", str(b), "--seed", "7"]) == 0
    wa, wb = load_weights(a), load_weights(b)
    np.testing.assert_array_equal(wa.weights, wb.weights)
    assert wa.metadata["seed"] == 7
    assert np.all(np.abs(wa.weights) <= 1.0)


def test_show_hand_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _preset(tmp_path, capsys, "hand-set")
    assert main(["weights", "show", str(path), "--top", "12"]) == 0
    out = capsys.readouterr().out
    assert "feature set  meep" in out
    assert "preset  hand-set" in out
    assert re.search(r"layout hash  [0-9a-f]{16}", out)
    material = next(line for line in out.splitlines() if line.startswith("material "))
    assert material.split() == [
        "material", "pawn", "100", "knight", "320", "bishop", "330", "rook", "500", "queen", "900"
    ]  # fmt: skip
    rows = _top_rows(out)
    assert [r[0] for r in rows] == list(range(1, 13))
    magnitudes = [abs(r[2]) for r in rows]
    assert magnitudes == sorted(magnitudes, reverse=True)
    assert rows[0][1:] == ("material/queen", 900.0)
    # per-block summary: every meep block, with count, mean, mean |w|, min, max
    blocks = out.split("per block\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert blocks[0].split() == ["block", "count", "mean", "mean", "|w|", "min", "max"]
    found = {line.split()[0]: line.split()[1:] for line in blocks[1:]}
    assert list(found) == [
        "material", "bishop_pair", "psqt", "pawns", "mobility", "king", "threats", "tempo"
    ]  # fmt: skip
    assert found["material"] == ["5", "430.00", "430.00", "100.00", "900.00"]
    assert sum(int(v[0]) for v in found.values()) == load_weights(path).feature_set.size


def test_show_group_filters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _preset(tmp_path, capsys, "hand-set")
    assert main(["weights", "show", str(path), "--group", "psqt/endgame/", "--top", "40"]) == 0
    rows = _top_rows(capsys.readouterr().out)
    assert len(rows) == 40
    assert all(name.startswith("psqt/endgame/") for _, name, _ in rows)
    assert main(["weights", "show", str(path), "--group", "material/"]) == 0
    rows = _top_rows(capsys.readouterr().out)
    assert [name for _, name, _ in rows] == [
        "material/queen", "material/rook", "material/bishop", "material/knight", "material/pawn"
    ]  # fmt: skip


def test_show_unknown_group(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _preset(tmp_path, capsys, "hand-set")
    assert main(["weights", "show", str(path), "--group", "nonsense/"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "nonsense/" in err


def test_show_plot_meep(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _preset(tmp_path, capsys, "hand-set")
    png = tmp_path / "plots" / "psqt.png"
    assert main(["weights", "show", str(path), "--top", "3", "--plot", str(png)]) == 0
    assert f"wrote {png}" in capsys.readouterr().out
    _assert_png(png)


def test_bitboard_preset_show_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _preset(tmp_path, capsys, "hand-set", "--feature-set", "bitboard")
    assert load_weights(path).feature_set.name == "bitboard"
    png = tmp_path / "bb.png"
    assert main(["weights", "show", str(path), "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "feature set  bitboard" in out
    assert not any(line.startswith("material ") for line in out.splitlines())
    rows = _top_rows(out)
    assert len(rows) == 25
    assert all(name.startswith("white_queen/") and w == 900.0 for _, name, w in rows[:8])
    blocks = out.split("per block\n", 1)[1]
    assert "white_knight" in blocks and "black_king" in blocks and "white_to_move" in blocks
    _assert_png(png)


@pytest.mark.parametrize("content", [b"", b"not a weight file", b"PK\x03\x04 truncated zip"])
def test_show_corrupt_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes
) -> None:
    bad = tmp_path / "bad.npz"
    bad.write_bytes(content)
    assert main(["weights", "show", str(bad)]) == 2
    out, err = capsys.readouterr()
    assert err.startswith("error:") and "bad.npz" in err
    assert "Traceback" not in err and out == ""


def test_show_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["weights", "show", str(tmp_path / "missing.npz")]) == 2
    assert capsys.readouterr().err.startswith("error:")


def test_show_mismatched_layout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A file whose layout hash is not this build's is refused, not misread."""
    path = _preset(tmp_path, capsys, "hand-set")
    with np.load(path) as archive:
        weights, meta = archive["weights"], json.loads(archive["meta"].tobytes().decode())
    meta["layout_hash"] = "0" * 16
    raw = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(path, weights=weights, meta=raw)
    assert main(["weights", "show", str(path)]) == 2
    assert "layout" in capsys.readouterr().err


def test_preset_hand_set_rejects_seed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["weights", "preset", "hand-set", str(tmp_path / "x.npz"), "--seed", "1"]) == 2
    assert capsys.readouterr().err.startswith("error:")
    assert not (tmp_path / "x.npz").exists()


def test_cli_import_stays_light() -> None:
    """``treestrap --help`` must not pay for matplotlib or numba."""
    code = (
        "import sys, treestrap.cli; treestrap.cli.build_parser(); "
        "print(sorted(m for m in ('matplotlib', 'numba') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
