"""A timed player's proof (:mod:`treestrap.connect4.proof`): a best move by its own exact
search within a node budget, checked against the reference file's scores; the exact
search's node limit; and the proof inside a timed player."""

from __future__ import annotations

import pytest

from treestrap.connect4.board import format_moves, parse_moves
from treestrap.connect4.proof import Proof
from treestrap.connect4.solver import BudgetSpent, Solver
from treestrap.games import connect4_players
from treestrap.games.connect4_model import hand_written_connect4_model
from treestrap.games.connect4_players import SearchPlayer, make_player, parse_connect4_player
from treestrap.play.connect4.reference import ReferencePosition, load_reference

REFERENCE = "connect4/solved-1000.txt"


def _later(reference_data, discs: int, count: int) -> list[ReferencePosition]:
    """``count`` reference positions with at least ``discs`` discs (quick to prove)."""
    return [r for r in load_reference(reference_data(REFERENCE)) if len(r.moves) >= discs][:count]


def test_a_proof_finds_a_best_move_and_the_exact_score(reference_data) -> None:
    proof = Proof(table_bits=16)
    for ref in _later(reference_data, 16, 40):
        pos = parse_moves(ref.moves)
        found = proof.best_move(pos, max_nodes=10**8)
        assert found is not None, ref.moves
        assert found.score == ref.best, ref.moves
        assert ref.is_best(found.move), ref.moves
        assert format_moves(pos) == ref.moves  # left as it was
        proof.clear()


def test_the_players_first_choice_is_kept_when_it_is_best(reference_data) -> None:
    proof = Proof(table_bits=16)
    for ref in _later(reference_data, 16, 40):
        best = [c for c in range(7) if ref.is_best(c)]
        found = proof.best_move(parse_moves(ref.moves), 10**8, first=best[-1])
        assert found is not None and found.move == best[-1]


def test_a_spent_budget_gives_nothing_and_leaves_only_true_bounds(reference_data) -> None:
    refs = [r for r in load_reference(reference_data(REFERENCE)) if 12 <= len(r.moves) <= 13][:6]
    proof = Proof(table_bits=16)
    for ref in refs:
        pos = parse_moves(ref.moves)
        assert proof.best_move(pos, max_nodes=0) is None
        assert proof.best_move(pos, max_nodes=50) is None
        assert proof.last_nodes <= 50
        assert format_moves(pos) == ref.moves
        # what the stopped searches stored is still true: the full proof agrees
        found = proof.best_move(pos, max_nodes=10**9)
        assert found is not None and found.score == ref.best and ref.is_best(found.move)


def test_the_exact_search_stops_at_its_node_limit_and_goes_on_after_it() -> None:
    solver = Solver(table_bits=16)
    pos = parse_moves("44444")
    solver.limit_nodes(1000)
    with pytest.raises(BudgetSpent):
        solver.solve(pos)
    assert 1000 <= solver.nodes <= 1001
    solver.limit_nodes(None)
    unlimited = Solver(table_bits=16)
    later = "444443333611"  # quick to solve
    assert solver.solve(parse_moves(later)) == unlimited.solve(parse_moves(later))


def test_proof_is_an_option_of_a_timed_player_only() -> None:
    assert parse_connect4_player("ntuple:time=0.1").proof
    off = parse_connect4_player("ntuple:time=0.1:proof=0")
    assert not off.proof and off.name == "ntuple-t0.1s-noproof"
    assert parse_connect4_player("ntuple:proof=0").with_time(0.1).proof is False
    for bad in ("ntuple:depth=4:proof=1", "ntuple:time=1:proof=yes"):
        with pytest.raises(ValueError, match="proof"):
            parse_connect4_player(bad)
    assert make_player(off).proof is None  # type: ignore[attr-defined]


def test_a_timed_player_plays_the_proven_move(reference_data, monkeypatch) -> None:
    # The deepening left no time past its first ply (whose move is often not best), and
    # nodes enough for any proof of these positions: every move played is proven best.
    monkeypatch.setattr(connect4_players, "DEEPENING_SHARE", 1e-9)
    player = SearchPlayer("p", hand_written_connect4_model(), depth=4, seconds=30.0)
    refs = _later(reference_data, 14, 30)
    for ref in refs:
        player.new_game(0)
        assert ref.is_best(player.choose(parse_moves(ref.moves))), ref.moves
    assert player.timed_depths == [1] * len(refs)
    assert (player.proven, player.unproven) == (len(refs), 0)


def test_a_timed_player_does_not_prove_near_the_empty_board() -> None:
    player = SearchPlayer("h", hand_written_connect4_model(), depth=4, seconds=0.02)
    player.choose(parse_moves("4444"))  # fewer discs than a proof starts from
    assert (player.proven, player.unproven) == (0, 0)
    assert len(player.timed_depths) == 1
