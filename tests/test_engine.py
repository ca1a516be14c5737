"""The engine API in process: mates at the right distance, material won, limits kept,
a deterministic bench signature."""

from __future__ import annotations

import threading
import time

import chess
import numpy as np
import pytest

from treestrap.core.notation import STARTING_FEN, parse_fen
from treestrap.engine.bench import BENCH_FENS, run_bench
from treestrap.engine.engine import Engine, SearchOutcome
from treestrap.evaluation.presets import hand_set_model
from treestrap.search.timeman import SearchLimits
from treestrap.search.tournament import EngineOptions
from treestrap.search.value import MATE, MATE_BOUND

#: Total bench nodes at depth 3 with the hand-set weights. It changes whenever the
#: search or the evaluation changes (move ordering, pruning, extensions, weights, the
#: bench positions): after such a change check that the change was meant, then update
#: it from ``treestrap bench --depth 3``.
BENCH_DEPTH_3_NODES = 14_145
#: The same with every switch of the search that is off by default turned on (history
#: malus, history in late move reductions, improving, adaptive null move, internal
#: iterative reduction, exchange pruning in the main search, razoring).
LATER_ON_DEPTH_3_NODES = 13_686
LATER_SWITCHES = tuple(name for name, on in EngineOptions._field_defaults.items() if on is False)


pytestmark = pytest.mark.usefixtures("kernels_load_from_cache")


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(hand_set_model().evaluator())


def search(engine: Engine, fen: str, **limits) -> SearchOutcome:
    engine.new_game()
    return engine.go(parse_fen(fen), SearchLimits(**limits))


def forced_mate(board: chess.Board, moves: int) -> bool:
    """Whether the side to move mates in at most ``moves`` moves against any defence
    (python-chess, brute force: for small counts only)."""
    for move in list(board.legal_moves):
        board.push(move)
        try:
            if board.is_checkmate():
                return True
            if moves > 1 and not board.is_game_over():
                replies = list(board.legal_moves)
                if all(_mates_after(board, reply, moves - 1) for reply in replies):
                    return True
        finally:
            board.pop()
    return False


def _mates_after(board: chess.Board, reply: chess.Move, moves: int) -> bool:
    board.push(reply)
    try:
        return forced_mate(board, moves)
    finally:
        board.pop()


def mate_distance(score: float) -> int:
    """Moves to mate announced by a score (negative: the side to move is mated)."""
    assert abs(score) >= MATE_BOUND, score
    moves = (round(MATE - abs(score)) + 1) // 2
    return moves if score > 0 else -moves


# --- mates -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fen", "moves"),
    [
        ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 1),  # back-rank mate
        ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", 1),  # Qxf7#
        ("7k/8/8/8/8/8/R7/1R4K1 w - - 0 1", 2),  # the rook roller
        ("2k5/8/1K6/8/8/8/8/3R4 w - - 0 1", 2),
        ("r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1", 3),  # Ra6 f6 Bxf6+ Rg7 Rxa8#
    ],
)
def test_finds_mate_at_the_right_distance(engine: Engine, fen: str, moves: int) -> None:
    board = chess.Board(fen)
    # The position really is a mate in exactly ``moves`` (python-chess, brute force).
    assert forced_mate(board, moves)
    assert moves == 1 or not forced_mate(board, moves - 1)
    out = search(engine, fen, depth=2 * moves + 4)
    assert mate_distance(out.score) == moves
    # The move played keeps the mate: every defence still loses in time.
    first = chess.Move.from_uci(out.best_move)
    assert first in board.legal_moves
    board.push(first)
    if moves == 1:
        assert board.is_checkmate()
    else:
        for reply in list(board.legal_moves):
            board.push(reply)
            assert forced_mate(board, moves - 1), (fen, out.best_move, reply.uci())
            board.pop()


def test_being_mated_scores_negative_mate(engine: Engine) -> None:
    # Black's only move Kg8 allows Ra8#.
    out = search(engine, "7k/8/6K1/8/8/8/8/R7 b - - 0 1", depth=6)
    assert out.best_move == "h8g8"
    assert mate_distance(out.score) == -1


# --- material --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fen", "best", "gain"),
    [
        # A queen left en prise to a knight.
        ("rnb1kbnr/pppp1ppp/8/4p3/7q/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 1", "f3h4", 500),
        # Knight fork of king and queen: Ne7+ then Nxc6.
        ("6k1/5ppp/2q5/3N4/8/8/5PPP/6K1 w - - 0 1", "d5e7", 200),
        # Skewer along the a2-g8 diagonal: Ba2+ and Bxg8 next.
        ("6q1/6p1/8/3k4/8/8/6P1/1B2K3 w - - 0 1", "b1a2", 200),
        # Rook skewer on the fifth rank: Rh5+ and Rxa5 next.
        ("8/8/8/q2k4/8/8/4K3/7R w - - 0 1", "h1h5", 200),
    ],
)
def test_wins_material(engine: Engine, fen: str, best: str, gain: float) -> None:
    out = search(engine, fen, depth=6)
    assert out.best_move == best
    assert out.score >= gain


# --- pruning ---------------------------------------------------------------------------

PRUNING_RULES = ("exchange_pruning", "futility", "late_move_pruning")


def _nodes(options: EngineOptions, fens: tuple[str, ...], depth: int) -> int:
    engine = Engine(hand_set_model().evaluator(), options=options)
    return sum(search(engine, fen, depth=depth).nodes for fen in fens)


@pytest.mark.parametrize("rule", PRUNING_RULES)
def test_each_pruning_rule_is_wired_and_changes_the_tree(rule: str) -> None:
    # Whether a rule pays is for matches to say (docs/engine.md); here only that its
    # option reaches the search. (A fixed-depth tree may even grow with late move
    # pruning: fewer moves searched near the horizon change what the table holds.)
    fens = BENCH_FENS[1:4]
    with_rule = _nodes(EngineOptions(), fens, depth=5)
    without = _nodes(EngineOptions(**{rule: False}), fens, depth=5)
    assert with_rule != without, (rule, with_rule, without)


@pytest.mark.parametrize(
    ("fen", "best"),
    [
        ("rnb1kbnr/pppp1ppp/8/4p3/7q/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 1", "f3h4"),
        ("6k1/5ppp/2q5/3N4/8/8/5PPP/6K1 w - - 0 1", "d5e7"),
    ],
)
def test_without_any_pruning_rule_the_tactics_are_the_same(fen: str, best: str) -> None:
    engine = Engine(
        hand_set_model().evaluator(),
        options=EngineOptions(**{rule: False for rule in PRUNING_RULES}),
    )
    assert search(engine, fen, depth=6).best_move == best


# --- limits ----------------------------------------------------------------------------


MIDDLEGAME = "r1bq1rk1/pp2b1pp/n1pp1n2/3P1p2/2P1p3/2N1P2N/PP2BPPP/R1BQ1RK1 b - - 2 10"


@pytest.mark.parametrize("nodes", [1_000, 20_000])
def test_node_limit_is_respected(engine: Engine, nodes: int) -> None:
    out = search(engine, MIDDLEGAME, nodes=nodes)
    assert out.best_move is not None
    assert nodes // 2 <= out.nodes <= nodes + 100


def test_movetime_is_respected(engine: Engine) -> None:
    start = time.perf_counter()
    out = search(engine, MIDDLEGAME, movetime=0.3)
    elapsed = time.perf_counter() - start
    assert elapsed < 0.3 + 0.5
    assert out.best_move is not None and out.depth >= 1


def test_clock_limit_answers_in_time(engine: Engine) -> None:
    start = time.perf_counter()
    out = search(engine, MIDDLEGAME, wtime=2.0, btime=2.0)
    # At most about a quarter of the clock, whatever the iteration in progress.
    assert time.perf_counter() - start < 2.0 / 4 + 0.3
    assert out.best_move is not None


def test_stop_from_another_thread(engine: Engine) -> None:
    threading.Timer(0.3, engine.stop).start()
    start = time.perf_counter()
    out = search(engine, MIDDLEGAME, infinite=True)
    assert time.perf_counter() - start < 0.3 + 0.5
    assert out.best_move is not None


def test_stop_before_go_ends_the_prepared_search(engine: Engine) -> None:
    # The UCI front end's order: prepare, start the thread; the stop may win the race.
    engine.new_game()
    engine.prepare()
    release = threading.Event()
    outcomes: list[SearchOutcome] = []

    def searcher() -> None:
        release.wait()
        outcomes.append(engine.go(parse_fen(MIDDLEGAME), SearchLimits(depth=60)))

    thread = threading.Thread(target=searcher)
    thread.start()
    engine.stop()  # before the thread has entered go
    release.set()
    thread.join(timeout=30.0)
    assert not thread.is_alive(), "the stop asked before go was lost"
    # Stopped after the first iteration, which always finishes: a searched move.
    out = outcomes[0]
    assert out.depth == 1
    assert out.best_move == search(engine, MIDDLEGAME, depth=1).best_move


def test_stop_before_an_infinite_go(engine: Engine) -> None:
    engine.prepare()
    engine.stop()
    out = search(engine, STARTING_FEN, infinite=True)
    assert out.depth == 1
    assert chess.Move.from_uci(out.best_move) in chess.Board().legal_moves


def test_plain_go_ignores_an_earlier_stop(engine: Engine) -> None:
    # In-process callers never prepare: a stop left from before must not cut them short.
    engine.stop()
    assert search(engine, MIDDLEGAME, depth=3).depth == 3
    # A prepared search uses up its preparation: the next plain go searches normally.
    engine.prepare()
    engine.stop()
    assert search(engine, MIDDLEGAME, depth=3).depth == 1
    engine.stop()
    assert search(engine, MIDDLEGAME, depth=3).depth == 3


def test_huge_limits_are_accepted(engine: Engine) -> None:
    # More nodes than an int64 holds, and a clock longer than any timer can wait.
    out = search(engine, MIDDLEGAME, depth=2, nodes=10**30, movetime=1e30)
    assert out.depth == 2 and out.best_move is not None


def test_infos_one_per_iteration(engine: Engine) -> None:
    seen = []
    out = engine.go(parse_fen(STARTING_FEN), SearchLimits(depth=5), seen.append)
    assert [i.depth for i in seen] == [1, 2, 3, 4, 5] == [i.depth for i in out.infos]
    assert out.depth == 5
    board = chess.Board()
    for uci in seen[-1].pv:  # the principal variation is a legal line
        board.push_uci(uci)
    assert seen[-1].pv[0] == out.best_move


# --- odd positions ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "fen",
    [
        "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",  # checkmated
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",  # stalemate
    ],
)
def test_no_legal_move_gives_no_best_move(engine: Engine, fen: str) -> None:
    out = search(engine, fen, depth=4)
    assert out.best_move is None and out.ponder is None


def test_only_move_is_played(engine: Engine) -> None:
    out = search(engine, "7k/8/6K1/8/8/8/8/R7 b - - 0 1", movetime=5.0)
    assert out.best_move == "h8g8"
    assert out.time < 1.0  # a forced move is answered at once under a clock


def test_go_leaves_the_position_untouched(engine: Engine) -> None:
    pos = parse_fen(MIDDLEGAME)
    before = [a.copy() for a in pos]
    engine.go(pos, SearchLimits(depth=5))
    for name, old, new in zip(pos._fields, before, pos, strict=True):
        assert np.array_equal(old, new), name


# --- bench -----------------------------------------------------------------------------


def test_bench_positions_are_valid() -> None:
    assert len(BENCH_FENS) >= 12
    for fen in BENCH_FENS:
        board = chess.Board(fen)
        assert board.is_valid() and not board.is_game_over(), fen
        parse_fen(fen)


def test_bench_is_deterministic() -> None:
    first, second = run_bench(depth=4), run_bench(depth=4)
    assert first.nodes == second.nodes > 0
    assert [p.nodes for p in first.positions] == [p.nodes for p in second.positions]
    assert [p.best_move for p in first.positions] == [p.best_move for p in second.positions]


def test_bench_signature() -> None:
    # Changes with any change of search or evaluation: see BENCH_DEPTH_3_NODES.
    assert run_bench(depth=3).nodes == BENCH_DEPTH_3_NODES


def test_each_later_switch_changes_the_tree() -> None:
    assert len(LATER_SWITCHES) == 7
    on = EngineOptions()._replace(**{name: True for name in LATER_SWITCHES})
    assert run_bench(depth=3, options=on).nodes == LATER_ON_DEPTH_3_NODES
    default = run_bench(depth=5).nodes
    for name in LATER_SWITCHES:  # none is a switch that does nothing
        one = EngineOptions()._replace(**{name: True})
        assert run_bench(depth=5, options=one).nodes != default, name
