"""The training searches: alpha-beta against full-tree minimax, mates, table bounds,
and the records the learners read."""

from __future__ import annotations

import numpy as np
import pytest
from search_helpers import QUIET_STARTS, node_position, random_positions

from treestrap.core.makemove import make_move
from treestrap.core.move import move_to_uci
from treestrap.core.notation import parse_fen, parse_uci_move
from treestrap.core.position import in_check
from treestrap.core.status import CHECKMATE, game_status, new_move_buffer
from treestrap.evaluation.model import evaluate_gradient
from treestrap.evaluation.presets import hand_set_model, random_model
from treestrap.search.context import new_context
from treestrap.search.minimax import MinimaxLimits, MinimaxSearch
from treestrap.search.scratch import EVAL_HITS
from treestrap.search.training import TrainingOptions, TrainingSearch
from treestrap.search.tree import (
    BUDGET_LEAF,
    OVERFLOW,
    QUIESCENCE,
    TERMINAL,
    new_tree,
    node_gradient,
    tree_size,
)
from treestrap.search.tt import clear_tt, new_tt
from treestrap.search.tt_walk import walk_tt
from treestrap.search.value import MATE, format_value

POSITIONS = random_positions(40, seed=11, min_ply=2, max_ply=30)
# Full minimax prunes nothing, not even in quiescence, where capture sequences of a
# typical middlegame run to millions: compare on positions with few captures.
QUIET_POSITIONS = random_positions(40, seed=12, min_ply=1, max_ply=12, starts=QUIET_STARTS)
BARE = TrainingOptions(use_tt=False, check_extension=False)


@pytest.fixture(scope="module")
def minimax() -> MinimaxSearch:
    return MinimaxSearch(capacity=300_000)


@pytest.mark.parametrize("model", [hand_set_model(), random_model(seed=5, scale=50.0)])
def test_alphabeta_root_value_equals_minimax(minimax: MinimaxSearch, model) -> None:
    ev = model.evaluator()
    bare = TrainingSearch(BARE)
    compared = [0, 0, 0]
    for fen in QUIET_POSITIONS:
        for depth in (1, 2, 3):
            mm = minimax.search(parse_fen(fen), ev, depth)
            if mm.stopped:
                assert minimax.tree.meta[OVERFLOW]
                break  # the exhaustive tree outgrew the record: deeper is bigger still
            ab = bare.search(parse_fen(fen), ev, depth)
            assert ab.value == mm.value, (fen, depth)
            assert ab.nodes + ab.qnodes <= mm.nodes + mm.qnodes
            compared[depth - 1] += 1
    # Many positions really were compared at every depth.
    assert min(compared) >= 10, compared


def test_alphabeta_with_table_and_extensions_keeps_the_value_without_extensions() -> None:
    ev = hand_set_model().evaluator()
    bare = TrainingSearch(BARE)
    with_tt = TrainingSearch(TrainingOptions(check_extension=False))
    for fen in POSITIONS[:20]:
        for depth in (1, 2, 3, 4):
            a = bare.search(parse_fen(fen), ev, depth)
            b = with_tt.search(parse_fen(fen), ev, depth)
            assert a.value == pytest.approx(b.value, abs=1e-9), (fen, depth)
            assert b.nodes + b.qnodes <= a.nodes + a.qnodes


MATES = [
    # (FEN, search depth, expected score, first move of the mate); checked with python-chess
    ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 1, MATE - 1, "a1a8"),  # back-rank mate in 1
    ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", 1, MATE - 1, "h5f7"),
    ("7k/8/8/8/8/8/R7/1R4K1 w - - 0 1", 3, MATE - 3, None),  # rook ladder, mate in 2
    ("1r4k1/r7/8/8/8/8/8/7K b - - 0 1", 3, MATE - 3, None),  # the same for black
    ("7k/8/6K1/8/8/8/8/R7 b - - 0 1", 2, -(MATE - 2), "h8g8"),  # mated in 1, forced
]


@pytest.mark.parametrize("fen,depth,score,move", MATES)
def test_mates_found_with_their_distance(fen: str, depth: int, score: float, move) -> None:
    ev = random_model(seed=1).evaluator()  # mates need no knowledge
    for search in (TrainingSearch(), TrainingSearch(BARE)):
        result = search.search(parse_fen(fen), ev, depth)
        assert result.value == score, fen
        assert format_value(result.value).startswith("mate ")
        if move:
            assert move_to_uci(result.best_move) == move
        pos = parse_fen(fen)  # the PV is legal and ends in mate
        for m in result.pv:
            make_move(pos, parse_uci_move(pos, move_to_uci(m)))
        assert game_status(pos, new_move_buffer()) == CHECKMATE
    # Minimax agrees (quiescence capped per leaf: unpruned capture trees explode, and the
    # mating line needs none of it).
    limits = MinimaxLimits(max_qnodes_per_leaf=500)
    mm = MinimaxSearch(capacity=400_000, limits=limits).search(parse_fen(fen), ev, depth)
    assert not mm.stopped and mm.value == score
    # One ply too shallow, the mate is out of reach (mate distance is real).
    if depth > 1 and score > 0:
        assert TrainingSearch(BARE).search(parse_fen(fen), ev, depth - 1).value < MATE - 100


def test_checkmated_and_stalemated_roots() -> None:
    ev = hand_set_model().evaluator()
    mated = TrainingSearch().search(parse_fen("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1"), ev, 2)
    assert mated.value == -MATE and mated.best_move == 0 and mated.pv == []
    stalemate = TrainingSearch().search(parse_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), ev, 2)
    assert stalemate.value == 0.0 and stalemate.best_move == 0


def test_table_bounds_agree_with_fresh_searches() -> None:
    ev = hand_set_model().evaluator()
    search = TrainingSearch()
    fresh = TrainingSearch(TrainingOptions(use_tt=False))
    checked = 0
    for fen in POSITIONS[:8]:
        pos = parse_fen(fen)
        search.search(pos, ev, 4)
        tree = new_tree(50_000)
        n = walk_tt(pos, ev, search.tt, tree, search.ctx, 1)
        assert n >= 1
        for i in range(min(n, 60)):
            depth = int(tree.depth[i])
            node = node_position(fen, tree, i)
            v = fresh.search(node, ev, depth).value
            assert tree.lower[i] - 1e-9 <= v <= tree.upper[i] + 1e-9, (fen, i, depth)
            checked += 1
    assert checked > 100


def test_a_search_reads_evaluations_back_and_forgets_them_when_the_weights_change() -> None:
    # The evaluation cache is exact within a search and cleared by the next one: a
    # search reused after the weights changed equals a new one, and so do the
    # quiescence values of its walk (which read the search's evaluations).
    first, second = random_model(seed=21, scale=50.0), random_model(seed=22, scale=50.0)
    reused = TrainingSearch()
    for fen in POSITIONS[:6]:
        pos = parse_fen(fen)
        reused.search(pos, first.evaluator(), 3)
        assert reused.ctx.stats[EVAL_HITS] > 0
        ev = second.evaluator()
        got = reused.search(pos, ev, 3)
        fresh = TrainingSearch()
        want = fresh.search(pos, ev, 3)
        assert (got.value, got.nodes, got.qnodes) == (want.value, want.nodes, want.qnodes)
        trees = []
        for search in (reused, fresh):
            tree = new_tree(10_000)
            n = walk_tt(pos, ev, search.tt, tree, search.ctx, 1, new_context(), True)
            trees.append((n, tree.static[:n].copy(), tree.feat_val[: tree.feat_start[n]].copy()))
        assert trees[0][0] == trees[1][0]
        assert np.array_equal(trees[0][1], trees[1][1])
        assert np.array_equal(trees[0][2], trees[1][2])


def test_clearing_the_table_after_a_search_leaves_an_empty_table() -> None:
    # clear_tt resets only the slots filled since the last clear when they are few:
    # the table must equal a new one, searches after it must equal fresh searches.
    ev = hand_set_model().evaluator()
    search = TrainingSearch(tt_bits=12)
    empty = new_tt(12)
    counts = []
    for fen, depth in ((POSITIONS[1], 2), (POSITIONS[2], 4), (POSITIONS[3], 6)):
        search.search(parse_fen(fen), ev, depth)
        filled = int(search.tt.meta[3])
        assert filled == int(np.count_nonzero(search.tt.depth != empty.depth))
        counts.append(filled)
        clear_tt(search.tt)  # few filled slots at depth 2, a full clear at depth 6
        for name in ("keys", "depth", "lower", "upper", "move"):
            assert np.array_equal(getattr(search.tt, name), getattr(empty, name)), name
        assert search.tt.meta[3] == 0
    size = empty.keys.shape[0]
    assert min(counts) * 8 < size <= max(counts) * 8  # both ways of clearing were taken


def test_walk_records_root_first_with_exact_value_and_depth() -> None:
    ev = hand_set_model().evaluator()
    search = TrainingSearch()
    fen = POSITIONS[0]
    pos = parse_fen(fen)
    result = search.search(pos, ev, 3)
    tree = new_tree(10_000)
    n = walk_tt(pos, ev, search.tt, tree, search.ctx, 1)
    assert tree.parent[0] == -1 and tree.depth[0] == 3
    assert tree.lower[0] == tree.upper[0] == result.value
    assert all(tree.depth[i] >= 1 for i in range(n))
    # Higher minimum depth: a subset.
    tree2 = new_tree(10_000)
    n2 = walk_tt(pos, ev, search.tt, tree2, search.ctx, 2)
    assert 1 <= n2 < n
    assert set(tree2.key[:n2]) <= set(tree.key[:n])
    # Each entry once, even where positions transpose.
    assert len(set(tree.key[:n].tolist())) == n


def test_minimax_tree_is_consistent() -> None:
    ev = random_model(seed=2, scale=30.0).evaluator()
    mm = MinimaxSearch(capacity=200_000)
    fen = QUIET_POSITIONS[5]
    result = mm.search(parse_fen(fen), ev, 2)
    assert not result.stopped
    tree = mm.tree
    n = tree_size(tree)
    assert n == result.nodes + result.qnodes
    assert tree.lower[0] == result.value
    children: dict[int, list[int]] = {}
    for i in range(1, n):
        children.setdefault(int(tree.parent[i]), []).append(i)
    for i in range(n):
        assert tree.lower[i] == tree.upper[i]
        assert not tree.flags[i] & BUDGET_LEAF
        best = max((-tree.lower[k] for k in children.get(i, [])), default=-np.inf)
        if tree.flags[i] & TERMINAL:
            assert i not in children
        elif tree.flags[i] & QUIESCENCE and not in_check(node_position(fen, tree, i)):
            assert tree.lower[i] == max(np.clip(tree.static[i], -9900, 9900), best)
        else:
            assert tree.lower[i] == best
    # Static values and gradients are those of the model at each node.
    for i in range(0, n, max(1, n // 50)):
        pos = node_position(fen, tree, i)
        h, k = evaluate_gradient(pos, ev)
        assert tree.static[i] == h
        idx, val = node_gradient(tree, i)
        assert np.array_equal(idx, ev.idx[:k]) and np.array_equal(val, ev.val[:k])


def test_minimax_budget_picks_deepest_tree_that_fits() -> None:
    ev = hand_set_model().evaluator()
    mm = MinimaxSearch(
        capacity=300_000, limits=MinimaxLimits(max_nodes=5000, max_qnodes_per_leaf=500)
    )
    result = mm.search_budget(parse_fen(QUIET_POSITIONS[1]), ev)
    assert result.depth >= 2
    assert result.nodes <= 5000
    assert not mm.tree.meta[OVERFLOW]
    flags = mm.tree.flags[: tree_size(mm.tree)]
    assert (flags & QUIESCENCE).any()


def test_node_budget_search_deepens_until_budget() -> None:
    ev = hand_set_model().evaluator()
    search = TrainingSearch()
    small = search.search_nodes(parse_fen(POSITIONS[2]), ev, max_nodes=2_000)
    large = search.search_nodes(parse_fen(POSITIONS[2]), ev, max_nodes=200_000)
    assert 1 <= small.depth < large.depth
    assert small.best_move != 0 and large.best_move != 0
    # Same position and budget: the same answer (determinism).
    again = search.search_nodes(parse_fen(POSITIONS[2]), ev, max_nodes=200_000)
    assert again == large


def test_bad_depths_are_refused() -> None:
    ev = hand_set_model().evaluator()
    pos = parse_fen(POSITIONS[0])
    with pytest.raises(ValueError, match="depth"):
        TrainingSearch().search(pos, ev, 0)
    with pytest.raises(ValueError, match="depth"):
        MinimaxSearch(capacity=10).search(pos, ev, 200)
    with pytest.raises(ValueError, match="budget"):
        TrainingSearch().search_nodes(pos, ev, 0)
