"""Search threads (UCI ``Threads``, Lazy SMP): with more than one thread the engine still
answers legal moves and lines, keeps to node limits, stops at once, and refuses a bad
value; with one it searches exactly as before (the bench signature). The shared table
turns a slot torn by two writers into a miss.

UCI sessions run in process (:class:`treestrap.engine.uci.UciEngine`, hand-set weights)
and are checked with python-chess; one speaks to the real ``treestrap uci`` subprocess
through ``chess.engine``, as a GUI would.
"""

from __future__ import annotations

import os
import random
import re
import sys
import threading
import time

import chess
import chess.engine
import numpy as np
import pytest
from uci_session import SEARCH_TIMEOUT, Session, info_lines

from treestrap.core.jit import njit
from treestrap.core.notation import parse_fen
from treestrap.engine.bench import BENCH_FENS, run_bench
from treestrap.engine.engine import Engine
from treestrap.engine.lazy_smp import HelperThreads, node_shares, skip_pattern, skips_depth
from treestrap.evaluation.model import evaluate, thread_copy
from treestrap.evaluation.presets import hand_set_model, preset_model
from treestrap.search.timeman import SearchLimits
from treestrap.search.tournament import EngineOptions
from treestrap.search.tt import TranspositionTable, new_tt, tt_read, tt_store

CORES = os.cpu_count() or 1
#: The bench signature at depth 8 (docs/engine.md): one thread's, whatever was set before.
BENCH_SIGNATURE = 2110878
POSITIONS = BENCH_FENS[:4] + BENCH_FENS[9:10]

needs_two_cores = pytest.mark.skipif(CORES < 2, reason="Threads 2 needs two cores")
pytestmark = pytest.mark.usefixtures("kernels_load_from_cache")


def _check_legal(fen: str, moves: list[str]) -> None:
    board = chess.Board(fen)
    for text in moves:
        move = chess.Move.from_uci(text)
        assert move in board.legal_moves, f"{text} is illegal in {board.fen()} ({moves})"
        board.push(move)


def _score(m: re.Match[str]) -> float:
    """A comparable score: mates beyond every centipawn score, nearer ones higher."""
    v = int(m["score"])
    if m["kind"] == "cp":
        return float(v)
    return 1e6 - v if v > 0 else -1e6 - v


# --- UCI sessions ----------------------------------------------------------------------


@needs_two_cores
@pytest.mark.parametrize("fen", POSITIONS)
def test_two_threads_answer_legal_moves_and_lines(session: Session, fen: str) -> None:
    session.send("setoption name Threads value 2")
    lines = session.search(fen, "go depth 7")
    infos = info_lines(lines)
    assert int(infos[-1]["depth"]) == 7
    for m in infos:
        _check_legal(fen, m["pv"].split())
    best = lines[-1].split()
    assert best[0] == "bestmove" and best[1] == infos[-1]["pv"].split()[0]
    _check_legal(fen, best[1::2])  # the move, and the ponder move after it


@needs_two_cores
@pytest.mark.parametrize("fen", POSITIONS[1:3])
def test_two_threads_with_multipv_3(session: Session, fen: str) -> None:
    session.send("setoption name Threads value 2", "setoption name MultiPV value 3")
    lines = session.search(fen, "go depth 6")
    last = [m for m in info_lines(lines) if m["depth"] == "6"]
    assert [m["multipv"] for m in last] == ["1", "2", "3"]
    firsts = [m["pv"].split()[0] for m in last]
    assert len(set(firsts)) == 3
    scores = [_score(m) for m in last]
    assert scores == sorted(scores, reverse=True)
    for m in last:
        _check_legal(fen, m["pv"].split())
    assert lines[-1].split()[1] == firsts[0]


@needs_two_cores
def test_stop_ends_an_infinite_two_thread_search_promptly(session: Session) -> None:
    session.send("setoption name Threads value 2", f"position fen {BENCH_FENS[1]}")
    session.search(BENCH_FENS[1], "go depth 2")  # the kernels are ready
    session.out.bestmove.clear()
    session.send("go infinite")
    time.sleep(1.0)
    assert not session.out.bestmove.is_set()
    start = len(session.out.getvalue())
    asked = time.perf_counter()
    session.send("stop")
    assert session.out.bestmove.wait(5.0), "no bestmove after stop"
    assert time.perf_counter() - asked < 1.0
    best = session.output_since(start)[-1].split()
    _check_legal(BENCH_FENS[1], best[1::2])


@needs_two_cores
def test_bench_after_threads_1_keeps_the_signature(session: Session) -> None:
    session.send("setoption name Threads value 2", "setoption name Threads value 1")
    start = len(session.out.getvalue())
    session.send("bench")
    assert session.output_since(start)[-1].startswith(f"bench: {BENCH_SIGNATURE} nodes ")


@pytest.mark.parametrize("value", ["0", "1025", "two", "", "-1"])
def test_a_bad_threads_value_gets_one_error_line(session: Session, value: str) -> None:
    start = len(session.out.getvalue())
    session.send(f"setoption name Threads value {value}")
    lines = session.output_since(start)
    assert len(lines) == 1 and lines[0].startswith("info string error: setoption Threads: ")
    assert session.engine.engine.threads == 1


def test_the_option_offers_1024_threads_whatever_the_cores(session: Session) -> None:
    start = len(session.out.getvalue())
    session.send("uci")
    lines = session.output_since(start)
    assert "option name Threads type spin default 1 min 1 max 1024" in lines


def test_more_threads_than_cores_are_taken(session: Session) -> None:
    """A GUI sends its own count (peers offer 512-1024): taken without an error."""
    start = len(session.out.getvalue())
    session.send("setoption name Threads value 64")
    assert session.output_since(start) == []
    assert session.engine.engine.threads == 64
    session.send("setoption name Threads value 1")
    assert session.engine.engine.threads == 1


@needs_two_cores
def test_a_gui_plays_and_analyses_with_two_threads() -> None:
    command = [sys.executable, "-m", "treestrap.cli", "uci"]
    with chess.engine.SimpleEngine.popen_uci(command, timeout=SEARCH_TIMEOUT) as engine:
        assert engine.options["Threads"].max == 1024
        engine.configure({"Preset": "hand-set", "Threads": 2})
        board = chess.Board(BENCH_FENS[2])
        for _ in range(4):  # a few moves of a game, each searched for a tenth of a second
            played = engine.play(board, chess.engine.Limit(time=0.1))
            assert played.move in board.legal_moves
            board.push(played.move)
        infos = engine.analyse(board, chess.engine.Limit(depth=6), multipv=3)
    assert [info["multipv"] for info in infos] == [1, 2, 3]
    assert len({info["pv"][0] for info in infos}) == 3
    scores = [info["score"].relative.score(mate_score=100000) for info in infos]
    assert scores == sorted(scores, reverse=True)
    for info in infos:
        _check_legal(board.fen(), [m.uci() for m in info["pv"]])


# --- the engine ------------------------------------------------------------------------


@pytest.mark.parametrize("nodes", [1, 3, 200_000])
def test_a_node_limit_holds_for_the_threads_together(nodes: int) -> None:
    engine = Engine(hand_set_model().evaluator(), threads=2)
    outcome = engine.go(parse_fen(BENCH_FENS[1]), SearchLimits(nodes=nodes))
    assert outcome.nodes <= nodes
    # the main thread spends its share; the helper has searched beside it
    assert outcome.nodes > nodes // 2 or nodes < 2
    assert chess.Move.from_uci(outcome.best_move) in chess.Board(BENCH_FENS[1]).legal_moves


def test_node_shares_sum_to_the_limit() -> None:
    assert node_shares(10, 3) == [4, 3, 3]
    assert node_shares(1, 4) == [1]
    assert node_shares(5, 1) == [5]
    assert all(sum(node_shares(n, t)) == n for n in range(1, 40) for t in range(1, 6))


def test_helpers_skip_different_depths() -> None:
    assert [skip_pattern(h) for h in range(1, 8)] == [
        (1, 0), (1, 1), (2, 0), (2, 1), (2, 2), (2, 3), (3, 0)
    ]  # fmt: skip
    assert [d for d in range(1, 9) if not skips_depth(1, d)] == [2, 4, 6, 8]
    assert [d for d in range(1, 9) if not skips_depth(2, d)] == [1, 3, 5, 7]


def test_a_helper_deepens_until_it_is_stopped() -> None:
    """A helper has no depth limit of its own: after a short ``go depth N`` of the main
    thread it would otherwise end early and leave its core idle."""
    helpers = HelperThreads()
    root = parse_fen(BENCH_FENS[0])
    helpers.start(root, hand_set_model().evaluator(), new_tt(20), [EngineOptions()])
    try:
        deadline = time.monotonic() + 60
        while helpers.depths[0] < 9 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert helpers.depths[0] >= 9
        assert helpers.running() == 1
    finally:
        helpers.finish()
    assert helpers.running() == 0
    assert helpers.nodes() > 0


def test_threads_1_bench_signature() -> None:
    assert run_bench(threads=1).nodes == BENCH_SIGNATURE


def test_a_bad_thread_count_is_refused() -> None:
    with pytest.raises(ValueError, match="threads must be at least 1"):
        Engine(hand_set_model().evaluator(), threads=0)


def _random_positions(count: int, seed: int) -> list[str]:
    """Positions a few random moves from the bench's, none of them over."""
    rng = random.Random(seed)
    found: list[str] = []
    while len(found) < count:
        board = chess.Board(rng.choice(BENCH_FENS))
        for _ in range(rng.randrange(12)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if not board.is_game_over():
            found.append(board.fen())
    return found


def test_many_short_two_thread_searches_never_answer_an_illegal_move() -> None:
    # A small table shared across all the searches: many slots written by both threads.
    engine = Engine(hand_set_model().evaluator(), hash_mb=1, threads=2)
    deadline = time.perf_counter() + 15.0  # a slow machine searches fewer
    searched = 0
    for fen in _random_positions(1500, seed=56):
        limits = SearchLimits(nodes=6000) if searched % 2 else SearchLimits(depth=5)
        outcome = engine.go(parse_fen(fen), limits)
        assert outcome.best_move is not None
        _check_legal(fen, [outcome.best_move] + ([outcome.ponder] if outcome.ponder else []))
        for info in outcome.infos:
            _check_legal(fen, info.pv)
        searched += 1
        if time.perf_counter() > deadline:
            break
    assert searched >= 50


def test_a_network_searches_on_two_threads_with_its_own_accumulators() -> None:
    ev = preset_model("self-play-net").evaluator()
    pos = parse_fen(BENCH_FENS[3])
    copy = thread_copy(ev)
    assert copy.weights is not ev.weights and np.array_equal(copy.weights, ev.weights)
    assert evaluate(pos, copy) == evaluate(pos, ev)
    engine = Engine(ev, threads=2)
    for fen in BENCH_FENS[:6]:
        outcome = engine.go(parse_fen(fen), SearchLimits(depth=5))
        _check_legal(fen, [outcome.best_move])


# --- the shared table ------------------------------------------------------------------


def test_a_torn_slot_reads_as_empty() -> None:
    tt = new_tt(4)
    key = np.uint64(0x1234_5678_9ABC_DEF0)
    tt_store(tt, key, 5, -20.0, 30.0, 777)
    assert tt_read(tt, key) == (True, 5, -20.0, 30.0, 777)
    slot = int(key & np.uint64(15))
    tt.upper[slot] = 99.0  # another store's bound, written over this one's
    assert tt_read(tt, key)[0] is False
    # A store does not merge with a torn slot: it replaces it whole.
    tt_store(tt, key, 5, -10.0, 50.0, 0)
    assert tt_read(tt, key) == (True, 5, -10.0, 50.0, 0)


def test_another_positions_fields_under_a_key_read_as_empty() -> None:
    tt = new_tt(4)
    a, b = np.uint64(0x10), np.uint64(0x20)  # both in slot 0
    tt_store(tt, a, 3, 1.0, 1.0, 11)
    fields = tt.depth[0], tt.lower[0], tt.upper[0], tt.move[0]
    tt_store(tt, b, 4, 2.0, 2.0, 22)
    tt.depth[0], tt.lower[0], tt.upper[0], tt.move[0] = fields  # a's fields, b's key
    assert tt_read(tt, b)[0] is False
    assert tt_read(tt, a)[0] is False


# --- players of a match ----------------------------------------------------------------


def test_a_player_spec_sets_the_threads() -> None:
    from treestrap.play.players import parse_player

    spec = parse_player("treestrap-uci:hand-set:threads=1")
    assert spec.options == (("Preset", "hand-set"), ("Threads", 1))
    assert spec.name == "uci-hand-set-t1"
    assert parse_player("t1=treestrap-uci:threads=1").options == (("Threads", 1),)
    assert parse_player("treestrap-uci:threads=64").options == (("Threads", 64),)
    for bad in ("0", "1025", "two", ""):
        with pytest.raises(ValueError, match="threads=N needs a whole number"):
            parse_player(f"treestrap-uci:learned:threads={bad}")


#: Keys of the hammer test: few, so that threads meet on the same slots and keys.
_HAMMER_KEYS = 64


@njit(cache=False)
def _hammer(tt: TranspositionTable, seed: int, rounds: int) -> tuple[int, int]:
    """Store and read random keys of a small set, each key always with the same fields
    (depth, bounds and move made from the key); returns (reads whose fields were not
    their key's, reads that found the key)."""
    wrong = 0
    found_count = 0
    x = np.uint64(seed)
    for _ in range(rounds):
        x = x * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)
        key = (x >> np.uint64(40)) % np.uint64(_HAMMER_KEYS) * np.uint64(0x9E3779B97F4A7C15)
        depth = np.int64(key % np.uint64(9))
        lower = float(np.int64(key % np.uint64(1000)))
        tt_store(tt, key, depth, lower, lower + 1.0, np.int64(key % np.uint64(4000)) + 1)
        other = (x >> np.uint64(20)) % np.uint64(_HAMMER_KEYS) * np.uint64(0x9E3779B97F4A7C15)
        found, d, lo, up, move = tt_read(tt, other)
        if found:
            found_count += 1
            expected = float(np.int64(other % np.uint64(1000)))
            if (
                d != np.int64(other % np.uint64(9))
                or lo != expected
                or up != expected + 1.0
                or move != np.int64(other % np.uint64(4000)) + 1
            ):
                wrong += 1
    return wrong, found_count


def test_threads_hammering_one_small_table_never_read_a_torn_entry() -> None:
    tt = new_tt(4)  # 16 slots for 64 keys
    _hammer(tt, 1, 10)  # compile first
    results: list[tuple[int, int]] = []
    workers = [
        threading.Thread(target=lambda s=s: results.append(_hammer(tt, s, 3_000_000)))
        for s in (7, 8)
    ]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert len(results) == 2
    assert all(wrong == 0 and found > 0 for wrong, found in results)
