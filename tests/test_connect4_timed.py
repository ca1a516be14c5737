"""Connect Four search players with a time a move, and the static value's sign as a
measure (``hand-set:time=S``, ``treestrap measure --game connect4 --times``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from treestrap.cli import main
from treestrap.connect4.board import format_moves, parse_moves
from treestrap.games.connect4_model import hand_written_connect4_model
from treestrap.games.connect4_players import SearchPlayer, make_player, parse_connect4_player
from treestrap.play.connect4.measure import static_sign_agreement
from treestrap.play.connect4.reference import ReferencePosition


def test_a_time_a_move_parses_and_is_kept_by_the_depth_sweep() -> None:
    timed = parse_connect4_player("hand-set:time=0.05")
    assert (timed.name, timed.seconds, timed.depth) == ("hand-set-t0.05s", 0.05, None)
    assert timed.with_depth(4) == timed  # a fixed time is measured once
    swept = parse_connect4_player("hand-set").with_time(0.5)
    assert (swept.name, swept.seconds) == ("hand-set-t0.5s", 0.5)
    assert parse_connect4_player("hand-set:depth=3").with_time(0.5).seconds is None
    for bad in ("time=0", "time=x", "time=61", "time=1:depth=2"):
        with pytest.raises(ValueError, match=r"time|depth"):
            parse_connect4_player(f"hand-set:{bad}")


def test_a_timed_player_stops_at_a_proven_win() -> None:
    # The first player has three in the bottom row with both ends open: a win in 1.
    pos = parse_moves("112233")
    player = make_player(parse_connect4_player("hand-set:time=30"))
    assert isinstance(player, SearchPlayer)
    assert player.choose(pos) == 3  # column 4 makes four at once
    # A proven result ends the deepening long before the board is full or 30 s pass.
    assert player.timed_depths and player.timed_depths[-1] <= 2


def test_a_timed_player_deepens_past_a_tiny_budget_only_once() -> None:
    player = SearchPlayer("h", hand_written_connect4_model(), depth=4, seconds=1e-6)
    player.choose(parse_moves("4"))
    # The first depth always runs; a budget it already used up allows no second one.
    assert player.timed_depths == [1]
    roomy = SearchPlayer("h", hand_written_connect4_model(), depth=4, seconds=2.0)
    roomy.choose(parse_moves("44"))
    assert roomy.timed_depths[0] > 1


def test_static_sign_is_counted_over_the_decided_positions() -> None:
    def ref(moves: str, best: int) -> ReferencePosition:
        return ReferencePosition(moves, (best, best - 1, best - 1, best - 1, -9, -9, -9))

    refs = [ref("4", 5), ref("44", -3), ref("444", 0), ref("4444", 2)]
    values = {"4": 1.0, "44": 2.0, "444": 7.0, "4444": 0.0}
    share = static_sign_agreement(lambda pos: values[format_moves(pos)], refs)
    # decided: "4" (win, +1: hit), "44" (loss, +2: miss), "4444" (win, 0: miss)
    assert (share.hits, share.total) == (1, 3)


def test_measure_with_times_reports_the_depth_reached(reference_data, tmp_path: Path) -> None:
    positions = reference_data("connect4/solved-1000.txt")
    argv = ["measure", "--game", "connect4", "hand-set", "--times", "0.01", "--games", "0"]
    argv += ["--positions", str(positions), "--every", "100", "--no-references", "--quiet"]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "measure.json").read_text(encoding="utf-8"))
    (only,) = data["players"]  # --times alone measures no depth
    assert only["player"] == "hand-set-t0.01s" and only["seconds"] == 0.01
    assert only["depth"] is None and only["mean_depth"] >= 1.0
    assert 0.0 <= only["proven"] <= 1.0  # a timed player proves where its time allows
    assert only["best_move"]["total"] == 10
    decided = only["static_sign"]["total"]
    assert 0 < decided <= 10 and data["times"] == [0.01]


def test_deepening_over_one_table_finds_what_fresh_searches_find_in_fewer_nodes() -> None:
    from treestrap.connect4.search import Connect4Search

    ev = hand_written_connect4_model().evaluator()
    fresh, kept = Connect4Search(tt_bits=16), Connect4Search(tt_bits=16)
    for moves in ("", "4453", "43443555"):
        total = 0
        for depth in range(1, 11):
            one = fresh.search(parse_moves(moves), ev, depth)
            total += one.nodes
            deep = kept.deepen(parse_moves(moves), ev, depth)
            assert (deep.value, deep.best_move, deep.stopped) == (one.value, one.best_move, False)
        # the nodes of every depth so far, each depth ordered by the last one's table
        assert deep.nodes < total
    cut = kept.deepen(parse_moves("4453"), ev, 1)
    cut = kept.deepen(parse_moves("4453"), ev, 12, max_nodes=cut.nodes + 50)
    assert cut.stopped


def test_a_table_kept_from_the_last_move_keeps_values_or_with_deeper_cutoffs_saves_nodes() -> None:
    from treestrap.connect4.search import Connect4Search, SearchOptions

    ev = hand_written_connect4_model().evaluator()
    before, after = parse_moves("444443"), parse_moves("44444333")
    fresh = Connect4Search(tt_bits=18)
    exact = Connect4Search(tt_bits=18)
    deeper = Connect4Search(tt_bits=18, options=SearchOptions(deeper_cutoffs=True))
    for search in (exact, deeper):
        for depth in range(1, 11):
            search.deepen(before, ev, depth, keep_table=True)
    nodes = {}
    for name, search in (("fresh", fresh), ("exact", exact), ("deeper", deeper)):
        for depth in range(1, 9):
            result = search.deepen(after, ev, depth, keep_table=name != "fresh")
            if name == "fresh":
                want = result.value
            elif name == "exact":
                # the last move's entries of this node's depth are true bounds on it
                assert result.value == fresh.search(after, ev, depth).value
        nodes[name] = result.nodes
    assert nodes["deeper"] < nodes["fresh"]
    assert want == fresh.search(after, ev, 8).value


def test_a_timed_player_keeps_its_table_through_a_game_and_clears_it_for_the_next() -> None:
    player = SearchPlayer("h", hand_written_connect4_model(), depth=4, seconds=0.05)
    assert player.play_search is not None
    player.new_game(0)
    player.choose(parse_moves("44"))
    used = int(np.count_nonzero(player.play_search.keys))
    assert used > 0
    player.choose(parse_moves("4444"))
    # the first move's entries are still there
    assert np.count_nonzero(player.play_search.keys) >= used
    player.new_game(1)
    assert np.count_nonzero(player.play_search.keys) == 0
