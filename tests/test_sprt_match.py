"""Game pairs and the pentanomial SPRT in a real match: pairs found by round or in
stored order, counted as their games end in any order, a match that stops once decided,
and ``treestrap rate --sprt`` reading it back with both models."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from treestrap.commands.rate import add_parser as add_rate
from treestrap.commands.tournament import add_parser as add_tournament
from treestrap.play.sprt_match import SprtWatch
from treestrap.play.tournament import TournamentConfig, load_config, run_tournament
from treestrap.rating.gsprt import Gsprt
from treestrap.rating.pairs import pair_results, pentanomial, trinomial
from treestrap.rating.results import DB_NAME, read_db_results


def test_pairs_by_round_count_each_opening_once() -> None:
    games = [
        ("A", "B", "1-0", "1"),  # round 1: A wins with White ...
        ("C", "A", "1-0", "1"),  # ... a game against someone else is not A-B's
        ("B", "A", "1/2-1/2", "2"),  # round 2's first game
        ("B", "A", "1/2-1/2", "1"),  # ... and round 1's second: WD = 3/2
        ("A", "B", "0-1", "2"),  # round 2: DL = 1/2
        ("A", "B", "1-0", "3"),  # round 3 holds one game: unpaired
        ("A", "B", "*", "4"),  # unfinished: not a game
    ]
    pairing = pair_results(games, "A", "B")
    assert pairing.by_round
    assert pairing.pair_scores == [1.5, 0.5]
    assert pairing.pentanomial == [0, 1, 0, 1, 0]
    assert pairing.trinomial == [1, 2, 2]  # L D W over all five finished games
    assert pairing.unpaired == 1
    assert pairing.describe() == "2 pairs (by round, 1 games unpaired)"
    # From the opponent's side every pair is mirrored.
    assert pair_results(games, "B", "A").pentanomial == [0, 1, 0, 1, 0][::-1]


def test_games_without_rounds_pair_in_stored_order_with_colours_reversed() -> None:
    games = [
        ("A", "B", "1-0", ""),
        ("B", "A", "1-0", ""),  # pair 1: WL = 1
        ("A", "B", "1-0", ""),
        ("A", "B", "1-0", ""),  # same colours twice: no pair
        ("B", "A", "0-1", ""),
        ("A", "B", "1-0", ""),  # pair 3: WW = 2
    ]
    pairing = pair_results(games, "A", "B")
    assert not pairing.by_round
    assert pairing.pair_scores == [1.0, 2.0]
    assert pairing.unpaired == 2
    with pytest.raises(ValueError, match="differ"):
        pair_results(games, "A", "A")


def test_counts_sort_scores_into_fishtest_order() -> None:
    assert pentanomial([0, 0.5, 1, 1, 1.5, 2, 2, 2]) == [1, 1, 2, 1, 3]
    assert trinomial([0, 0.5, 0.5, 1]) == [1, 2, 1]


def test_the_watch_completes_a_pair_when_its_second_game_is_stored() -> None:
    # Game ids 0..3: rounds 1, 1, 2, 2 (both colours of two openings).
    watch = SprtWatch(Gsprt(0, 50), "A", ["1", "1", "2", "2"])
    assert watch.add(2, "A", "1-0") is None  # round 2's first game to end
    assert watch.add(0, "B", "1/2-1/2") is None  # round 1's first
    state = watch.add(3, "B", "0-1")  # round 2 complete: A won both
    assert state is not None and state.counts == (0, 0, 0, 0, 1)
    assert watch.add(1, "A", "0-1") is not None  # round 1: draw then loss = 1/2
    assert watch.result.counts == (0, 1, 0, 0, 1) and watch.pairs == 2
    assert not watch.decided
    assert watch.line().startswith("SPRT 2 pairs: LLR ")


def run(add_parser: object, argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="treestrap")
    add_parser(parser.add_subparsers())  # type: ignore[operator]
    args = parser.parse_args(argv)
    return int(args.func(args))


def test_a_match_under_sprt_stops_once_decided_and_rate_reads_it_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "match"
    argv = ["tournament", "hand-set", "random:1", "--tc", "depth=1", "--max-plies", "60"]
    argv += ["--games-per-pair", "60", "--sprt", "elo0=0,elo1=200", "--out", str(out)]
    assert run(add_tournament, argv) == 0
    printed = capsys.readouterr().out
    assert "H1 accepted: hand-set is stronger" in printed
    config = load_config(out)
    assert config.sprt == "elo0=0,elo1=200"
    played = len(read_db_results(out / DB_NAME))
    # Decided long before the 60 scheduled games (hand-set against random moves), and a
    # decided match, resumed, plays nothing more.
    finished = run_tournament(config, out, resume=True, progress=False)
    assert finished.sprt is not None and finished.sprt.result.decision == "H1"
    assert 2 * finished.sprt.pairs <= played == len(finished.games) < 30
    assert finished.sprt.result.llr >= finished.sprt.test.bounds[1]

    argv = ["rate", str(out), "--sprt", "elo0=0,elo1=200", "--player", "hand-set"]
    assert run(add_rate, [*argv, "--opponent", "random-1"]) == 0
    report = capsys.readouterr().out
    assert "trinomial: LLR" in report
    assert f"pentanomial: LLR {finished.sprt.result.llr:.2f}" in report
    assert f"{finished.sprt.pairs} pairs (by round" in report


def test_an_sprt_needs_two_players_and_valid_settings() -> None:
    three = TournamentConfig(["hand-set", "random:1", "random:2"], sprt="elo0=0,elo1=5")
    with pytest.raises(ValueError, match="one player against one other"):
        three.check()
    with pytest.raises(ValueError, match="elo0 must be below elo1"):
        TournamentConfig(["hand-set", "random:1"], sprt="elo0=5,elo1=0").check()
