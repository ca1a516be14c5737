"""``treestrap weights average``: the mean of weight files of one shape, with a record
whose parents are the files; models that do not average, or files of another shape,
are refused with one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from treestrap.cli import main
from treestrap.evaluation.provenance import KEY, weights_sha256
from treestrap.games.connect4_model import load_connect4_model
from treestrap.games.connect4_ntuple import random_connect4_ntuple
from treestrap.training.connect4_ntuple_run import NTupleSettings, train_ntuple


def _runs(tmp_path: Path) -> list[Path]:
    files = []
    for member in range(2):
        settings = NTupleSettings(model="ntuple:6x4", games=800, chunk=400, seed=3, member=member)
        train_ntuple(tmp_path / f"m{member}", settings)
        files.append(tmp_path / f"m{member}" / "weights.npz")
    return files


def test_the_mean_of_two_runs_and_its_record(tmp_path, capsys) -> None:
    files = _runs(tmp_path)
    out = tmp_path / "mean.npz"
    assert main(["weights", "average", *map(str, files), "--out", str(out)]) == 0
    assert "the mean of 2 files, self-play only: yes" in capsys.readouterr().out
    tables = [load_connect4_model(f).tables for f in files]
    mean = load_connect4_model(out)
    assert np.allclose(mean.tables, (tables[0] + tables[1]) / 2)
    assert (mean.tuples == load_connect4_model(files[0]).tuples).all()
    record = mean.metadata[KEY]
    assert record["sha256"] == weights_sha256(mean.tables)
    assert [p["sha256"] for p in record["parents"]] == [weights_sha256(t) for t in tables]
    assert record["self_play_only"] is True
    assert main(["weights", "show", str(out), "--top", "0"]) == 0
    assert "DIFFERS" not in capsys.readouterr().out


def test_files_that_do_not_average_are_refused(tmp_path, capsys) -> None:
    files = _runs(tmp_path)
    other = tmp_path / "other.npz"
    random_connect4_ntuple(5, 4, seed=1, scale=0.1).save(other)
    argv = ["weights", "average", str(files[0])]
    assert main([*argv, str(other), "--out", str(tmp_path / "x.npz")]) == 2
    assert "differ" in capsys.readouterr().err
    assert main([*argv, "--out", str(tmp_path / "x.npz")]) == 2
    assert "at least two" in capsys.readouterr().err
    net = tmp_path / "net.npz"
    assert main(["weights", "random-perspective", str(net), "--width", "8"]) == 0
    assert main(["weights", "average", str(net), str(net), "--out", str(tmp_path / "x.npz")]) == 2
    assert "does not average" in capsys.readouterr().err
    assert not (tmp_path / "x.npz").exists()
    with pytest.raises(SystemExit):
        main(["weights", "average", str(files[0])])  # --out is required
