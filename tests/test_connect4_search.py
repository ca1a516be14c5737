"""The Connect Four searches: alpha-beta against a plain negamax, the table walk's bounds
against exact values, forced wins against the exact solver's reference scores, the
full-tree minimax, and the Connect Four model's weight files."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import numpy as np
import pytest
from conftest import REPO_ROOT

from treestrap.connect4.board import (
    LOSS,
    NOT_TERMINAL,
    Position,
    copy_position,
    legal_moves,
    make_move,
    new_position,
    parse_moves,
    position_key,
    terminal_value,
    unmake_move,
)
from treestrap.connect4.evaluator import evaluate, new_connect4_tree
from treestrap.connect4.features import dense_features
from treestrap.connect4.search import Connect4Minimax, Connect4Search, SearchOptions, walk_tt
from treestrap.core.search_tree import TERMINAL, node_gradient, tree_size
from treestrap.evaluation.presets import random_model
from treestrap.evaluation.weight_file_format import WeightFileError
from treestrap.evaluation.weight_files import load_weights
from treestrap.games.connect4_model import (
    Connect4Model,
    hand_written_connect4_model,
    load_connect4_model,
    random_connect4_model,
)
from treestrap.search.tt import tt_probe
from treestrap.search.value import MATE as WIN
from treestrap.search.value import clip_value, value_to_node

REFERENCE = "connect4/solved-1000.txt"


def negamax(pos: Position, ev, depth: int, ply: int = 0) -> float:
    """Plain negamax in Python, the searches' units: the oracle of these tests."""
    t = terminal_value(pos)
    if t != NOT_TERMINAL:
        return -(WIN - ply) if t == LOSS else 0.0
    if depth == 0:
        return clip_value(float(evaluate(pos, ev)))
    buf = np.zeros(7, dtype=np.int64)
    best = -np.inf
    for m in buf[: legal_moves(pos, buf)].tolist():
        make_move(pos, m)
        best = max(best, -negamax(pos, ev, depth - 1, ply + 1))
        unmake_move(pos)
    return best


def random_positions(count: int, seed: int, max_plies: int = 24) -> list[Position]:
    """Positions after random play that are not over."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos = new_position()
        buf = np.zeros(7, dtype=np.int64)
        for _ in range(rng.randrange(max_plies + 1)):
            n = legal_moves(pos, buf)
            if n == 0:
                break
            make_move(pos, int(buf[rng.randrange(n)]))
        if terminal_value(pos) == NOT_TERMINAL:
            out.append(pos)
    return out


def node_position(root: Position, tree, i: int) -> Position:
    """The position of node ``i``: the root with the moves on its path played."""
    path = []
    while tree.parent[i] >= 0:
        path.append(int(tree.move[i]))
        i = int(tree.parent[i])
    pos = copy_position(root)
    for m in reversed(path):
        make_move(pos, m)
    return pos


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5])
def test_alphabeta_equals_plain_negamax(depth: int) -> None:
    ev = random_connect4_model(seed=depth).evaluator()
    search = Connect4Search(tt_bits=14)
    for pos in random_positions(6, seed=depth):
        before = position_key(pos)
        result = search.search(pos, ev, depth)
        assert result.value == negamax(pos, ev, depth)
        assert position_key(pos) == before
        # the best move's line scores the root value
        make_move(pos, result.best_move)
        assert -negamax(pos, ev, depth - 1, 1) == result.value
        unmake_move(pos)


def test_walk_without_pruning_gives_every_node_its_exact_value() -> None:
    ev = random_connect4_model(seed=7).evaluator()
    search = Connect4Search(tt_bits=16, options=SearchOptions(prune=False))
    tree = new_connect4_tree(20_000)
    for root in random_positions(3, seed=11, max_plies=16):
        search.search(root, ev, 4)
        walk_tt(root, ev, search, tree, 1)
        n = tree_size(tree)
        assert n > 20
        for i in range(n):
            pos = node_position(root, tree, i)
            ply = int(tree.ply[i])
            exact = value_to_node(negamax(pos, ev, int(tree.depth[i]), ply), ply)
            assert tree.lower[i] == tree.upper[i] == exact
            assert bool(tree.flags[i] & TERMINAL) == (terminal_value(pos) != NOT_TERMINAL)


def test_walk_records_each_reachable_entry_once() -> None:
    ev = hand_written_connect4_model().evaluator()
    search = Connect4Search(tt_bits=16)
    tree = new_connect4_tree(50_000)
    buf = np.zeros(7, dtype=np.int64)
    for root in random_positions(4, seed=3, max_plies=12):
        search.search(root, ev, 6)
        for min_depth in (1, 3):
            walk_tt(root, ev, search, tree, min_depth)
            n = tree_size(tree)
            keys = tree.key[:n].tolist()
            assert len(set(keys)) == n
            assert (tree.depth[:n] >= min_depth).all()
            # every entry deep enough and reachable through such entries is there
            want, stack, pos = set(), [copy_position(root)], None
            while stack:
                pos = stack.pop()
                slot = tt_probe(search.tt, np.uint64(position_key(pos)))
                key = int(position_key(pos))
                if slot < 0 or search.tt.depth[slot] < min_depth or key in want:
                    continue
                want.add(key)
                for m in buf[: legal_moves(pos, buf)].tolist():
                    child = copy_position(pos)
                    make_move(child, m)
                    stack.append(child)
            assert set(keys) == want


def test_tree_gradients_are_the_features() -> None:
    ev = random_connect4_model(seed=2).evaluator()
    search = Connect4Search(tt_bits=14)
    tree = new_connect4_tree(10_000)
    root = random_positions(1, seed=5)[0]
    search.search(root, ev, 5)
    walk_tt(root, ev, search, tree, 1)
    minimax = Connect4Minimax(capacity=20_000, max_nodes=3_000)
    minimax.search_budget(root, ev)
    for t in (tree, minimax.tree):
        for i in range(tree_size(t)):
            pos = node_position(root, t, i)
            idx, val = node_gradient(t, i)
            dense = np.zeros_like(ev.weights)
            np.add.at(dense, idx, val)
            assert np.array_equal(dense, dense_features(pos))
            assert t.static[i] == evaluate(pos, ev)
            assert t.key[i] == position_key(pos)


def test_minimax_tree_holds_every_node_with_its_exact_value() -> None:
    ev = random_connect4_model(seed=4).evaluator()
    minimax = Connect4Minimax(capacity=50_000, max_nodes=3_000)
    for root in random_positions(3, seed=8, max_plies=20):
        result = minimax.search_budget(root, ev)
        assert not result.stopped and result.depth >= 3
        assert result.value == negamax(root, ev, result.depth)
        assert result.value == Connect4Search(tt_bits=14).search(root, ev, result.depth).value
        n = tree_size(minimax.tree)
        assert n == result.nodes
        for i in range(0, n, max(1, n // 60)):
            pos = node_position(root, minimax.tree, i)
            ply, depth = int(minimax.tree.ply[i]), int(minimax.tree.depth[i])
            exact = value_to_node(negamax(pos, ev, max(depth, 0), ply), ply)
            assert minimax.tree.lower[i] == minimax.tree.upper[i] == exact


def _win_plies(moves: str, score: int) -> int:
    """Plies to the end of a won (score > 0) or lost game under perfect play."""
    n = len(moves)
    if score > 0:
        return 2 * ((22 - score) - n // 2) - 1
    return 2 * ((22 + score) - (n - n // 2))


def test_search_finds_every_forced_result_within_its_depth(reference_data) -> None:
    depth = 7
    ev = hand_written_connect4_model().evaluator()
    search = Connect4Search(tt_bits=16)
    short = 0
    for line in reference_data(REFERENCE).read_text(encoding="utf-8").splitlines():
        moves, *scores = line.split()
        score = max(int(s) for s in scores)
        value = search.search(parse_moves(moves), ev, depth).value
        if score != 0 and _win_plies(moves, score) <= depth:
            short += 1
            plies = _win_plies(moves, score)
            assert value == (WIN - plies if score > 0 else -(WIN - plies)), moves
            assert int(scores[search.search(parse_moves(moves), ev, depth).best_move]) == score
        else:
            assert abs(value) < WIN - 2 * 42, moves
    assert short > 50


def test_model_files_round_trip_and_refuse_the_other_game(tmp_path) -> None:
    model = random_connect4_model(seed=3)
    assert np.abs(model.weights).max() <= 1.0
    assert not np.array_equal(model.weights, random_connect4_model(seed=4).weights)
    model.save(tmp_path / "c4.npz")
    back = load_connect4_model(tmp_path / "c4.npz")
    assert np.array_equal(back.weights, model.weights) and back.metadata == model.metadata
    with pytest.raises(WeightFileError, match="connect4 weights, not chess"):
        load_weights(tmp_path / "c4.npz")
    random_model("meep", seed=1).save(tmp_path / "chess.npz")
    with pytest.raises(WeightFileError, match="chess weights, not Connect Four"):
        load_connect4_model(tmp_path / "chess.npz")
    with pytest.raises(ValueError):
        Connect4Model(np.zeros(5))
    pos = parse_moves("4453")
    assert hand_written_connect4_model().evaluate(pos) == pytest.approx(-3.0)


def test_the_search_kernels_run_from_a_fresh_cache(tmp_path) -> None:
    """Twice in fresh processes sharing a new cache: the second run loads the recursive
    alpha-beta, walk and minimax from what the first wrote (see core/jit.py)."""
    script = (
        "from treestrap.connect4.board import parse_moves\n"
        "from treestrap.connect4.evaluator import new_connect4_tree\n"
        "from treestrap.connect4.search import Connect4Minimax, Connect4Search, walk_tt\n"
        "from treestrap.core.search_tree import tree_size\n"
        "from treestrap.games.connect4_model import hand_written_connect4_model\n"
        "ev = hand_written_connect4_model().evaluator()\n"
        "pos, search, tree = parse_moves('4453'), Connect4Search(12), new_connect4_tree(5000)\n"
        "r = search.search(pos, ev, 5)\n"
        "walk_tt(pos, ev, search, tree, 1)\n"
        "m = Connect4Minimax(5000, 2000).search_budget(pos, ev)\n"
        "print(r.value, r.nodes, tree_size(tree), m.value, m.depth)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    env["TREESTRAP_CACHE_DIR"] = str(tmp_path / "numba")
    outputs = []
    for run in (1, 2):
        proc = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            cwd=REPO_ROOT,
            env=env,
            timeout=900,
        )
        assert proc.returncode == 0, f"run {run}: {proc.returncode} {proc.stderr[-2000:]}"
        outputs.append(proc.stdout.split())
    assert outputs[0] == outputs[1] and len(outputs[0]) == 5
    assert any((tmp_path / "numba").rglob("*.nbi"))
