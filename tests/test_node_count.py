"""Nodes counted by Stockfish's rule: the tournament search's ``REVISITS`` counter.

Every call of ``pvs`` counts a node; Stockfish counts one per move made. The calls its
rule leaves out (roots, null-move children, re-searched children) are counted apart, so
``nodes - revisits`` compares with Stockfish's ``nodes``."""

from __future__ import annotations

import numpy as np
import pytest

from treestrap.core.notation import parse_fen
from treestrap.engine.bench import BENCH_FENS
from treestrap.engine.engine import Engine
from treestrap.evaluation.presets import hand_set_model
from treestrap.search.context import new_context, reset_context
from treestrap.search.scratch import NODES, QNODES, REVISITS
from treestrap.search.timeman import SearchLimits
from treestrap.search.tournament import NULL_WINDOW, EngineOptions, pvs
from treestrap.search.tt import new_search, new_tt

#: Opening, Kiwipete, a middlegame, an endgame of the bench.
FENS = (BENCH_FENS[0], BENCH_FENS[1], BENCH_FENS[2], BENCH_FENS[9])


def search_root(fen: str, depth: int, options: EngineOptions, alpha: float, beta: float):
    """One call of ``pvs`` at the root: (nodes, revisits)."""
    ev = hand_set_model().evaluator()
    ctx = new_context()
    reset_context(ctx)
    tt = new_tt(16)
    new_search(tt)
    stop = np.zeros(1, dtype=np.int64)
    pvs(parse_fen(fen), ev, ctx, tt, options, stop, depth, 0, alpha, beta, np.bool_(True))
    return int(ctx.stats[NODES] + ctx.stats[QNODES]), int(ctx.stats[REVISITS])


@pytest.mark.parametrize("fen", FENS)
def test_without_re_searches_only_the_root_is_a_revisit(fen: str) -> None:
    # A null window everywhere (no PVS re-search), no LMR, no null move: every node but
    # the root is entered by a move, once.
    options = EngineOptions(null_move=False, lmr=False)
    nodes, revisits = search_root(fen, 7, options, 0.0, NULL_WINDOW)
    assert nodes > 1_000
    assert revisits == 1


@pytest.mark.parametrize("fen", FENS[:3])
def test_null_move_children_are_revisits(fen: str) -> None:
    # Null windows and no LMR still: the revisits beyond the root are null-move children.
    nodes, revisits = search_root(fen, 7, EngineOptions(lmr=False), 0.0, NULL_WINDOW)
    assert 1 < revisits < nodes


@pytest.mark.parametrize("fen", FENS)
def test_with_every_option_revisits_are_counted(fen: str) -> None:
    nodes, revisits = search_root(fen, 6, EngineOptions(), -1e9, 1e9)
    assert 1 < revisits < nodes


@pytest.mark.parametrize("fen", FENS)
def test_engine_reports_revisits(fen: str) -> None:
    engine = Engine(hand_set_model().evaluator(), hash_mb=16)
    outcome = engine.go(parse_fen(fen), SearchLimits(depth=7))
    # at least one root per iteration; a share of a few percent at most
    assert outcome.depth <= outcome.revisits < 0.05 * outcome.nodes
    again = Engine(hand_set_model().evaluator(), hash_mb=16).go(
        parse_fen(fen), SearchLimits(depth=7)
    )
    assert (again.nodes, again.revisits) == (outcome.nodes, outcome.revisits)


def test_a_node_limit_keeps_revisits_below_nodes() -> None:
    engine = Engine(hand_set_model().evaluator(), hash_mb=16)
    outcome = engine.go(parse_fen(BENCH_FENS[1]), SearchLimits(nodes=5_000))
    assert 1 <= outcome.revisits <= outcome.nodes <= 5_000
