"""The audit of a provenance chain (``treestrap.provenance_audit``): the self-play flag is
computed from the games the chain records, not read; a parent's record must be of its
weights; and ``weights show``, ``tools/ship_preset.py`` and ``bootstrap --from`` all
use it. Files are forged only in temporary folders, from copies of the shipped presets:
no search runs and nothing compiles."""

from __future__ import annotations

import copy
import importlib.util
import re
import sys
from collections.abc import Callable, Iterator
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from treestrap.bootstrap.candidate_record import record_round_cpu, round_cpu_split
from treestrap.bootstrap.start_file import start_record
from treestrap.cli import main
from treestrap.evaluation.provenance import (
    KEY,
    model_parent,
    random_parent,
    tool_record,
    weights_sha256,
)
from treestrap.evaluation.weight_file_format import read_weight_file, write_weight_file
from treestrap.provenance_audit import audit_chain, commit_is_committed, games_fact
from treestrap.reports.provenance import FIT_ONLY, cpu_text

REPO = Path(__file__).resolve().parents[1]
DATA = files("treestrap.evaluation.data")
#: Every shipped weight file, chess's and Connect Four's.
SHIPPED = sorted(p.name.removesuffix(".npz") for p in DATA.iterdir() if p.name.endswith(".npz"))
#: The record of ``zero``'s round 0 (the TreeStrap run its chain starts from).
ZERO_ROUND0 = "18253c216d32"


def _ship_tool() -> Any:
    spec = importlib.util.spec_from_file_location("ship_preset", REPO / "tools/ship_preset.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _shipped(name: str) -> Path:
    return Path(str(DATA / f"{name}.npz"))


def _nodes(node: Any) -> Iterator[dict[str, Any]]:
    """Every mapping in a record, itself first."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _nodes(value)
    elif isinstance(node, list):
        for value in node:
            yield from _nodes(value)


def _claim_self_play(record: dict[str, Any]) -> None:
    """A hand's edit: every flag in the chain set to true."""
    for node in _nodes(record):
        if "self_play_only" in node:
            node["self_play_only"] = True


def _forge(
    name: str, tmp_path: Path, edit: Callable[[dict[str, Any]], None], extra: dict | None = None
) -> Path:
    """A copy of a shipped preset with its metadata edited by ``edit`` (the record) and
    ``extra`` (more metadata), written by the weight-file writer into ``tmp_path``."""
    meta, weights = read_weight_file(_shipped(name))
    meta = copy.deepcopy(meta)
    edit(meta["metadata"][KEY])
    meta["metadata"].update(extra or {})
    out = tmp_path / f"forged-{name}.npz"
    write_weight_file(out, weights, meta)
    return out


def _audit(path: Path) -> Any:
    meta, weights = read_weight_file(path)
    return audit_chain(meta["metadata"].get(KEY), weights_sha256(weights))


def _show(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["weights", "show", str(path), "--top", "0"]) == 0
    return capsys.readouterr().out


def _hand_set_in_round0(record: dict[str, Any]) -> None:
    """``zero``'s chain with half of its round 0 games against hand-set, every flag true."""
    for node in _nodes(record):
        if str(node.get("sha256", "")).startswith(ZERO_ROUND0) and "games" in node:
            node["games"] = {"hand-set": 3000, "self-play": 3000}
    _claim_self_play(record)


# -- the flag is computed ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["zero", "zero5", "connect4-zero", "self-play-net"])
def test_a_self_play_chain_audits_as_self_play_only(name: str) -> None:
    audit = _audit(_shipped(name))
    assert audit.self_play_only and audit.claimed and audit.why_not is None
    assert audit.problems == () and audit.verdict() == "yes"


def test_learned_is_not_self_play_by_the_games_its_chain_records() -> None:
    audit = _audit(_shipped("learned"))
    assert not audit.self_play_only and audit.claimed is False
    assert audit.why_not == "games against hand-set 3,446" and audit.passes


def test_a_forged_flag_is_shown_as_hand_edited(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    forged = _forge("learned", tmp_path, _claim_self_play)
    audit = _audit(forged)
    assert not audit.self_play_only and audit.claimed
    assert audit.verdict() == "no (the record claims yes: a hand-edited flag)"
    shown = _show(forged, capsys)
    assert "self-play only: no (the record claims yes: a hand-edited flag)" in shown
    assert "PROBLEM this file: the record claims self-play only" in shown
    assert "(games against hand-set 3,446): a hand-edited flag" in shown


def test_a_flag_forged_deep_in_the_chain_is_found(tmp_path: Path) -> None:
    forged = _forge("zero", tmp_path, _hand_set_in_round0)
    audit = _audit(forged)
    assert not audit.self_play_only and audit.why_not == "games against hand-set 3,000"
    assert all("hand-edited flag" in line for line in audit.problems)
    assert any(line.startswith("self-play data weights.npz") for line in audit.problems)


def test_a_parent_record_of_other_weights_breaks_the_chain(tmp_path: Path) -> None:
    def swap(record: dict[str, Any]) -> None:
        record["parents"][0]["provenance"]["sha256"] = "0" * 64

    audit = _audit(_forge("zero", tmp_path, swap))
    assert not audit.self_play_only
    assert any("its record is of other weights" in line for line in audit.problems)


def test_a_writer_computes_a_parent_flag_from_its_record_not_its_stored_flag() -> None:
    weights = np.arange(3, dtype=np.float64)
    start = random_parent("start", 0, 1.0, np.zeros(3))
    record = tool_record("treestrap train", 0.0)
    record.update(sha256=weights_sha256(weights), games={"self-play": 2}, parents=[start])
    record["self_play_only"] = True
    assert model_parent("start", "a.npz", weights, {KEY: record})["self_play_only"] is True
    # a record of other weights, or games against another player, whatever the flag says
    assert model_parent("start", "a.npz", weights + 1, {KEY: record})["self_play_only"] is False
    record["games"] = {"self-play": 1, "hand-set": 1}
    assert model_parent("start", "a.npz", weights, {KEY: record})["self_play_only"] is False


def test_material_noise_is_not_a_self_play_root(tmp_path: Path) -> None:
    out = tmp_path / "material.npz"
    argv = ["weights", "random-perspective", str(out), "--width", "8", "--material"]
    assert main(argv) == 0
    audit = _audit(out)
    assert not audit.self_play_only and audit.problems == ()
    assert audit.why_not == "random noise around the hand-set material"


# -- shipping and starting refuse what the audit finds ------------------------------------


def test_ship_refuses_a_forged_flag_in_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tool = _ship_tool()
    forged = _forge("learned", tmp_path, _claim_self_play)
    with pytest.raises(ValueError, match="a hand-edited flag"):
        tool.ship(forged, "trial", data=tmp_path / "data")
    monkeypatch.setattr(sys, "argv", ["ship_preset.py", str(forged), "--preset", "trial"])
    assert tool.main() == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "hand-edited flag" in err[0]
    assert not (tmp_path / "data" / "trial.npz").exists()


def test_ship_refuses_a_file_made_from_uncommitted_code(tmp_path: Path) -> None:
    ship = _ship_tool().ship
    data = tmp_path / "data"
    # zero5's own step is committed code; the dirty commits deeper in its chain are told
    assert ship(_shipped("zero5"), "trial", data=data).is_file()
    with pytest.raises(ValueError, match=r"uncommitted code \(commit 8eabd33-dirty\)"):
        ship(_shipped("zero"), "trial", data=data)

    def unknown(record: dict[str, Any]) -> None:
        record["commit"] = "unknown"

    with pytest.raises(ValueError, match=r"uncommitted code \(commit unknown\)"):
        ship(_forge("zero5", tmp_path, unknown), "trial", data=data)
    assert [commit_is_committed(c) for c in ("aeea331", "8eabd33-dirty", "unknown", None)] == [
        True,
        False,
        False,
        False,
    ]


def test_bootstrap_from_refuses_a_forged_chain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    forged = _forge("zero", tmp_path, _hand_set_in_round0)
    with pytest.raises(ValueError, match="a hand-edited flag"):
        start_record(forged, "chess")
    run = tmp_path / "run"
    argv = ["bootstrap", "--budget", "smoke", "--quiet", "--out", str(run), "--from", str(forged)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: --from ") and "hand-edited" in err[0]
    assert not run.exists()


def test_bootstrap_from_refuses_a_forged_learned_copy(tmp_path: Path) -> None:
    run_record = read_weight_file(_shipped("zero"))[0]["metadata"]["bootstrap"]
    forged = _forge("learned", tmp_path, _claim_self_play, {"bootstrap": run_record})
    with pytest.raises(ValueError, match="games against hand-set 3,446"):
        start_record(forged, "chess")
    honest = _forge("learned", tmp_path, lambda record: None, {"bootstrap": run_record})
    with pytest.raises(ValueError, match="not self-play only"):
        start_record(honest, "chess")


def test_bootstrap_from_takes_the_shipped_self_play_presets() -> None:
    for name in ("zero", "zero5"):
        assert start_record(_shipped(name), "chess")["game"] == "chess"


# -- facts the audit tells ----------------------------------------------------------------


def test_the_self_play_net_teacher_s_games_disagree_with_its_command() -> None:
    facts = _audit(_shipped("self-play-net")).facts
    teacher = "teacher runs/self-play-net/linear/weights.npz (sha256 74b935b375492812)"
    assert facts == (
        f"{teacher}: made from uncommitted code: commit 00b0a06-dirty",
        f"{teacher}: 8,000 games where its command asks --games 5000, and no resume is recorded",
    )


def test_games_are_checked_against_the_last_command_that_set_them() -> None:
    command = "treestrap train --games 5000 --out r"
    resumed = [{"command": "treestrap train --resume r --games=8000", "after_games": 5000}]
    assert games_fact({"command": command, "games": {"self-play": 5000}}) is None
    resumed_run = {"command": command, "games": {"self-play": 8000}, "resumed": resumed}
    assert games_fact(resumed_run) is None
    assert games_fact({"command": "treestrap bootstrap", "games": {"self-play": 9}}) is None
    said = games_fact({"command": command, "games": {"self-play": 7000}, "resumed": resumed})
    assert said == "7,000 games where its last resume asks --games 8000"


def test_show_labels_uncommitted_code_and_passes_a_clean_chain(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shown = _show(_shipped("zero"), capsys)
    assert "audit: no problem, 2 facts to know" in shown
    assert "known: this file: made from uncommitted code: commit 8eabd33-dirty" in shown
    assert "made from uncommitted code: commit 770e368-dirty" in shown
    assert "audit: passes" in _show(_shipped("learned"), capsys)


def test_every_shipped_file_passes_or_its_findings_are_in_the_docs() -> None:
    """Each shipped file's audit: no problem, its flag as computed, and every fact it
    tells named in docs/provenance.md's table of shipped files, with the file."""
    docs = (REPO / "docs" / "provenance.md").read_text(encoding="utf-8")
    table = docs.split("## Shipped files", 1)[1]
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `([\w-]+)\.npz` \|.*$", table, re.M)}
    assert set(rows) == set(SHIPPED)
    for name in SHIPPED:
        audit = _audit(_shipped(name))
        assert audit.problems == () and audit.claimed == audit.self_play_only, name
        for fact in audit.facts:
            commit = re.search(r"commit (\S+)$", fact)
            told = commit.group(1) if commit else re.search(r"--games \d+", fact).group(0)
            assert told in rows[name], (name, fact)
        if audit.passes:
            assert "passes" in rows[name], name


# -- a bootstrap round's CPU time is all of it ------------------------------------------------


def _candidate(path: Path, cpu: float) -> np.ndarray:
    weights = np.arange(5, dtype=np.float64)
    record = tool_record("treestrap bootstrap", cpu)
    record.update(sha256=weights_sha256(weights), games={"self-play": 10}, positions=99)
    meta = {"format": "treestrap-weights", "version": 1, "model": "linear"}
    write_weight_file(path, weights, {**meta, "metadata": {KEY: record}})
    return weights


def test_a_candidate_records_its_round_s_cpu_time_with_its_split(tmp_path: Path) -> None:
    path = tmp_path / "candidate.npz"
    weights = _candidate(path, 7200.0)
    before = read_weight_file(path)[0]["metadata"][KEY]
    assert cpu_text(before) == f"2.00 CPU hours ({FIT_ONLY})"
    record_round_cpu(path, round_cpu_split(3600.0, 7200.0, 1800.0))
    meta, stored = read_weight_file(path)
    record = meta["metadata"][KEY]
    assert record["cpu_seconds"] == 12600.0
    assert record["cpu_split"] == {"selfplay": 3600.0, "fit": 7200.0, "gate": 1800.0}
    assert record["sha256"] == weights_sha256(stored) == weights_sha256(weights)
    assert cpu_text(record) == "3.50 CPU hours (selfplay 1.00, fit 2.00, gate 0.50)"
    written = path.read_bytes()
    record_round_cpu(path, round_cpu_split(3600.0, 7200.0, 1800.0))  # a resumed round
    assert path.read_bytes() == written


def test_a_shipped_round_without_a_split_reads_as_its_fit_with_the_run_s_total(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shown = _show(_shipped("zero5"), capsys)
    assert f"0.98 CPU hours ({FIT_ONLY})" in shown and FIT_ONLY.startswith("fit only")
    assert "the run to round 9: 21.59 CPU hours from random weights" in shown
