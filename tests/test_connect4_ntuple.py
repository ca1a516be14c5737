"""The n-tuple evaluation of Connect Four: its tuples, its value against a plain count,
its TD(lambda) self-play against a plain replica, its weight file, its search, and its
run's resumption."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from test_connect4_search import negamax, random_positions

from treestrap.connect4.bits import HEIGHT, WIDTH
from treestrap.connect4.board import (
    ST_PLY,
    ST_WON,
    Position,
    make_move,
    new_position,
    parse_moves,
    unmake_move,
)
from treestrap.connect4.network import POINTS_PER_LOGIT
from treestrap.connect4.ntuple import random_walk_tuples, table_size, tuple_cells
from treestrap.connect4.ntuple_td import STAT_NB, play_games
from treestrap.connect4.search import Connect4Search
from treestrap.evaluation.provenance import weights_sha256
from treestrap.evaluation.weight_file_format import WeightFileError, read_weight_file
from treestrap.evaluation.weight_files import load_weights
from treestrap.games.connect4_model import load_connect4_model
from treestrap.games.connect4_ntuple import (
    Connect4NTupleModel,
    parse_ntuple_spec,
    random_connect4_ntuple,
)
from treestrap.training import connect4_ntuple_run as ntuple_run
from treestrap.training.connect4_ntuple_run import NTupleSettings, train_ntuple


def plain_states(pos: Position) -> list[int]:
    """Each cell's state, counted from the discs: 0 empty and unreachable, 1 playable,
    2 first player, 3 second player."""
    states = []
    for col in range(WIDTH):
        for row in range(HEIGHT):
            bit = 1 << (col * (HEIGHT + 1) + row)
            if int(pos.discs[0]) & bit:
                states.append(2)
            elif int(pos.discs[1]) & bit:
                states.append(3)
            elif row == 0 or states[-1] >= 2:
                states.append(1)
            else:
                states.append(0)
    return states


def plain_sum(model: Connect4NTupleModel, states: list[int]) -> float:
    """``z``: every tuple read through its cells and through their mirror images."""
    length = model.tuples.shape[1]
    z = 0.0
    for t, cells in enumerate(model.tuples.tolist()):
        for image in (cells, [(WIDTH - 1 - c // HEIGHT) * HEIGHT + c % HEIGHT for c in cells]):
            k = 0
            for c in image:
                k = k * 4 + states[c]
            z += float(model.tables[t * table_size(length) + k])
    return z


def mirror(pos: Position) -> Position:
    moves = [int(m) for m in pos.moves[: int(pos.st[ST_PLY])]]
    return parse_moves("".join(str(WIDTH - m) for m in moves))


def test_tuples_are_distinct_walks_and_reproducible() -> None:
    tuples = random_walk_tuples(30, 6, seed=5)
    assert tuples.shape == (30, 6)
    assert np.array_equal(tuples, random_walk_tuples(30, 6, seed=5))
    assert not np.array_equal(tuples, random_walk_tuples(30, 6, seed=6))
    seen = set()
    for cells in tuples.tolist():
        assert len(set(cells)) == 6 and all(0 <= c < 42 for c in cells)
        for a, b in itertools.pairwise(cells):
            assert max(abs(a // HEIGHT - b // HEIGHT), abs(a % HEIGHT - b % HEIGHT)) == 1
        key = frozenset(cells)
        mirrored = frozenset((WIDTH - 1 - c // HEIGHT) * HEIGHT + c % HEIGHT for c in cells)
        assert key not in seen and mirrored not in seen
        seen.add(key)
    with pytest.raises(ValueError, match="length"):
        random_walk_tuples(3, 11, seed=0)


def test_value_is_the_plain_sum_for_the_side_to_move_and_mirror_symmetric() -> None:
    model = random_connect4_ntuple(12, 5, seed=3, scale=1.0)
    for pos in random_positions(40, seed=11, max_plies=30):
        z = plain_sum(model, plain_states(pos))
        side = 1.0 if int(pos.st[ST_PLY]) % 2 == 0 else -1.0
        assert model.evaluate(pos) == pytest.approx(side * POINTS_PER_LOGIT * z, rel=1e-12)
        assert model.evaluate(mirror(pos)) == pytest.approx(model.evaluate(pos), rel=1e-9)


def _plain_td(
    model: Connect4NTupleModel,
    games: int,
    alpha: float,
    lam: float,
    coherent: bool,
    gamma: float = 1.0,
) -> None:
    """TD(lambda) self-play without exploration, as the module's docstring says it."""
    net = [0.0] * model.tables.size
    total = [0.0] * model.tables.size
    length = model.tuples.shape[1]
    size = table_size(length)

    def reads(states: list[int]) -> list[int]:
        out = []
        for t, cells in enumerate(model.tuples.tolist()):
            for image in (cells, [(WIDTH - 1 - c // HEIGHT) * HEIGHT + c % HEIGHT for c in cells]):
                k = 0
                for c in image:
                    k = k * 4 + states[c]
                out.append(t * size + k)
        return out

    for _ in range(games):
        pos = new_position()
        played, values, greedy = [], [], []
        result = 0.0
        while True:
            sign = 1.0 if int(pos.st[ST_PLY]) % 2 == 0 else -1.0
            best, best_value = -1, -2.0
            for col in (3, 4, 2, 5, 1, 6, 0):
                if int(pos.heights[col]) == HEIGHT:
                    continue
                make_move(pos, col)
                if pos.st[ST_WON]:
                    v = sign
                elif int(pos.st[ST_PLY]) == 42:
                    v = 0.0
                else:
                    v = math.tanh(sum(model.tables[i] for i in reads(plain_states(pos))))
                unmake_move(pos)
                if sign * v > best_value:
                    best, best_value = col, sign * v
            greedy.append(sign * best_value)
            make_move(pos, best)
            if pos.st[ST_WON]:
                result = sign
                break
            if int(pos.st[ST_PLY]) == 42:
                break
            at = reads(plain_states(pos))
            played.append(at)
            values.append(math.tanh(sum(model.tables[i] for i in at)))
        ret = result
        for t in range(len(played) - 1, -1, -1):
            ret = gamma * ((1 - lam) * greedy[t + 1] + lam * ret)
            step = (ret - values[t]) * (1 - values[t] ** 2)
            for i in played[t]:
                rate = abs(net[i]) / total[i] if coherent and total[i] > 0 else 1.0
                model.tables[i] += alpha * rate * step
                net[i] += step
                total[i] += abs(step)


@pytest.mark.parametrize(("coherent", "gamma"), [(False, 1.0), (True, 1.0), (False, 0.9)])
def test_td_self_play_matches_a_plain_replica(coherent: bool, gamma: float) -> None:
    compiled = random_connect4_ntuple(6, 4, seed=2, scale=0.3)
    plain = Connect4NTupleModel(compiled.tuples, compiled.tables.copy())
    stats = np.zeros(STAT_NB, dtype=np.int64)
    sums = np.zeros(compiled.tables.size if coherent else 1)
    cells = tuple_cells(compiled.tuples)
    play_games(
        new_position(),
        compiled.tables,
        cells,
        3,
        0.05,
        0.6,
        gamma,
        0.0,
        1,
        stats,
        sums,
        sums.copy(),
        0,
    )
    _plain_td(plain, 3, 0.05, 0.6, coherent, gamma)
    assert stats[0] + stats[1] + stats[2] == 3
    assert not np.array_equal(plain.tables, random_connect4_ntuple(6, 4, seed=2, scale=0.3).tables)
    np.testing.assert_allclose(compiled.tables, plain.tables, rtol=0, atol=1e-12)


def test_exploration_and_learning_move_the_first_player_towards_the_centre() -> None:
    """A few thousand games teach the empty board's value of the centre column."""
    model = Connect4NTupleModel(random_walk_tuples(20, 6, seed=1), np.zeros(20 * table_size(6)))
    stats = np.zeros(STAT_NB, dtype=np.int64)
    play_games(
        new_position(),
        model.tables,
        tuple_cells(model.tuples),
        20000,
        0.01,
        0.5,
        1.0,
        0.1,
        4,
        stats,
        np.zeros(1),
        np.zeros(1),
        0,
    )
    assert stats[3] > 0  # exploratory moves were played
    values = []
    for col in range(WIDTH):
        pos = new_position()
        make_move(pos, col)
        values.append(-model.evaluate(pos))  # for the first player
    assert int(np.argmax(values)) == 3


def test_file_round_trip_and_refusals(tmp_path) -> None:
    model = random_connect4_ntuple(5, 3, seed=4, scale=1.0)
    model.metadata = {"note": "x"}
    path = tmp_path / "nt.npz"
    model.save(path)
    back = load_connect4_model(path)
    assert isinstance(back, Connect4NTupleModel)
    assert np.array_equal(back.tuples, model.tuples) and np.array_equal(back.tables, model.tables)
    assert back.metadata == {"note": "x"} and back.spec == "ntuple:5x3"
    pos = parse_moves("4453")
    assert back.evaluate(pos) == model.evaluate(pos)
    with pytest.raises(WeightFileError, match="not chess weights"):
        load_weights(path)  # chess's loader
    meta, tables = read_weight_file(path)
    from treestrap.evaluation.weight_file_format import write_weight_file

    write_weight_file(tmp_path / "short.npz", tables[:-1], {**meta, "shape": [tables.size - 1]})
    with pytest.raises(WeightFileError, match="table entries"):
        load_connect4_model(tmp_path / "short.npz")
    write_weight_file(tmp_path / "cells.npz", tables, {**meta, "tuples": [[0, 1, 99]] * 5})
    with pytest.raises(WeightFileError, match="0-41"):
        load_connect4_model(tmp_path / "cells.npz")
    for bad in ("ntuple:70", "ntuple:0x8", "ntuple:4x11", "ntuple:ax3"):
        with pytest.raises(ValueError):
            parse_ntuple_spec(bad)


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_search_over_tuples_equals_plain_negamax(depth: int) -> None:
    ev = random_connect4_ntuple(10, 5, seed=depth, scale=0.5).evaluator()
    search = Connect4Search(tt_bits=14)
    for pos in random_positions(5, seed=20 + depth):
        assert search.search(pos, ev, depth).value == negamax(pos, ev, depth)


def _tables(run) -> np.ndarray:
    return load_connect4_model(run / "weights.npz").tables


@pytest.mark.parametrize("coherence", [False, True])
def test_a_killed_run_resumes_to_the_same_tables(tmp_path, monkeypatch, coherence: bool) -> None:
    settings = NTupleSettings(
        model="ntuple:6x4", games=2000, chunk=400, seed=9, coherence=coherence
    )
    straight = train_ntuple(tmp_path / "straight", settings)
    assert (
        straight.games == 2000
        and straight.first_wins + straight.draws + straight.second_wins == 2000
    )

    monkeypatch.setattr(ntuple_run, "SAVE_EVERY", 0.0)

    def kill(state) -> None:
        if state.games == 1200:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_ntuple(tmp_path / "killed", settings, on_chunk=kill)
    # a kill after the metrics line and before the tables: the line goes on resume
    with (tmp_path / "killed" / "metrics.jsonl").open("a") as fh:
        fh.write(json.dumps({"games": 1600}) + "\n")
    with pytest.raises(ValueError, match="already holds a run"):
        train_ntuple(tmp_path / "killed", settings)
    assert ntuple_run.saved_games(tmp_path / "killed") == 1200
    resumed = train_ntuple(tmp_path / "killed", resume=True)
    assert resumed.games == 2000
    assert np.array_equal(_tables(tmp_path / "straight"), _tables(tmp_path / "killed"))
    lines = [
        json.loads(x) for x in (tmp_path / "killed" / "metrics.jsonl").read_text().splitlines()
    ]
    assert [x["games"] for x in lines] == [400, 800, 1200, 1600, 2000]
    meta = load_connect4_model(tmp_path / "killed" / "weights.npz").metadata
    assert meta["run_state"]["games"] == 2000 and meta["init"] == "random"
    record = meta["provenance"]
    assert record["self_play_only"] is True and record["games"] == {"self-play": 2000}
    assert record["sha256"] == weights_sha256(_tables(tmp_path / "killed"))
    (start,) = record["parents"]
    drawn = random_connect4_ntuple(6, 4, seed=start["seed"], scale=start["scale"])
    assert weights_sha256(drawn.tables) == start["sha256"] and not drawn.tables.any()
    assert meta["settings"]["model"] == "ntuple:6x4" and meta["run_state"]["cpu_seconds"] > 0
    kept = sorted(p.name for p in (tmp_path / "killed").glob("coherence-*.npz"))
    assert kept == (["coherence-2000.npz"] if coherence else [])


def test_settings_refuse_what_cannot_run() -> None:
    with pytest.raises(ValueError, match="lambda"):
        NTupleSettings(lam=1.5)
    for gamma in (0.0, 1.01):
        with pytest.raises(ValueError, match="gamma"):
            NTupleSettings(gamma=gamma)
    with pytest.raises(ValueError, match="step sizes"):
        NTupleSettings(alpha=0.0)
    with pytest.raises(ValueError):
        NTupleSettings(model="ntuple:3")
    assert NTupleSettings(games=100).at(0) == (0.004, 0.1)
    alpha, eps = NTupleSettings(games=100).at(100)
    assert alpha == pytest.approx(0.001) and eps == pytest.approx(0.01)


def test_random_openings_are_exploration_and_only_when_asked() -> None:
    model = random_connect4_ntuple(6, 4, seed=7, scale=0.1)
    cells = tuple_cells(model.tuples)
    counts = []
    for opening in (0, 6):
        stats = np.zeros(STAT_NB, dtype=np.int64)
        tables = model.tables.copy()
        play_games(
            new_position(), tables, cells, 50, 0.01, 0.5, 1.0, 0.0, 3, stats, *_off(), opening
        )
        counts.append(int(stats[3]))
    assert counts[0] == 0 and counts[1] > 0
    with pytest.raises(ValueError, match="opening_plies"):
        NTupleSettings(opening_plies=21)


def _off() -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(1), np.zeros(1)


def test_the_ntuple_smoke_budget_end_to_end_and_its_refusals(tmp_path) -> None:
    from treestrap.cli import main

    run = tmp_path / "run"
    argv = ["bootstrap", "--game", "connect4", "--budget", "ntuple-smoke", "--quiet"]
    assert main([*argv, "--out", str(run)]) == 0
    best = load_connect4_model(run / "best.npz")
    assert isinstance(best, Connect4NTupleModel) and best.spec == "ntuple:8x4"
    record = best.metadata["bootstrap"]
    assert record["budget"] == "ntuple-smoke" and record["rounds_played"] == 1
    assert best.metadata["provenance"]["games"] == {"self-play": 2000}
    assert "ntuple:8x4 (connect4, TD(lambda) self-play)" in (run / "report.md").read_text()
    tables = best.tables.copy()
    assert main([*argv, "--out", str(run)]) == 0  # finished: the same line changes nothing
    assert np.array_equal(load_connect4_model(run / "best.npz").tables, tables)
    # no later rounds, and no n-tuple budget for chess
    assert main([*argv, "--out", str(tmp_path / "r"), "--set", "rounds=1"]) == 2
    assert main(["bootstrap", "--budget", "ntuple", "--out", str(tmp_path / "c")]) == 2


def test_a_run_of_members_averages_runs_that_differ_only_in_their_games(
    tmp_path, monkeypatch
) -> None:
    one = NTupleSettings(model="ntuple:6x4", games=1200, chunk=400, seed=9)
    train_ntuple(tmp_path / "one", one)
    settings = NTupleSettings(model="ntuple:6x4", games=3600, chunk=400, seed=9, members=3)
    assert settings.member_settings()[2].games == 1200
    straight = train_ntuple(tmp_path / "straight", settings)
    assert straight.games == 3600
    members = [_tables(tmp_path / "straight" / f"member-{k}") for k in range(3)]
    # member 0 is the run of one member; the others played other games
    assert np.array_equal(members[0], _tables(tmp_path / "one"))
    assert not np.array_equal(members[0], members[1])
    assert not np.array_equal(members[1], members[2])
    assert np.allclose(_tables(tmp_path / "straight"), np.mean(members, axis=0))
    meta = load_connect4_model(tmp_path / "straight" / "weights.npz").metadata
    assert meta["provenance"]["games"] == {"self-play": 3600}
    assert [m["sha256"] for m in meta["members"]] == [weights_sha256(t) for t in members]
    assert meta["provenance"]["self_play_only"] is True

    # killed in the second member's run, resumed with no settings: the same mean
    monkeypatch.setattr(ntuple_run, "SAVE_EVERY", 0.0)

    def kill(state) -> None:
        if state.games == 2000:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_ntuple(tmp_path / "killed", settings, on_chunk=kill)
    assert not (tmp_path / "killed" / "weights.npz").exists()
    assert ntuple_run.saved_games(tmp_path / "killed") == 2000
    assert train_ntuple(tmp_path / "killed", resume=True).games == 3600
    assert np.array_equal(_tables(tmp_path / "killed"), _tables(tmp_path / "straight"))
    written = (tmp_path / "killed" / "weights.npz").stat().st_mtime_ns
    assert train_ntuple(tmp_path / "killed", resume=True).games == 3600  # finished: as it was
    assert (tmp_path / "killed" / "weights.npz").stat().st_mtime_ns == written

    # two members at a time, each in a process of its own: the same tables
    train_ntuple(tmp_path / "side-by-side", settings, workers=2)
    assert np.array_equal(_tables(tmp_path / "side-by-side"), _tables(tmp_path / "straight"))
    with pytest.raises(ValueError, match="divide the games"):
        NTupleSettings(games=1000, members=3)
