"""The update rules of :mod:`treestrap.learn`, each checked on a small case whose
expected weight change is worked out by hand in the test (not by the library's own
helpers), plus TreeStrap(alpha-beta) against TreeStrap(minimax) on real searches."""

from __future__ import annotations

import math

import numpy as np
import pytest

from treestrap.core.notation import parse_fen
from treestrap.evaluation.feature_sets import get_feature_set
from treestrap.evaluation.presets import random_model
from treestrap.evaluation.weights import LinearModel
from treestrap.learn.base import Step
from treestrap.learn.linear_hyper import Hyper
from treestrap.learn.registry import make_algorithm
from treestrap.learn.rootstrap import RootStrap, RootStrapMinimax
from treestrap.learn.rules import ALPHABETA, MINIMAX, RULES, RULES_BY_NAME
from treestrap.learn.td import TemporalDifference
from treestrap.learn.td_leaf import TDLeaf
from treestrap.learn.td_root import TDRoot
from treestrap.learn.treestrap import TreeStrapAlphaBeta, TreeStrapMinimax
from treestrap.search.minimax import MinimaxLimits, MinimaxSearch
from treestrap.search.training import TrainingOptions, TrainingSearch
from treestrap.search.tree import QUIESCENCE, TERMINAL, SearchTree, new_tree
from treestrap.search.tt_walk import walk_tt

INF = math.inf
ETA = 2.0**-10  # a power of two: hand-computed products below are exact in floats

# --- helpers -------------------------------------------------------------------------


def zero_model() -> LinearModel:
    return LinearModel(get_feature_set("bitboard"), np.zeros(769))


def bitboard_model(seed: int = 0) -> LinearModel:
    fs = get_feature_set("bitboard")
    assert fs.size == 769
    rng = np.random.default_rng(seed)
    # Multiples of 1/8: exact in binary, so sums of a few exact products stay exact.
    return LinearModel(fs, rng.integers(-800, 800, fs.size) / 8.0)


def dense(size: int, entries: dict[int, float]) -> np.ndarray:
    out = np.zeros(size)
    for i, v in entries.items():
        out[i] = v
    return out


def hand_tree(nodes: list[tuple[float, float, float, int, int, dict[int, float]]]) -> SearchTree:
    """A record filled by hand: per node (static, lower, upper, depth, flags, gradient)."""
    tree = new_tree(len(nodes) + 1, features_per_node=8)
    used = 0
    for i, (static, lower, upper, depth, flags, grad) in enumerate(nodes):
        tree.feat_start[i] = used
        for idx, val in grad.items():
            tree.feat_idx[used] = idx
            tree.feat_val[used] = val
            used += 1
        tree.feat_start[i + 1] = used
        tree.static[i] = static
        tree.lower[i] = lower
        tree.upper[i] = upper
        tree.depth[i] = depth
        tree.flags[i] = flags
        tree.parent[i] = i - 1
    tree.meta[0] = len(nodes)
    tree.meta[1] = used
    return tree


def tree_step(tree: SearchTree) -> Step:
    return Step(
        color=0,
        root_value=0.0,
        root_static=0.0,
        root_idx=np.zeros(0, dtype=np.int32),
        root_val=np.zeros(0),
        tree=tree,
    )


def change_after(algorithm_cls, model: LinearModel, hyper: Hyper, action) -> np.ndarray:
    before = model.weights.copy()
    algo = algorithm_cls(model, hyper)
    action(algo)
    return model.weights - before


# --- RootStrap -----------------------------------------------------------------------


@pytest.mark.parametrize("cls", [RootStrap, RootStrapMinimax])
def test_rootstrap_moves_root_towards_search_value(cls) -> None:
    model = bitboard_model()
    old = model.weights.copy()
    # H = 37.5, V = 101.5: delta = 64; gradient has 4 entries, one index twice.
    idx = np.array([3, 200, 768, 200], dtype=np.int32)
    val = np.array([1.0, -1.0, 1.0, 0.5])
    step = Step(color=0, root_value=101.5, root_static=37.5, root_idx=idx, root_val=val)
    algo = cls(model, Hyper(step_size=ETA))
    weights_array = model.weights
    algo.observe(step)
    grad = dense(769, {3: 1.0, 200: -0.5, 768: 1.0})
    expected = old + ETA * (101.5 - 37.5) * grad
    assert np.array_equal(model.weights, expected)
    assert model.weights is weights_array  # in place: the compiled evaluator shares it
    assert model.weights[3] == old[3] + 64 / 1024
    assert model.weights[200] == old[200] - 32 / 1024
    assert algo.stats.updates == 1 and algo.stats.abs_delta == [64.0]


@pytest.mark.parametrize(
    ("root_value", "target"), [(9998.0, 9900.0), (-9997.0, -9900.0), (9900.0, 9900.0)]
)
def test_rootstrap_clips_mate_scores_to_heuristic_range(root_value: float, target: float) -> None:
    model = bitboard_model(1)
    old = model.weights.copy()
    step = Step(
        color=1,
        root_value=root_value,
        root_static=100.0,
        root_idx=np.array([10, 700], dtype=np.int32),
        root_val=np.array([1.0, -1.0]),
    )
    RootStrap(model, Hyper(step_size=ETA)).observe(step)
    delta = target - 100.0
    expected = old + ETA * delta * dense(769, {10: 1.0, 700: -1.0})
    assert np.array_equal(model.weights, expected)
    assert model.weights[10] - old[10] == pytest.approx(ETA * (target - 100.0), rel=1e-12)


def test_rootstrap_on_meep_model() -> None:
    model = random_model("meep", seed=3)
    old = model.weights.copy()
    idx = np.array([0, 4, 1000], dtype=np.int32)
    val = np.array([2.0, -1.0, 3.0])
    step = Step(color=0, root_value=-50.0, root_static=14.0, root_idx=idx, root_val=val)
    RootStrap(model, Hyper(step_size=1e-5)).observe(step)
    change = model.weights - old
    assert change[0] == pytest.approx(1e-5 * -64.0 * 2.0, rel=1e-12)
    assert change[4] == pytest.approx(1e-5 * -64.0 * -1.0, rel=1e-12)
    assert change[1000] == pytest.approx(1e-5 * -64.0 * 3.0, rel=1e-12)
    assert np.count_nonzero(change) == 3


# --- TreeStrap(alpha-beta): one-sided targets ----------------------------------------


@pytest.mark.parametrize(
    ("static", "lower", "upper", "depth", "flags", "min_depth", "delta"),
    [
        pytest.param(30.0, 10.0, 50.0, 1, 0, 1, 0.0, id="inside"),
        pytest.param(10.0, 10.0, 50.0, 1, 0, 1, 0.0, id="on-lower"),
        pytest.param(50.0, 10.0, 50.0, 1, 0, 1, 0.0, id="on-upper"),
        pytest.param(30.0, 30.0, 30.0, 3, 0, 1, 0.0, id="exact-hit"),
        pytest.param(80.0, 10.0, 50.0, 1, 0, 1, -30.0, id="above-upper"),
        pytest.param(-20.0, 10.0, 50.0, 2, 0, 1, 30.0, id="below-lower"),
        pytest.param(70.0, 30.0, 30.0, 1, 0, 1, -40.0, id="exact-above"),
        pytest.param(-5.0, 30.0, 30.0, 1, 0, 1, 35.0, id="exact-below"),
        pytest.param(80.0, -INF, 50.0, 1, 0, 1, -30.0, id="upper-only-violated"),
        pytest.param(-1000.0, -INF, 50.0, 1, 0, 1, 0.0, id="upper-only-kept"),
        pytest.param(-20.0, 10.0, INF, 1, 0, 1, 30.0, id="lower-only-violated"),
        pytest.param(500.0, 10.0, INF, 1, 0, 1, 0.0, id="lower-only-kept"),
        pytest.param(1234.0, -INF, INF, 1, 0, 1, 0.0, id="unbounded"),
        # Mate scores as bounds: targets clipped to +-9900, and values compared as the
        # clip maps them: a value past the clip already agrees with a mate beyond it.
        pytest.param(12000.0, 9997.0, 9997.0, 1, 0, 1, 0.0, id="mate-exact-above"),
        pytest.param(12000.0, 500.0, 500.0, 1, 0, 1, -11500.0, id="clipped-value-above"),
        pytest.param(9000.0, 9995.0, INF, 1, 0, 1, 900.0, id="mate-lower"),
        pytest.param(-9000.0, -INF, -9996.0, 1, 0, 1, -900.0, id="mated-upper"),
        # Nodes that take no part.
        pytest.param(80.0, 10.0, 50.0, 0, 0, 1, 0.0, id="depth-below-d"),
        pytest.param(80.0, 10.0, 50.0, 1, 0, 2, 0.0, id="d2-skips-depth1"),
        pytest.param(80.0, 10.0, 50.0, 2, 0, 2, -30.0, id="d2-keeps-depth2"),
        pytest.param(80.0, 10.0, 50.0, 1, QUIESCENCE, 1, 0.0, id="quiescence"),
        pytest.param(80.0, 10.0, 50.0, 0, QUIESCENCE, 1, 0.0, id="quiescence-depth0"),
        pytest.param(80.0, 0.0, 0.0, 2, TERMINAL, 1, 0.0, id="terminal"),
        pytest.param(80.0, 0.0, 0.0, 0, TERMINAL | QUIESCENCE, 0, 0.0, id="terminal-d0"),
    ],
)
def test_treestrap_ab_single_node(static, lower, upper, depth, flags, min_depth, delta) -> None:
    model = bitboard_model(2)
    grad = {7: 1.0, 300: -2.0, 768: 1.0}
    tree = hand_tree([(static, lower, upper, depth, flags, grad)])
    change = change_after(
        TreeStrapAlphaBeta,
        model,
        Hyper(step_size=ETA, min_depth=min_depth),
        lambda a: a.observe(tree_step(tree)),
    )
    expected = dense(769, {7: ETA * delta, 300: -2.0 * ETA * delta, 768: ETA * delta})
    assert np.array_equal(change, expected)


# A small tree: (static, lower, upper, depth, flags, gradient).
MIXED_TREE = [
    (80.0, 10.0, 50.0, 3, 0, {0: 1.0, 5: 2.0}),  # above upper: delta -30
    (-20.0, 10.0, INF, 2, 0, {0: -1.0, 7: 1.0}),  # below lower: delta +30
    (30.0, 10.0, 50.0, 2, 0, {1: 1.0}),  # inside: 0
    (100.0, -INF, 40.0, 1, 0, {5: 1.0, 2: 3.0}),  # above upper: delta -60
    (0.0, 20.0, 20.0, 0, QUIESCENCE, {3: 1.0}),  # quiescence: delta +20 if d = 0
    (50.0, 0.0, 0.0, 2, TERMINAL, {4: 1.0}),  # terminal: never
]


@pytest.mark.parametrize(
    ("min_depth", "expected"),
    [
        # idx 0: -30*1 + 30*-1; idx 5: -30*2 + -60*1; idx 7: 30; idx 2: -60*3
        (1, {0: -60.0, 5: -120.0, 7: 30.0, 2: -180.0}),
        # depth-1 node 3 left out
        (2, {0: -60.0, 5: -60.0, 7: 30.0}),
        # only the depth-3 root
        (3, {0: -30.0, 5: -60.0}),
        # quiescence joins at d = 0; the terminal node still does not
        (0, {0: -60.0, 5: -120.0, 7: 30.0, 2: -180.0, 3: 20.0}),
    ],
)
def test_treestrap_ab_sums_over_the_tree(min_depth: int, expected: dict[int, float]) -> None:
    model = bitboard_model(3)
    tree = hand_tree(MIXED_TREE)
    algo_changes = change_after(
        TreeStrapAlphaBeta,
        model,
        Hyper(step_size=ETA, min_depth=min_depth),
        lambda a: a.observe(tree_step(tree)),
    )
    want = dense(769, {i: ETA * v for i, v in expected.items()})
    assert np.array_equal(algo_changes, want)


def test_treestrap_ab_one_summed_step_per_search() -> None:
    model = bitboard_model(3)
    algo = TreeStrapAlphaBeta(model, Hyper(step_size=ETA))
    algo.observe(tree_step(hand_tree(MIXED_TREE)))
    assert algo.stats.updates == 1
    # mean abs delta over the 4 nodes used at d = 1: (30 + 30 + 0 + 60) / 4
    assert algo.stats.abs_delta == [pytest.approx((30 + 30 + 0 + 60) / 4)]


# --- TreeStrap(minimax): exact targets ------------------------------------------------


def test_treestrap_mm_exact_tree_by_hand() -> None:
    # Exact values (lower == upper == V): the update is eta * sum (V - H) grad.
    nodes = [
        (12.0, 40.0, 40.0, 2, 0, {0: 1.0, 1: 1.0}),  # V - H = 28
        (-40.0, -40.0, -40.0, 1, 0, {0: -1.0}),  # 0
        (10.0, -25.0, -25.0, 1, 0, {1: -1.0, 2: 2.0}),  # -35
        (-30.0, -25.0, -25.0, 0, QUIESCENCE, {2: 1.0}),  # not used (d = 1)
        (99.0, -9998.0, -9998.0, 1, TERMINAL, {3: 1.0}),  # mated: not used
    ]
    model = bitboard_model(4)
    change = change_after(
        TreeStrapMinimax,
        model,
        Hyper(step_size=ETA, min_depth=1),
        lambda a: a.observe(tree_step(hand_tree(nodes))),
    )
    # idx 0: 28; idx 1: 28 + 35; idx 2: -70
    assert np.array_equal(change, dense(769, {0: ETA * 28, 1: ETA * 63, 2: ETA * -70}))


def _hand_update(tree: SearchTree, size: int, eta: float, min_depth: int) -> np.ndarray:
    """eta * sum over used nodes of (clip(V) - H) * grad, node by node."""
    total = np.zeros(size)
    for i in range(int(tree.meta[0])):
        if tree.depth[i] < min_depth or tree.flags[i] & (TERMINAL | QUIESCENCE):
            continue
        assert tree.lower[i] == tree.upper[i]
        v = min(max(float(tree.lower[i]), -9900.0), 9900.0)
        for k in range(int(tree.feat_start[i]), int(tree.feat_start[i + 1])):
            total[tree.feat_idx[k]] += eta * (v - tree.static[i]) * tree.feat_val[k]
    return total


@pytest.mark.parametrize("depth", [1, 2])
def test_treestrap_mm_on_a_real_minimax_tree(depth: int) -> None:
    model = random_model("meep", seed=7, scale=20.0)
    mm = MinimaxSearch(capacity=200_000, limits=MinimaxLimits(check_extension=False))
    fen = "4k3/pp3ppp/8/8/8/8/PP3PPP/4K3 w - - 0 1"
    result = mm.search(parse_fen(fen), model.evaluator(), depth)
    assert not result.stopped
    expected = _hand_update(mm.tree, model.weights.shape[0], 1e-6, 1)
    change = change_after(
        TreeStrapMinimax,
        model,
        Hyper(step_size=1e-6, min_depth=1),
        lambda a: a.observe(tree_step(mm.tree)),
    )
    assert np.any(expected != 0)
    np.testing.assert_allclose(change, expected, rtol=1e-9, atol=1e-15)


# --- TreeStrap(alpha-beta) == TreeStrap(minimax) without cut-offs --------------------


def _used_minimax_keys(tree: SearchTree, min_depth: int) -> list[int]:
    n = int(tree.meta[0])
    return [
        int(tree.key[i])
        for i in range(n)
        if tree.depth[i] >= min_depth and not tree.flags[i] & (TERMINAL | QUIESCENCE)
    ]


START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
PAWNS = "4k3/pp3ppp/8/8/8/8/PP3PPP/4K3 w - - 0 1"
ROOKS = "4k3/2p2pp1/8/3r4/8/8/2P2PP1/3RK3 w - - 0 1"
KNIGHT = "6k1/5ppp/8/8/3N4/8/5PPP/6K1 b - - 0 1"


# Nodes of remaining depth >= 1 lie at most 2 plies below the root in these searches,
# where no position can transpose (each side has moved at most once). Exhaustive
# quiescence below a depth-3 tree from the start position outgrows the record.
@pytest.mark.parametrize(
    ("fen", "depth", "min_depth"),
    [
        (START, 1, 1),
        (START, 2, 1),
        (PAWNS, 1, 1),
        (PAWNS, 2, 1),
        (PAWNS, 3, 1),
        (PAWNS, 3, 2),
        (ROOKS, 1, 1),
        (ROOKS, 2, 1),
        (ROOKS, 2, 2),
        (ROOKS, 3, 1),
        (ROOKS, 3, 2),
        (KNIGHT, 2, 1),
        (KNIGHT, 2, 2),
        (KNIGHT, 3, 1),
    ],
)
def test_treestrap_ab_without_cutoffs_equals_minimax(fen: str, depth: int, min_depth: int) -> None:
    model = random_model("meep", seed=11, scale=30.0)
    ev = model.evaluator()
    # Alpha-beta with every child searched with a full window, read back from its table.
    ab = TrainingSearch(TrainingOptions(prune=False, check_extension=False))
    ab_result = ab.search(parse_fen(fen), ev, depth)
    walked = new_tree(50_000)
    n = walk_tt(parse_fen(fen), ev, ab.tt, walked, ab.ctx, min_depth)
    # Full-tree minimax.
    mm = MinimaxSearch(capacity=400_000, limits=MinimaxLimits(check_extension=False))
    mm_result = mm.search(parse_fen(fen), ev, depth)
    assert not mm_result.stopped
    assert ab_result.value == mm_result.value
    # Same nodes used by both (no transpositions among the nodes of depth >= min_depth).
    mm_keys = _used_minimax_keys(mm.tree, min_depth)
    assert len(set(mm_keys)) == len(mm_keys)
    assert sorted(mm_keys) == sorted(int(k) for k in walked.key[:n])
    assert all(walked.lower[i] == walked.upper[i] for i in range(n))  # all exact

    hyper = Hyper(step_size=5e-7, min_depth=min_depth)
    model_ab = LinearModel(model.feature_set, model.weights.copy())
    model_mm = LinearModel(model.feature_set, model.weights.copy())
    TreeStrapAlphaBeta(model_ab, hyper).observe(tree_step(walked))
    TreeStrapMinimax(model_mm, hyper).observe(tree_step(mm.tree))
    assert np.abs(model_ab.weights - model.weights).max() > 1e-9  # a real update
    np.testing.assert_allclose(model_ab.weights, model_mm.weights, rtol=1e-12, atol=1e-13)


# --- TD-Leaf(lambda) -----------------------------------------------------------------


def leaf_step(color: int, leaf_value: float, index: int, reply_ok: bool = True) -> Step:
    return Step(
        color=color,
        root_value=0.0,
        root_static=0.0,
        root_idx=np.zeros(0, dtype=np.int32),
        root_val=np.zeros(0),
        leaf_value=leaf_value,
        leaf_idx=np.array([index], dtype=np.int32),
        leaf_val=np.array([1.0]),
        predicted_reply=100 + index,
        actual_reply=100 + index if reply_ok else 999,
    )


# White's principal-leaf values (one-hot gradient at index t) and black's (at 10 + t).
WHITE_J = [10.0, 30.0, 20.0, 50.0, 40.0]
BLACK_J = [-5.0, 15.0, 0.0, 25.0]


def leaf_game(white_bad: set[int] = frozenset(), black_bad: set[int] = frozenset()) -> list:
    steps = []
    for t in range(5):
        steps.append(leaf_step(0, WHITE_J[t], t, t not in white_bad))
        if t < 4:
            steps.append(leaf_step(1, BLACK_J[t], 10 + t, t not in black_bad))
    return steps


def test_td_leaf_lambda_returns_by_hand() -> None:
    hyper = Hyper(step_size=ETA, lam=0.5, squash=False, predicted_only=False, use_outcome=True)
    model = bitboard_model(5)
    change = change_after(TDLeaf, model, hyper, lambda a: a.end_game(leaf_game(), 1.0))
    # White (won, outcome +9900): d = [20, -10, 30, -10, 9900 - 40 = 9860]
    #   sums (lambda 0.5, from the end): 9860; -10 + 4930 = 4920; 30 + 2460 = 2490;
    #   -10 + 1245 = 1235; 20 + 617.5 = 637.5
    # Black (lost, outcome -9900): d = [20, -15, 25, -9900 - 25 = -9925]
    #   sums: -9925; 25 - 4962.5 = -4937.5; -15 - 2468.75 = -2483.75;
    #   20 - 1241.875 = -1221.875
    white = [637.5, 1235.0, 2490.0, 4920.0, 9860.0]
    black = [-1221.875, -2483.75, -4937.5, -9925.0]
    expected = dense(769, {t: ETA * v for t, v in enumerate(white)})
    expected += dense(769, {10 + t: ETA * v for t, v in enumerate(black)})
    assert np.array_equal(change, expected)


def test_td_leaf_zeroes_unpredicted_positive_differences() -> None:
    hyper = Hyper(step_size=ETA, lam=0.5, squash=False, predicted_only=True, use_outcome=True)
    model = bitboard_model(5)
    # White t = 0 (d = +20) and t = 1 (d = -10) were answered by unpredicted replies:
    # only the positive one is zeroed. White's last step (towards the outcome) keeps its
    # d although its reply is unknown. Black t = 2 (d = +25): zeroed.
    steps = leaf_game(white_bad={0, 1, 4}, black_bad={2})
    change = change_after(TDLeaf, model, hyper, lambda a: a.end_game(steps, 1.0))
    # White d = [0, -10, 30, -10, 9860]: sums as before except t = 0: 0 + 617.5
    # Black d = [20, -15, 0, -9925]: sums -9925; 0 - 4962.5 = -4962.5;
    #   -15 - 2481.25 = -2496.25; 20 - 1248.125 = -1228.125
    white = [617.5, 1235.0, 2490.0, 4920.0, 9860.0]
    black = [-1228.125, -2496.25, -4962.5, -9925.0]
    expected = dense(769, {t: ETA * v for t, v in enumerate(white)})
    expected += dense(769, {10 + t: ETA * v for t, v in enumerate(black)})
    assert np.array_equal(change, expected)


def test_td_leaf_without_outcome_ends_on_the_last_leaf() -> None:
    hyper = Hyper(step_size=ETA, lam=0.5, squash=False, predicted_only=False, use_outcome=False)
    model = bitboard_model(5)
    change = change_after(TDLeaf, model, hyper, lambda a: a.end_game(leaf_game(), 1.0))
    # White d = [20, -10, 30, -10, 0]: sums 0; -10; 30 - 5 = 25; -10 + 12.5 = 2.5;
    #   20 + 1.25 = 21.25.  Black d = [20, -15, 25, 0]: sums 0; 25; -15 + 12.5 = -2.5;
    #   20 - 1.25 = 18.75
    white = [21.25, 2.5, 25.0, -10.0, 0.0]
    black = [18.75, -2.5, 25.0, 0.0]
    expected = dense(769, {t: ETA * v for t, v in enumerate(white)})
    expected += dense(769, {10 + t: ETA * v for t, v in enumerate(black)})
    assert np.array_equal(change, expected)


def test_td_leaf_squashed_values() -> None:
    beta = math.atanh(0.25) / 100.0
    assert math.tanh(beta * 100.0) == pytest.approx(0.25, rel=1e-15)
    hyper = Hyper(step_size=1e-3, lam=0.5, squash=True, predicted_only=False, use_outcome=True)
    model = bitboard_model(6)
    steps = [leaf_step(0, 100.0, 0), leaf_step(0, -200.0, 1)]
    change = change_after(TDLeaf, model, hyper, lambda a: a.end_game(steps, 0.0))
    # J0 = tanh(beta 100) = 1/4; J1 = tanh(-2 atanh(1/4)) = -(2/4) / (1 + 1/16) = -8/17.
    # Draw: the outcome is 0. d = [-8/17 - 1/4, 8/17]; sums: 8/17, d0 + 4/17.
    # The gradient of tanh(beta H) is beta (1 - J^2) dH/dtheta.
    j1 = math.tanh(beta * -200.0)
    assert j1 == pytest.approx(-8 / 17, rel=1e-14)
    sum0 = (-8 / 17 - 1 / 4) + 0.5 * (8 / 17)
    sum1 = 8 / 17
    want0 = 1e-3 * sum0 * beta * (1 - 1 / 16)
    want1 = 1e-3 * sum1 * beta * (1 - 64 / 289)
    assert change[0] == pytest.approx(want0, rel=1e-12)
    assert change[1] == pytest.approx(want1, rel=1e-12)
    assert np.count_nonzero(change) == 2


def test_td_leaf_squashed_outcome_is_plus_minus_one() -> None:
    beta = math.atanh(0.25) / 100.0
    hyper = Hyper(step_size=1e-3, lam=0.0, squash=True, predicted_only=False, use_outcome=True)
    model = bitboard_model(6)
    # One step per colour: each learns towards its result, +1 (white) and -1 (black).
    steps = [leaf_step(0, 100.0, 0), leaf_step(1, 100.0, 1)]
    change = change_after(TDLeaf, model, hyper, lambda a: a.end_game(steps, 1.0))
    slope = beta * (1 - 1 / 16)
    assert change[0] == pytest.approx(1e-3 * (1 - 0.25) * slope, rel=1e-12)
    assert change[1] == pytest.approx(1e-3 * (-1 - 0.25) * slope, rel=1e-12)


# --- TD(lambda) and TD-Root(lambda) --------------------------------------------------


def root_step(color: int, static: float, value: float, grad: dict[int, float]) -> Step:
    return Step(
        color=color,
        root_value=value,
        root_static=static,
        root_idx=np.array(list(grad), dtype=np.int32),
        root_val=np.array(list(grad.values()), dtype=np.float64),
    )


def td_game() -> list[Step]:
    """Self-play, interleaved: white H = [10, 40, -20], V = [30, 60, 0];
    black H = [5, -15, 25], V = [0, -30, 45] (each from its own side)."""
    white = [(10.0, 30.0), (40.0, 60.0), (-20.0, 0.0)]
    black = [(5.0, 0.0), (-15.0, -30.0), (25.0, 45.0)]
    steps = []
    for t in range(3):
        steps.append(root_step(0, *white[t], {t: 1.0}))
        steps.append(root_step(1, *black[t], {10 + t: 1.0, 20: 0.5}))
    return steps


# Expected G_t - H_t by hand. White won: its final target is +9900, black's -9900.
# TD, white: q = [40, -20] (next H). lambda 0: G = [40, -20, 9900];
#   lambda 0.7: G1 = -20 + 0.7 * 9920 = 6924, G0 = 40 + 0.7 * (6924 - 40) = 4858.8.
# TD, black: q = [-15, 25]. lambda 0: G = [-15, 25, -9900];
#   lambda 0.7: G1 = 25 + 0.7 * -9925 = -6922.5, G0 = -15 + 0.7 * -6907.5 = -4850.25.
# TD-Root, white: q = [60, 0] (next V). lambda 0: G = [60, 0, 9900];
#   lambda 0.7: G1 = 0 + 0.7 * 9900 = 6930, G0 = 60 + 0.7 * 6870 = 4869.
# TD-Root, black: q = [-30, 45]. lambda 0: G = [-30, 45, -9900];
#   lambda 0.7: G1 = 45 + 0.7 * -9945 = -6916.5, G0 = -30 + 0.7 * -6886.5 = -4850.55.
#   (G_t - H_t for black: -4850.55 - 5, -6916.5 + 15, -9900 - 25.)
# lambda 1: every G is the outcome.
TD_DELTAS = {
    ("td", 0.0): ([30.0, -60.0, 9920.0], [-20.0, 40.0, -9925.0]),
    ("td", 1.0): ([9890.0, 9860.0, 9920.0], [-9905.0, -9885.0, -9925.0]),
    ("td", 0.7): ([4848.8, 6884.0, 9920.0], [-4855.25, -6907.5, -9925.0]),
    ("td-root", 0.0): ([50.0, -40.0, 9920.0], [-35.0, 60.0, -9925.0]),
    ("td-root", 1.0): ([9890.0, 9860.0, 9920.0], [-9905.0, -9885.0, -9925.0]),
    ("td-root", 0.7): ([4859.0, 6890.0, 9920.0], [-4855.55, -6901.5, -9925.0]),
}


@pytest.mark.parametrize(("name", "lam"), list(TD_DELTAS))
def test_td_lambda_returns_by_hand(name: str, lam: float) -> None:
    cls = {"td": TemporalDifference, "td-root": TDRoot}[name]
    white, black = TD_DELTAS[(name, lam)]
    eta = 1e-5
    hyper = Hyper(step_size=eta, lam=lam, squash=False, use_outcome=True)
    model = zero_model()
    change = change_after(cls, model, hyper, lambda a: a.end_game(td_game(), 1.0))
    expected = np.zeros(769)
    for t in range(3):
        expected[t] = eta * white[t]
        expected[10 + t] = eta * black[t]
    expected[20] = eta * 0.5 * sum(black)
    np.testing.assert_allclose(change, expected, rtol=1e-12, atol=1e-18)


def test_td_draw_and_black_win() -> None:
    """The outcome is white's; black's is its negation; a draw targets 0."""
    eta = 1e-5
    hyper = Hyper(step_size=eta, lam=1.0, squash=False, use_outcome=True)
    for outcome, z_white in ((0.0, 0.0), (-1.0, -9900.0)):
        model = zero_model()
        change = change_after(
            TemporalDifference, model, hyper, lambda a, o=outcome: a.end_game(td_game(), o)
        )
        # lambda 1: every step's target is the outcome for its colour.
        for t, h in enumerate([10.0, 40.0, -20.0]):
            assert change[t] == pytest.approx(eta * (z_white - h), rel=1e-12)
        for t, h in enumerate([5.0, -15.0, 25.0]):
            assert change[10 + t] == pytest.approx(eta * (-z_white - h), rel=1e-12)


def test_td_root_squashed_one_step() -> None:
    beta = math.atanh(0.25) / 100.0
    eta = 1e-3
    hyper = Hyper(step_size=eta, lam=0.0, squash=True, use_outcome=True)
    model = zero_model()
    # White H = [100, 0], V = [0, -200]; white lost: final target -1.
    steps = [root_step(0, 100.0, 0.0, {0: 1.0}), root_step(0, 0.0, -200.0, {1: 1.0})]
    change = change_after(TDRoot, model, hyper, lambda a: a.end_game(steps, -1.0))
    # t = 0 moves towards squash(V1) = -8/17 from 1/4; t = 1 towards -1 from 0.
    assert change[0] == pytest.approx(eta * (-8 / 17 - 1 / 4) * beta * (15 / 16), rel=1e-12)
    assert change[1] == pytest.approx(eta * (-1 - 0) * beta, rel=1e-12)


# --- registry ------------------------------------------------------------------------


def test_registry_names_kinds_and_default_step_sizes() -> None:
    names = {"td", "td-root", "td-leaf", "rootstrap-mm", "rootstrap-ab", "treestrap-mm"}
    names.add("treestrap-ab")
    assert set(RULES_BY_NAME) == names
    model = random_model("bitboard", seed=0)
    for name in names:
        algo = make_algorithm(name, model)
        assert algo.name == name
        assert algo.hyper.step_size == RULES_BY_NAME[name].step
        assert algo.search_kind == (MINIMAX if name.endswith("-mm") else ALPHABETA)
        assert algo.needs_tree == name.startswith("treestrap")
        assert algo.needs_leaf == (name == "td-leaf")
    # Veness et al. (2009), section 6.0.1
    assert make_algorithm("td-leaf", model).hyper.step_size == 1e-5
    assert make_algorithm("rootstrap-ab", model).hyper.step_size == 1e-5
    assert make_algorithm("treestrap-mm", model).hyper.step_size == 1e-6
    assert make_algorithm("treestrap-ab", model).hyper.step_size == 5e-7
    custom = Hyper(step_size=0.125, lam=0.3)
    assert make_algorithm("td", model, custom).hyper is custom


def test_registry_unknown_name() -> None:
    with pytest.raises(ValueError, match="unknown algorithm 'treestrap'"):
        make_algorithm("treestrap", random_model("bitboard"))


def test_each_rule_row_names_its_class_and_the_class_its_row() -> None:
    for rule in RULES:
        assert rule.rule_class().name == rule.name


def test_squashed_default_step_matches_the_unsquashed_update_near_zero() -> None:
    from treestrap.learn.registry import default_step_size
    from treestrap.learn.temporal import BETA

    assert default_step_size("treestrap-ab") == RULES_BY_NAME["treestrap-ab"].step
    assert default_step_size("td-leaf", squash=False) == RULES_BY_NAME["td-leaf"].step
    # Small leaf values (a few centipawns), where tanh is nearly linear: one game's
    # update with the squash and its default step is the unsquashed one, to 0.1%.
    steps = [leaf_step(0, 2.0, 0), leaf_step(0, -1.0, 1), leaf_step(0, 3.0, 2)]
    changes = []
    for squash in (True, False):
        hyper = Hyper(
            step_size=default_step_size("td-leaf", squash),
            lam=0.5,
            squash=squash,
            predicted_only=False,
            use_outcome=False,
        )
        changes.append(
            change_after(TDLeaf, bitboard_model(6), hyper, lambda a: a.end_game(steps, 0.0))
        )
    assert np.count_nonzero(changes[1]) == 2
    np.testing.assert_allclose(changes[0], changes[1], rtol=1e-3)
    assert default_step_size("td-leaf") == pytest.approx(RULES_BY_NAME["td-leaf"].step / BETA**2)
