"""Chess's pieces of the bootstrap pipeline (:class:`~treestrap.bootstrap.provider.
BootstrapProvider`): the budgets of :mod:`treestrap.bootstrap.budgets`, round 0 as the
``strong`` training preset playing only itself, self-play chunks of the engine at a node
budget (:mod:`treestrap.bootstrap.selfplay`, ``chess-40`` records), a perspective
network fitted to them (:mod:`treestrap.bootstrap.chess_fitting`) and an engine match
gate (:mod:`treestrap.bootstrap.gate`)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from treestrap.bootstrap.budgets import BUDGETS, Budget
from treestrap.bootstrap.chess_fitting import fit_candidate
from treestrap.bootstrap.gate import run_gate
from treestrap.bootstrap.provider import BootstrapProvider
from treestrap.bootstrap.selfplay import play_chunk
from treestrap.distill.position_file import RECORD_NAME
from treestrap.games.chess_facts import CHESS_FACTS


def chess_round0_config(budget: Budget, seed: int) -> Any:
    """Round 0's training config: the ``strong`` preset without its partner."""
    from treestrap.training.config import apply_preset, game_config

    config = apply_preset(game_config(CHESS_FACTS.name), "strong")
    return dataclasses.replace(
        config,
        games=budget.round0_games,
        depth=budget.round0_depth,
        opponent="self",
        opponent_after=0,
        seed=seed,
        checkpoint_every=max(1, min(50, budget.round0_games)),
    )


def chess_nps(weights: Path, depth: int) -> int:
    """Nodes per second of the tournament search with these weights on the bench."""
    if depth <= 0:
        return 0
    from treestrap.engine.bench import run_bench
    from treestrap.evaluation.weight_files import load_weights

    return run_bench(depth=depth, evaluator=load_weights(weights).evaluator()).nps


CHESS_BOOTSTRAP = BootstrapProvider(
    game=CHESS_FACTS.name,
    budgets=BUDGETS,
    budget_from_json=Budget.from_json,
    round0_config=chess_round0_config,
    round0_model="linear (meep)",
    play_chunk=play_chunk,
    record=RECORD_NAME,
    fit_candidate=fit_candidate,
    run_gate=run_gate,
    nps=chess_nps,
)
