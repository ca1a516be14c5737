"""The tournament search's quiet-move history: a bonus for the move that cut off, a
malus for the quiet moves tried before it, bounded; and the switches that turn the
search's features on and off from the command line."""

from __future__ import annotations

import pytest

from treestrap.commands.uci import SEARCH_FEATURES, parse_search_options
from treestrap.core.move import move_from, move_to
from treestrap.core.movegen import generate_moves
from treestrap.core.notation import STARTING_FEN, parse_fen
from treestrap.search.context import new_context
from treestrap.search.quiet_history import (
    HISTORY_LIMIT,
    credit_quiet_cutoff,
    history_reduction,
)
from treestrap.search.tournament import EngineOptions

pytestmark = pytest.mark.usefixtures("kernels_load_from_cache")


def _history(ctx, m: int) -> int:  # type: ignore[no-untyped-def]
    return int(ctx.history[0, move_from(m), move_to(m)])


def test_the_cutting_move_gains_and_those_tried_before_lose() -> None:
    pos = parse_fen(STARTING_FEN)
    ctx = new_context()
    n = generate_moves(pos, ctx.moves[1])
    assert n == 20
    moves = [int(m) for m in ctx.moves[1, :n]]
    credit_quiet_cutoff(pos, ctx, 1, 3, 4)
    assert ctx.killers[1, 0] == moves[3]
    assert _history(ctx, moves[3]) == 16 * 4 * 4
    assert all(_history(ctx, m) == -16 * 4 * 4 for m in moves[:3])
    assert all(_history(ctx, m) == 0 for m in moves[4:])


def test_scores_saturate_below_the_bound_and_steer_reductions() -> None:
    pos = parse_fen(STARTING_FEN)
    ctx = new_context()
    n = generate_moves(pos, ctx.moves[1])
    good, bad = int(ctx.moves[1, 1]), int(ctx.moves[1, 0])
    for _ in range(200):
        credit_quiet_cutoff(pos, ctx, 1, 1, 20)
    assert HISTORY_LIMIT // 2 < _history(ctx, good) <= HISTORY_LIMIT
    assert -HISTORY_LIMIT <= _history(ctx, bad) < -HISTORY_LIMIT // 2
    assert history_reduction(pos, ctx, good) == 2  # two plies less reduction
    assert history_reduction(pos, ctx, bad) < 0  # one or two more
    assert history_reduction(pos, ctx, int(ctx.moves[1, n - 1])) == 0


def test_search_option_switches() -> None:
    assert parse_search_options(["iir=off", "razoring=on", "see-pruning=0"]) == {
        "iir": False,
        "razoring": True,
        "see_pruning": False,
    }
    with pytest.raises(ValueError, match="NAME=on"):
        parse_search_options(["iir"])
    # every switch the CLI names is a feature of the search, and every feature is named
    switches = {f for f in EngineOptions._fields if isinstance(getattr(EngineOptions(), f), bool)}
    assert set(SEARCH_FEATURES) == switches
