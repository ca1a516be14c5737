"""The shipped ``zero`` to ``zero5`` presets: perspective networks made by ``treestrap
bootstrap`` from random weights (``RUN/best.npz`` shipped by ``tools/ship_preset.py``;
``zero2``'s run started ``--from zero``, ``zero3``, ``zero4`` and ``zero5`` are later
rounds of the same run). Each one's provenance chain checks against
itself down to random weights drawn again, the run's record in the file agrees with the
chain's figures, and it plays."""

from __future__ import annotations

from typing import Any

import chess
import pytest

from treestrap.cli import main
from treestrap.core.notation import STARTING_FEN, parse_fen
from treestrap.engine.engine import Engine
from treestrap.evaluation.perspective_weights import PerspectiveModel
from treestrap.evaluation.preset_names import BOOTSTRAP_PRESETS, SHIPPED_PRESETS
from treestrap.evaluation.presets import preset_model, random_model
from treestrap.evaluation.provenance import KEY, stored_weights, weights_sha256
from treestrap.play.players import IN_PROCESS, UCI, parse_player
from treestrap.search.timeman import SearchLimits

#: The budget's ceiling from random weights to the shipped network (docs/bootstrap.md).
MAX_CPU_HOURS = 30.0
#: The shipped presets the bootstrap pipeline made, each checked below.
ZERO_PRESETS = BOOTSTRAP_PRESETS


@pytest.fixture(scope="module", params=ZERO_PRESETS)
def zero(request: pytest.FixtureRequest) -> PerspectiveModel:
    model = preset_model(request.param)
    assert isinstance(model, PerspectiveModel)
    return model


def _chain(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Every tool record in the chain below ``record`` (itself first), each once: a
    network is both the data player and the start of the next, so it is reached twice."""
    found = {record["sha256"]: record}
    for parent in record.get("parents", []):
        if "provenance" in parent:
            for below in _chain(parent["provenance"]):
                found.setdefault(below["sha256"], below)
    return list(found.values())


def _roots(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for r in _chain(record) for p in r.get("parents", []) if p.get("kind") == "random"]


def test_it_is_a_bootstrap_network_whose_weights_match_their_record(zero: PerspectiveModel) -> None:
    record = zero.metadata[KEY]
    assert record["tool"] == "treestrap bootstrap"
    assert record["sha256"] == weights_sha256(stored_weights(zero))
    assert record["self_play_only"] is True
    assert zero.metadata["preset"] in ZERO_PRESETS
    assert zero.width >= 256  # 8 times the 32 units of the hybrids (docs/bootstrap.md)


def test_its_chain_goes_back_to_random_weights_drawn_again(zero: PerspectiveModel) -> None:
    record = zero.metadata[KEY]
    roots = _roots(record)
    assert roots, "no random start in the chain"
    for start in roots:
        drawn = random_model(start["feature_set"], seed=start["seed"], scale=start["scale"])
        assert weights_sha256(drawn.weights) == start["sha256"]
    # every step of the chain was made by the bootstrap run (round 0 by its training run)
    tools = {r["tool"] for r in _chain(record)}
    assert tools <= {"treestrap bootstrap", "treestrap train"}
    assert all(r["self_play_only"] for r in _chain(record))


def test_the_runs_record_agrees_with_the_chain(zero: PerspectiveModel) -> None:
    run = zero.metadata["bootstrap"]
    record = zero.metadata[KEY]
    assert run["budget"] == record["budget"] == "standard"
    # the network was fitted by the run's command, or by one that changed its budget
    commands = {run["command"], *(change["command"] for change in run.get("changes", []))}
    assert record["command"] in commands
    assert run["cpu_hours"] == pytest.approx(run["cpu_seconds"] / 3600, abs=0.006)
    assert run["cpu_hours"] <= MAX_CPU_HOURS
    # the run's CPU time covers every fit and training run of the chain, and more
    # (self-play and gates are counted in the run, not in the weight files)
    assert run["cpu_seconds"] > sum(r["cpu_seconds"] for r in _chain(record))
    assert run["round"] >= 1 and run["rounds_accepted"] <= run["rounds_played"]
    assert "accepted (H1)" in run["gate"]


def test_weights_show_by_the_presets_name_prints_the_checked_chain(
    zero: PerspectiveModel, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["weights", "show", zero.metadata["preset"]]) == 0
    shown = capsys.readouterr().out
    assert "provenance (self-play only: yes; weights sha256" in shown
    root = next(line for line in shown.splitlines() if "start: random weights" in line)
    assert root.endswith(": matches")
    assert "DIFFERS" not in shown
    assert "bootstrap: {" in shown


def test_it_plays_as_a_player_and_in_the_engine(zero: PerspectiveModel) -> None:
    name = zero.metadata["preset"]
    spec = parse_player(name)
    assert (spec.kind, spec.preset) == (IN_PROCESS, name)
    uci = parse_player(f"treestrap-uci:{name}")
    assert uci.kind == UCI and uci.options == (("Preset", name),)
    outcome = Engine(zero.evaluator()).go(parse_fen(STARTING_FEN), SearchLimits(depth=4))
    assert chess.Move.from_uci(outcome.best_move) in chess.Board().legal_moves


def test_the_bootstrap_presets_are_every_shipped_file_the_pipeline_wrote(
    capsys: pytest.CaptureFixture[str],
) -> None:
    written = [
        name
        for name in SHIPPED_PRESETS
        if preset_model(name).metadata.get(KEY, {}).get("tool") == "treestrap bootstrap"
    ]
    assert tuple(written) == BOOTSTRAP_PRESETS
    # the help of the options that take them lists them all
    for command in (["bootstrap", "--help"], ["weights", "preset", "--help"]):
        with pytest.raises(SystemExit):
            main(command)
        shown = " ".join(capsys.readouterr().out.split())
        assert ", ".join(BOOTSTRAP_PRESETS) in shown


def test_zero2_was_started_from_the_shipped_zero() -> None:
    zero, zero2 = preset_model("zero"), preset_model("zero2")
    start = zero2.metadata["bootstrap"]["start"]
    assert start["from"] == "zero"
    assert start["bootstrap"]["cpu_seconds"] == zero.metadata["bootstrap"]["cpu_seconds"]
    # its run carried zero's CPU time on: the chain's cost is counted from random weights
    assert zero2.metadata["bootstrap"]["cpu_seconds"] > zero.metadata["bootstrap"]["cpu_seconds"]


@pytest.mark.parametrize(
    ("earlier", "later"), [("zero2", "zero3"), ("zero3", "zero4"), ("zero4", "zero5")]
)
def test_a_later_preset_is_a_later_round_of_the_same_run_built_on_it(
    earlier: str, later: str
) -> None:
    first, then = preset_model(earlier), preset_model(later)
    run1, run2 = first.metadata["bootstrap"], then.metadata["bootstrap"]
    assert (run2["start"], run2["seed"]) == (run1["start"], run1["seed"])
    assert run2["round"] > run1["round"]
    assert run2["cpu_seconds"] > run1["cpu_seconds"]
    # the earlier network is in the later one's chain: its start and its data's player
    chain = {record["sha256"] for record in _chain(then.metadata[KEY])}
    assert weights_sha256(stored_weights(first)) in chain
    # the run's recorded change of the result weight reaches the later round
    changes = [c for c in run2["changes"] if "fit.result_weight" in c["set"]]
    assert changes and changes[0]["from_round"] <= run2["round"]


def test_zero5_is_twice_as_wide_and_fitted_afresh_to_zero4s_games() -> None:
    """A network of another width cannot start from ``zero4``'s: its one parent is the
    player of its data, and the run's recorded change of width reaches its round."""
    zero4, zero5 = preset_model("zero4"), preset_model("zero5")
    assert (zero4.width, zero5.width) == (256, 512)
    parents = zero5.metadata[KEY]["parents"]
    assert [p["role"] for p in parents] == ["self-play data"]
    assert parents[0]["sha256"] == weights_sha256(stored_weights(zero4))
    run = zero5.metadata["bootstrap"]
    widths = [c for c in run["changes"] if "fit.width" in c["set"]]
    assert widths[0]["set"]["fit.width"] == 512 and widths[0]["from_round"] <= run["round"]
