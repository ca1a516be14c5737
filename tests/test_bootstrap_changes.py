"""``treestrap bootstrap --set KEY=VALUE``: a change to a run's budget is checked,
recorded with the round it starts from, and never reaches a round already begun."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from treestrap.bootstrap.budget_changes import (
    ROUND_BUDGET_FILE,
    changed_budget,
    parse_setting,
    round_budget,
)
from treestrap.bootstrap.budgets import BUDGETS, Budget
from treestrap.bootstrap.chunks import chunk_path
from treestrap.bootstrap.pipeline import (
    ROUNDS_FILE,
    SETTINGS_FILE,
    open_run,
    round_data_files,
    round_dir,
)
from treestrap.bootstrap.provider import bootstrap_provider
from treestrap.cli import main

STANDARD = BUDGETS["standard"]
CHESS = bootstrap_provider("chess")


def test_a_setting_parses_to_a_key_and_a_json_value() -> None:
    assert parse_setting("gate.max_games=800") == ("gate.max_games", 800)
    assert parse_setting("fit.lr = 0.0005") == ("fit.lr", 0.0005)
    assert parse_setting("fit.from_previous=false") == ("fit.from_previous", False)
    assert parse_setting("gate.tc=5+0.05") == ("gate.tc", "5+0.05")
    for bad in ("gate.max_games", "=3", "gate.max_games="):
        with pytest.raises(ValueError, match="KEY=VALUE"):
            parse_setting(bad)


def test_a_change_is_checked_against_the_budget() -> None:
    budget = STANDARD.to_json()
    new = changed_budget(budget, [("gate.max_games", 800), ("fit.lr", 1), ("rounds", 20)])
    assert (new["gate"]["max_games"], new["fit"]["lr"], new["rounds"]) == (800, 1.0, 20)
    assert budget == STANDARD.to_json()  # the original is left as it was
    assert Budget.from_json(new).gate.max_games == 800
    # a key given twice takes its last value, as on most command lines
    twice = changed_budget(budget, [("fit.width", 512), ("fit.width", 1024)])
    assert twice["fit"]["width"] == 1024
    with pytest.raises(ValueError, match="no such setting"):
        changed_budget(budget, [("gate.max_gmes", 800)])
    with pytest.raises(ValueError, match="no such setting"):
        changed_budget(budget, [("gate", 800)])
    with pytest.raises(ValueError, match="fixed"):
        changed_budget(budget, [("selfplay.chunk", 100)])
    with pytest.raises(ValueError, match="expected a int"):
        changed_budget(budget, [("gate.max_games", "many")])
    with pytest.raises(ValueError, match="expected a int"):
        changed_budget(budget, [("gate.max_games", True)])


def _run_in_round_one(tmp_path: Path) -> Path:
    """A run of the standard budget with round 0 finished and round 1's self-play begun."""
    run = tmp_path / "run"
    open_run(run, STANDARD, 0, "treestrap bootstrap --out run", CHESS)
    (run / ROUNDS_FILE).write_text(json.dumps({"round": 0, "accepted": True}) + "\n")
    (round_dir(run, 1) / "data").mkdir(parents=True)
    chunk_path(round_dir(run, 1) / "data", 0).touch()
    return run


def _round_one(run: Path) -> Budget:
    return Budget.from_json(json.loads((round_dir(run, 1) / ROUND_BUDGET_FILE).read_text()))


def test_a_change_reaches_the_round_in_progress_only_where_its_step_has_not_begun(
    tmp_path: Path,
) -> None:
    run = _run_in_round_one(tmp_path)
    command = "treestrap bootstrap --out run --set gate.max_games=800"
    budget = open_run(run, STANDARD, 0, command, CHESS, [("gate.max_games", 800)])
    assert budget.gate.max_games == 800
    settings = json.loads((run / SETTINGS_FILE).read_text())
    assert settings["budget"]["gate"]["max_games"] == 800
    # round 1's gate has not begun: the change reaches it
    assert settings["changes"] == [
        {"from_round": 1, "set": {"gate.max_games": 800}, "command": command}
    ]
    assert _round_one(run).gate.max_games == 800
    # its self-play has begun: a change to it waits for round 2
    open_run(run, STANDARD, 0, "more games", CHESS, [("selfplay.games", 6000)])
    assert _round_one(run).selfplay.games == STANDARD.selfplay.games
    read = CHESS.budget_from_json
    new = json.loads((run / SETTINGS_FILE).read_text())["budget"]
    assert round_budget(round_dir(run, 2), new, read).selfplay.games == 6000
    # once round 1's gate has begun, a gate change waits for round 2 too
    (round_dir(run, 1) / "gate").mkdir()
    open_run(run, STANDARD, 0, "longer", CHESS, [("gate.max_games", 900)])
    open_run(run, STANDARD, 0, "resume", CHESS)  # a resume without --set changes nothing
    # nor one that gives again a setting the run already has (only the new one counts)
    again = [("gate.max_games", 900), ("selfplay.games", 6000), ("fit.epochs", 20)]
    open_run(run, STANDARD, 0, "again", CHESS, again)
    assert _round_one(run).gate.max_games == 800
    settings = json.loads((run / SETTINGS_FILE).read_text())
    assert [(c["from_round"], c["set"]) for c in settings["changes"]] == [
        (1, {"gate.max_games": 800}),
        (2, {"selfplay.games": 6000}),
        (2, {"gate.max_games": 900}),
        (1, {"fit.epochs": 20}),  # round 1 has not begun its fit
    ]
    assert settings["budget"]["gate"]["max_games"] == 900


def test_settings_given_together_each_reach_the_first_round_their_step_allows(
    tmp_path: Path,
) -> None:
    run = _run_in_round_one(tmp_path)  # its self-play has begun, its fit not
    both = [("selfplay.games", 6000), ("fit.epochs", 20)]
    open_run(run, STANDARD, 0, "both", CHESS, both)
    assert _round_one(run).fit.epochs == 20
    assert _round_one(run).selfplay.games == STANDARD.selfplay.games
    settings = json.loads((run / SETTINGS_FILE).read_text())
    assert [(c["from_round"], c["set"], c["command"]) for c in settings["changes"]] == [
        (1, {"fit.epochs": 20}, "both"),
        (2, {"selfplay.games": 6000}, "both"),
    ]


def test_a_run_from_before_a_setting_existed_takes_a_change_to_it(tmp_path: Path) -> None:
    """A run whose files were written before ``fit.result_weight_rise`` existed has it
    at its default, and a ``--set`` of it reaches the round in progress."""
    run = _run_in_round_one(tmp_path)
    settings = json.loads((run / SETTINGS_FILE).read_text())
    del settings["budget"]["fit"]["result_weight_rise"]
    (run / SETTINGS_FILE).write_text(json.dumps(settings))
    pinned = json.loads(json.dumps(settings["budget"]))
    (round_dir(run, 1) / ROUND_BUDGET_FILE).write_text(json.dumps(pinned))
    assert _round_one(run).fit.result_weight_rise == 0.0
    open_run(run, STANDARD, 0, "rise", CHESS, [("fit.result_weight_rise", 0.5)])
    assert _round_one(run).fit.result_weight_rise == 0.5
    settings = json.loads((run / SETTINGS_FILE).read_text())
    assert settings["budget"]["fit"]["result_weight_rise"] == 0.5
    assert settings["changes"][-1]["set"] == {"fit.result_weight_rise": 0.5}


def test_a_bad_change_is_refused_and_leaves_the_run_as_it_was(tmp_path: Path) -> None:
    run = _run_in_round_one(tmp_path)
    before = (run / SETTINGS_FILE).read_text()
    with pytest.raises(ValueError, match="no such setting"):
        open_run(run, STANDARD, 0, "bad", CHESS, [("gate.nope", 1)])
    assert (run / SETTINGS_FILE).read_text() == before
    assert not (round_dir(run, 1) / ROUND_BUDGET_FILE).exists()  # nothing pinned either
    code = main(["bootstrap", "--out", str(run), "--quiet", "--set", "fit.width=wide"])
    assert code == 2
    assert (run / SETTINGS_FILE).read_text() == before


def test_a_fit_reads_every_chunk_a_finished_round_played(tmp_path: Path) -> None:
    """Rounds played with another number of games a round still feed the fit whole."""
    run = tmp_path / "run"
    counts = {1: 3, 2: 5}
    for number, count in counts.items():
        data = round_dir(run, number) / "data"
        data.mkdir(parents=True)
        for i in range(count):
            chunk_path(data, i).touch()
    budget = changed_budget(STANDARD.to_json(), [("selfplay.games", 200)])  # 4 chunks of 50
    current = round_dir(run, 3) / "data"
    current.mkdir(parents=True)
    for i in range(4):
        chunk_path(current, i).touch()
    (current / "chunk-0001.tspos.77.tmp").touch()  # a chunk being written is not data
    train, held_out = round_data_files(run, 3, Budget.from_json(budget))
    assert held_out == [chunk_path(current, 3)]
    assert len(train) == 3 + 5 + 3 and chunk_path(current, 3) not in train
    assert all(path.suffix == ".tspos" for path in train)
