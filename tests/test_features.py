"""Feature sets against independent references built with python-chess.

* ``meep``: the compiled extractor against the plain-Python reference implementation of
  its specification in ``meep_reference.py``, feature by feature, on ~300 positions from
  random legal games; colour-flip symmetry; the active-entry bound.
* ``bitboard``: 12 x 64 indicators plus the white-to-move bit; white-relative scores.
* The gradient returned by :func:`treestrap.evaluation.model.evaluate_gradient`, the
  compiled dispatch over the registry, feature names and layout hashes.
"""

from __future__ import annotations

import dataclasses
import pickle
import random
import subprocess
import sys
from collections import Counter
from functools import cache

import chess
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from meep_reference import colour_features, phase, reference_meep

from treestrap.core.notation import parse_fen
from treestrap.evaluation.feature_sets import FEATURE_SET_NAMES, all_feature_sets, get_feature_set
from treestrap.evaluation.feature_sets import meep as M
from treestrap.evaluation.feature_sets.dispatch import (
    MAX_ACTIVE,
    extract_features,
    feature_gradient,
    feature_score,
)
from treestrap.evaluation.feature_sets.feature_set import PERSPECTIVE_WHITE, dense_features
from treestrap.evaluation.model import evaluate, evaluate_gradient
from treestrap.evaluation.presets import hand_set_model, random_model

MEEP_SET = get_feature_set("meep")
BITBOARD_SET = get_feature_set("bitboard")

#: Where random games start: the initial position, middlegames (castling rights,
#: central kings, open files) and endgames of every phase (passed pawns, races).
START_FENS = (
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
    "r4rk1/1b2qppp/p1n1p3/1p1nP3/3P4/P1NB1N2/1P3PPP/R2Q1RK1 b - - 0 14",
    "2kr3r/ppp2ppp/2n5/8/8/2N5/PPP2PPP/2KR3R w - - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "8/pp3k2/2p5/3P4/2P5/6K1/PP6/8 w - - 0 1",
    "4k3/1p3pp1/p3p2p/8/3P4/P4P2/1P3KPP/2R5 b - - 0 30",
    "2r3k1/5ppp/8/8/8/8/5PPP/2B1R1K1 w - - 0 1",
    "8/1P6/8/3k4/8/8/5Kp1/8 w - - 0 1",
    "4k3/3q4/8/8/8/8/3Q4/4K3 w - - 0 1",
)

#: Legal positions crowded with pieces (many queens after promotions): the most active
#: meep entries we can think of.
CROWDED_FENS = (
    "QQQQQQQQ/QRRBBNNK/8/8/8/8/qrrbbnnk/qqqqqqqq w - - 0 1",
    "QQQQQQQQ/QRRBBNNK/8/8/8/8/qrrbbnnk/qqqqqqqq b - - 0 1",
    "NNBBRRQQ/QQQQQQQK/8/8/8/8/pppppppp/rnbqkbnr b - - 0 1",
    "r1bqkb1r/pppppppp/2n2n2/8/8/2N2N2/PPPPPPPP/R1BQKB1R w KQkq - 4 3",
)

GAMES_PER_START = 3
SAMPLE_PROBABILITY = 0.1
SEED = 20240607


def random_game(rng: random.Random, fen: str, plies: int) -> list[chess.Board]:
    """The positions of a uniformly random legal game of at most ``plies`` plies."""
    board = chess.Board(fen)
    boards = [board.copy()]
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
        boards.append(board.copy(stack=False))
    return boards


@cache
def sample_positions() -> tuple[chess.Board, ...]:
    """~300 distinct positions: every start FEN, then positions at random plies."""
    rng = random.Random(SEED)
    seen: dict[str, chess.Board] = {}
    for fen in START_FENS:
        seen[fen] = chess.Board(fen)
        for _ in range(GAMES_PER_START):
            for board in random_game(rng, fen, rng.randrange(10, 160))[1:]:
                if rng.random() < SAMPLE_PROBABILITY:
                    seen.setdefault(board.fen(), board)
    return tuple(seen.values())


def meep_phi(board: chess.Board) -> np.ndarray:
    return dense_features(parse_fen(board.fen()), MEEP_SET)


def describe(names: list[str], fen: str, got: np.ndarray, want: np.ndarray) -> str:
    rows = [
        f"  {names[i]} [{i}]: extractor {got[i]:g}, reference {want[i]:g}"
        for i in np.nonzero(got != want)[0]
    ]
    return "\n".join([f"{fen}", *rows])


# --- meep against the reference ----------------------------------------------------


def test_sample_covers_every_phase_and_both_sides():
    boards = sample_positions()
    assert 250 <= len(boards) <= 400
    phases = Counter(phase(b) for b in boards)
    assert min(phases[p] for p in range(M.PHASE_NB)) >= 30, phases
    sides = Counter(b.turn for b in boards)
    assert min(sides.values()) >= 100, sides


def test_sample_exercises_every_feature_group():
    """Guards the comparison against a sample that never turns a block on."""
    names = MEEP_SET.names
    active = np.zeros(M.MEEP_SIZE, dtype=bool)
    for board in sample_positions():
        p = phase(board)
        for c in chess.COLORS:
            active |= colour_features(board, c, p) != 0
    groups = Counter()
    for i in np.nonzero(active)[0]:
        parts = names[i].split("/")
        groups[parts[0] if parts[0] in ("material", "bishop_pair") else "/".join(parts[:3])] += 1
    groups["threats/hanging"] = sum(active[M.HANGING : M.HANGING + 5])
    expected = ["material", "bishop_pair", "threats/hanging"]
    for ph in ("opening", "middlegame", "endgame"):
        expected += [f"psqt/{ph}/{t}" for t in ("pawn", "knight", "bishop", "rook", "queen")]
        expected += [f"psqt/{ph}/king"]
        expected += [
            f"pawns/{ph}/{k}"
            for k in (
                "passed_rank",
                "passed_file",
                "passed_free_rank",
                "passed_defended_rank",
                "doubled",
                "isolated",
                "backward",
                "connected_rank",
            )
        ]
        expected += [
            f"king/{ph}/{k}"
            for k in (
                "zone_attackers",
                "attack_weight",
                "shield",
                "storm",
                "open_file",
                "half_open_file",
                "tropism",
            )
        ]
        expected += [f"mobility/{ph}/{t}" for t in ("knight", "bishop", "rook", "queen", "king")]
    expected += ["king/opening/castling", "king/middlegame/castling"]
    missing = [g for g in expected if groups[g] == 0]
    assert not missing, f"feature groups never active in the sample: {missing}"


def test_meep_matches_reference_implementation():
    names = MEEP_SET.names
    failures = []
    for board in sample_positions():
        got, want = meep_phi(board), reference_meep(board)
        if not np.array_equal(got, want):
            failures.append(describe(names, board.fen(), got, want))
    assert not failures, (
        f"{len(failures)} of {len(sample_positions())} positions differ:\n"
        + "\n".join(failures[:15])
    )


@pytest.mark.parametrize("fen", CROWDED_FENS)
def test_meep_matches_reference_on_crowded_positions(fen):
    board = chess.Board(fen)
    got, want = meep_phi(board), reference_meep(board)
    assert np.array_equal(got, want), describe(MEEP_SET.names, fen, got, want)


# --- bitboard against indicators ---------------------------------------------------


def bitboard_indicators(board: chess.Board) -> np.ndarray:
    x = np.zeros(BITBOARD_SET.size)
    for sq, piece in board.piece_map().items():
        colour = 0 if piece.color == chess.WHITE else 1
        x[(colour * 6 + piece.piece_type - 1) * 64 + sq] = 1.0
    x[768] = 1.0 if board.turn == chess.WHITE else 0.0
    return x


def test_bitboard_matches_indicators():
    for board in sample_positions():
        got = dense_features(parse_fen(board.fen()), BITBOARD_SET)
        want = bitboard_indicators(board)
        assert np.array_equal(got, want), describe(BITBOARD_SET.names, board.fen(), got, want)


# --- colour flips and perspectives -------------------------------------------------


def flip_sample() -> tuple[chess.Board, ...]:
    return sample_positions()[::3]


def meep_models():
    return [random_model("meep", seed=1), random_model("meep", seed=7), hand_set_model("meep")]


def test_meep_phi_is_invariant_under_colour_flip():
    names = MEEP_SET.names
    for board in flip_sample():
        flipped = board.mirror()
        phi, phi_flipped = meep_phi(board), meep_phi(flipped)
        assert np.array_equal(phi, phi_flipped), describe(
            names, f"{board.fen()} vs mirror {flipped.fen()}", phi_flipped, phi
        )
        # the reference itself must be symmetric too, or it would be no reference
        assert np.array_equal(reference_meep(flipped), reference_meep(board)), board.fen()


def test_meep_side_to_move_score_is_invariant_under_colour_flip():
    for model in meep_models():
        for board in flip_sample():
            flipped = board.mirror()
            score = model.evaluate(parse_fen(board.fen()))
            score_flipped = model.evaluate(parse_fen(flipped.fen()))
            assert score_flipped == pytest.approx(score, rel=1e-9, abs=1e-9), board.fen()
            # white-relative scores are negated
            white = score if board.turn == chess.WHITE else -score
            white_flipped = score_flipped if flipped.turn == chess.WHITE else -score_flipped
            assert white_flipped == pytest.approx(-white, rel=1e-9, abs=1e-9), board.fen()


def test_bitboard_model_is_white_relative():
    models = [random_model("bitboard", seed=3), hand_set_model("bitboard")]
    for model in models:
        for board in flip_sample():
            raw = float(model.weights @ bitboard_indicators(board))
            want = raw if board.turn == chess.WHITE else -raw
            got = model.evaluate(parse_fen(board.fen()))
            assert got == pytest.approx(want, rel=1e-9, abs=1e-9), board.fen()


def test_hand_set_bitboard_model_is_invariant_under_colour_flip():
    model = hand_set_model("bitboard")
    for board in flip_sample():
        score = model.evaluate(parse_fen(board.fen()))
        score_flipped = model.evaluate(parse_fen(board.mirror().fen()))
        assert score_flipped == pytest.approx(score, rel=1e-9, abs=1e-9), board.fen()


# --- the gradient ------------------------------------------------------------------


def perspective_sign(fs, board: chess.Board) -> float:
    return -1.0 if fs.perspective == PERSPECTIVE_WHITE and board.turn == chess.BLACK else 1.0


@pytest.mark.parametrize("name", FEATURE_SET_NAMES)
def test_evaluate_gradient_is_sign_times_phi(name):
    fs = get_feature_set(name)
    model = random_model(name, seed=11)
    ev = model.evaluator()
    for board in sample_positions()[::10]:
        pos = parse_fen(board.fen())
        score, n = evaluate_gradient(pos, ev)
        grad = np.zeros(fs.size)
        np.add.at(grad, ev.idx[:n], ev.val[:n])
        sign = perspective_sign(fs, board)
        phi = dense_features(pos, fs)
        assert np.array_equal(grad, sign * phi), board.fen()
        if name == "meep":
            assert np.array_equal(grad, reference_meep(board)), board.fen()
        assert score == pytest.approx(float(model.weights @ grad), rel=1e-9, abs=1e-9)
        assert score == pytest.approx(model.evaluate(pos), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("name", FEATURE_SET_NAMES)
def test_the_score_searches_use_is_the_dot_product_over_the_pairs_bit_for_bit(name):
    # Searches score without storing pairs (a fused score where a set has one); it
    # must be the very float the pairs add up to in their order, or node counts move.
    fs = get_feature_set(name)
    ev = random_model(name, seed=12).evaluator()
    for board in sample_positions():
        pos = parse_fen(board.fen())
        n = feature_gradient(pos, fs.id, ev.idx, ev.val)
        dot = 0.0
        for i in range(n):
            dot += ev.weights[ev.idx[i]] * ev.val[i]
        fused = feature_score(pos, fs.id, ev.weights, ev.idx, ev.val)
        assert fused == dot, board.fen()
        assert evaluate(pos, ev) == evaluate_gradient(pos, ev)[0] == dot, board.fen()


# --- names and layout hashes -------------------------------------------------------


@pytest.mark.parametrize("name", FEATURE_SET_NAMES)
def test_feature_names_are_unique_and_complete(name):
    fs = get_feature_set(name)
    names = fs.names
    assert len(names) == fs.size
    duplicates = [n for n, k in Counter(names).items() if k > 1]
    assert not duplicates, duplicates


def test_meep_names_match_layout_constants():
    names = MEEP_SET.names
    assert names[M.MATERIAL] == "material/pawn"
    assert names[M.BISHOP_PAIR] == "bishop_pair"
    assert names[M.PSQT + M.PSQT_SIZE + 1 * 64 + 21] == "psqt/middlegame/knight/f3"
    assert names[M.PAWNS + M.P_BACKWARD + 3] == "pawns/opening/backward/d"
    assert names[M.MOBILITY + M.MOBILITY_BASE[4] + 27] == "mobility/opening/queen/27"
    assert names[M.KING_SAFETY + M.K_TROPISM] == "king/opening/tropism/knight/0"
    assert names[M.THREATS + 0 * 6 + 4] == "threats/pawn_attacks_queen"
    assert names[M.HANGING + 4] == "threats/hanging/queen"
    assert names[M.TEMPO] == "tempo"


def test_layout_hash_is_stable_and_distinguishes_sets():
    hashes = {}
    for fs in all_feature_sets():
        first = fs.layout_hash
        assert fs.layout_hash == first
        fresh = dataclasses.replace(fs)  # a copy that computes its hash anew
        assert fresh is not fs and fresh.layout_hash == first
        assert len(first) == 16 and int(first, 16) >= 0
        hashes[fs.name] = first
    assert len(set(hashes.values())) == len(hashes)


def test_layout_hashes_of_weight_files_already_written_are_kept():
    """Weight files record these: changing one would refuse every file written before."""
    assert get_feature_set("meep").layout_hash == "a4f05061a0378fde"
    assert get_feature_set("bitboard").layout_hash == "355f7984c9a9f3c5"


# --- the registry and its compiled dispatch ----------------------------------------


def test_registry_ids_follow_registration_order():
    assert FEATURE_SET_NAMES[:2] == ("meep", "bitboard")
    assert [fs.id for fs in all_feature_sets()] == list(range(len(FEATURE_SET_NAMES)))
    assert [fs.name for fs in all_feature_sets()] == list(FEATURE_SET_NAMES)
    assert all(get_feature_set(fs.name) is fs for fs in all_feature_sets())
    assert max(fs.max_active for fs in all_feature_sets()) == MAX_ACTIVE


def test_feature_sets_pickle_as_the_registered_ones():
    for fs in all_feature_sets():
        assert pickle.loads(pickle.dumps(fs)) is fs


def test_unknown_feature_set_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="known: bitboard, meep"):
        get_feature_set("nnue")


def test_registry_module_imports_no_numba():
    """The command line lists the feature sets without loading the compiled layers."""
    code = (
        "import sys\n"
        "from treestrap.evaluation.feature_sets import FEATURE_SET_NAMES\n"
        "assert 'meep' in FEATURE_SET_NAMES\n"
        "assert 'numba' not in sys.modules, 'numba imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("name", FEATURE_SET_NAMES)
def test_dispatch_reaches_each_set_and_its_gradient_is_sign_times_phi(name):
    fs = get_feature_set(name)
    idx = np.zeros(MAX_ACTIVE, dtype=np.int32)
    val = np.zeros(MAX_ACTIVE, dtype=np.float64)
    for board in sample_positions()[::10]:
        pos = parse_fen(board.fen())
        phi = dense_features(pos, fs)
        n = extract_features(pos, fs.id, idx, val)
        dispatched = np.zeros(fs.size)
        np.add.at(dispatched, idx[:n], val[:n])
        assert np.array_equal(dispatched, phi), board.fen()
        n = feature_gradient(pos, fs.id, idx, val)
        grad = np.zeros(fs.size)
        np.add.at(grad, idx[:n], val[:n])
        assert np.array_equal(grad, perspective_sign(fs, board) * phi), board.fen()


# --- the active-entry bound --------------------------------------------------------

GUARD = 64
SENTINEL_IDX = -123456
SENTINEL_VAL = -7.25


def extract_with_guard(board: chess.Board) -> tuple[int, np.ndarray, np.ndarray]:
    """Extract into buffers of exactly MEEP_MAX_ACTIVE entries that sit in front of a
    sentinel-filled guard region (compiled code has no bounds checks, so an overrun
    would land in the guard)."""
    idx_full = np.full(M.MEEP_MAX_ACTIVE + GUARD, SENTINEL_IDX, dtype=np.int32)
    val_full = np.full(M.MEEP_MAX_ACTIVE + GUARD, SENTINEL_VAL, dtype=np.float64)
    idx, val = idx_full[: M.MEEP_MAX_ACTIVE], val_full[: M.MEEP_MAX_ACTIVE]
    assert idx.shape == (M.MEEP_MAX_ACTIVE,) and val.shape == (M.MEEP_MAX_ACTIVE,)
    n = M.meep_features(parse_fen(board.fen()), idx, val)
    assert 0 < n <= M.MEEP_MAX_ACTIVE, (n, board.fen())
    assert np.all(idx_full[M.MEEP_MAX_ACTIVE :] == SENTINEL_IDX), board.fen()
    assert np.all(val_full[M.MEEP_MAX_ACTIVE :] == SENTINEL_VAL), board.fen()
    assert np.all((idx[:n] >= 0) & (idx[:n] < M.MEEP_SIZE)), board.fen()
    return n, idx, val


@settings(derandomize=True, deadline=None, max_examples=60)
@given(
    start=st.sampled_from(START_FENS),
    seed=st.integers(0, 2**32 - 1),
    plies=st.integers(0, 200),
)
def test_active_entries_fit_the_buffer(start, seed, plies):
    board = random_game(random.Random(seed), start, plies)[-1]
    n, idx, val = extract_with_guard(board)
    dense = np.zeros(M.MEEP_SIZE)
    np.add.at(dense, idx[:n], val[:n])
    assert np.array_equal(dense, reference_meep(board)), board.fen()


@pytest.mark.parametrize("fen", CROWDED_FENS)
def test_active_entries_fit_the_buffer_when_crowded(fen):
    extract_with_guard(chess.Board(fen))


def test_meep_extract_features_dispatches_to_meep():
    board = chess.Board(START_FENS[1])
    pos = parse_fen(board.fen())
    idx = np.zeros(M.MEEP_MAX_ACTIVE, dtype=np.int32)
    val = np.zeros(M.MEEP_MAX_ACTIVE, dtype=np.float64)
    n = extract_features(pos, MEEP_SET.id, idx, val)
    dense = np.zeros(M.MEEP_SIZE)
    np.add.at(dense, idx[:n], val[:n])
    assert np.array_equal(dense, reference_meep(board))


def test_meep_index_ranges_are_those_documented() -> None:
    assert (M.MATERIAL, M.BISHOP_PAIR, M.PSQT) == (0, 5, 6)
    assert (M.PAWNS, M.MOBILITY, M.KING_SAFETY) == (1158, 1326, 1551)
    assert (M.THREATS, M.HANGING, M.TEMPO, M.MEEP_SIZE) == (1788, 1824, 1829, 1830)
    assert "1158 - 1325" in (M.__doc__ or "")
