"""Connect Four's pieces of the bootstrap pipeline (:class:`~treestrap.bootstrap.provider.
BootstrapProvider`): the budgets of :mod:`treestrap.bootstrap.connect4_budgets`, round 0
as TreeStrap(alpha-beta) self-play from random linear weights (or n-tuple TD self-play,
:mod:`treestrap.training.connect4_ntuple_run`), self-play chunks of
fixed-depth searches (:mod:`treestrap.bootstrap.connect4_selfplay`, ``connect4-20``
records), linear weights fitted to them (:mod:`treestrap.bootstrap.connect4_fitting`)
and a gate of in-process players (:mod:`treestrap.bootstrap.connect4_gate`).

Every player of a run is a search over one of its own weight files; the exact solver is
no part of it (it stays the oracle that ``treestrap measure --game connect4`` measures
the result with).
"""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from treestrap.bootstrap.connect4_budgets import CONNECT4_BUDGETS, Connect4Budget
from treestrap.bootstrap.connect4_fitting import fit_connect4_candidate
from treestrap.bootstrap.connect4_gate import run_connect4_gate
from treestrap.bootstrap.connect4_selfplay import play_connect4_chunk
from treestrap.bootstrap.provider import BootstrapProvider
from treestrap.distill.connect4_records import CONNECT4_RECORD_NAME
from treestrap.games.connect4_facts import CONNECT4_FACTS
from treestrap.training.connect4_ntuple_run import (
    CONFIG_FILE,
    NTupleSettings,
    NTupleState,
    saved_games,
    train_ntuple,
)

#: Positions (columns 1-7 from the empty board) whose searches measure nodes per second.
BENCH_MOVES = ("", "4453", "4444332", "43443555", "44455521", "1234567123")
#: Plies the bench searches beyond the depth it is given (Connect Four's trees are
#: narrow: a chess bench depth is quick here).
BENCH_EXTRA_DEPTH = 2


def connect4_round0_config(budget: Connect4Budget, seed: int) -> Any:
    """Round 0's training config: TreeStrap(alpha-beta) self-play at a fixed depth from
    random weights (the game's default steps), or an n-tuple TD run's settings."""
    from treestrap.training.config import game_config

    if budget.round0_model.startswith("ntuple"):
        if budget.rounds:
            raise ValueError(
                "an n-tuple round 0 has no later rounds (they fit linear weights): set rounds=0"
            )
        return NTupleSettings(
            **asdict(budget.round0_td),
            model=budget.round0_model,
            games=budget.round0_games,
            seed=seed,
        )

    return game_config(
        CONNECT4_FACTS.name,
        algorithm="treestrap-ab",
        init="random",
        games=budget.round0_games,
        depth=budget.round0_depth,
        seed=seed,
        checkpoint_every=max(1, min(50, budget.round0_games)),
    )


def connect4_nps(weights: Path, depth: int) -> int:
    """Nodes per second of the fixed-depth search over ``weights`` on a few positions."""
    if depth <= 0:
        return 0
    from treestrap.connect4.board import parse_moves
    from treestrap.connect4.search import Connect4Search
    from treestrap.games.connect4_model import load_connect4_model

    evaluator = load_connect4_model(weights).evaluator()
    search = Connect4Search(tt_bits=18)
    # The first search loads the compiled kernels (a second or more): not search time.
    search.search(parse_moves(BENCH_MOVES[0]), evaluator, 1)
    nodes, start = 0, time.perf_counter()
    for moves in BENCH_MOVES:
        nodes += int(search.search(parse_moves(moves), evaluator, depth + BENCH_EXTRA_DEPTH).nodes)
    return round(nodes / max(time.perf_counter() - start, 1e-9))


def connect4_round0_train(
    config: Any, folder: Path, seconds: float | None, progress: bool, actors: int = 1
) -> NTupleState | None:
    """Round 0 of the n-tuple budgets (None for a TreeStrap config): the n-tuple run in
    ``folder``, begun or resumed, with a progress bar; ``actors`` members of an averaged
    run learn side by side."""
    if not isinstance(config, NTupleSettings):
        return None
    from tqdm import tqdm

    resume = (folder / CONFIG_FILE).exists()
    bar = tqdm(
        total=config.games,
        initial=saved_games(folder) if resume else 0,
        unit="game",
        unit_scale=True,
        desc="round 0: n-tuple TD",
        disable=not progress,
    )
    try:
        return train_ntuple(
            folder,
            config,
            resume=resume,
            time_limit=seconds,
            on_chunk=lambda state: bar.update(state.games - bar.n),
            workers=actors,
        )
    finally:
        bar.close()


CONNECT4_BOOTSTRAP = BootstrapProvider(
    game=CONNECT4_FACTS.name,
    budgets=CONNECT4_BUDGETS,
    budget_from_json=Connect4Budget.from_json,
    round0_config=connect4_round0_config,
    round0_model="linear (connect4)",
    play_chunk=play_connect4_chunk,
    record=CONNECT4_RECORD_NAME,
    fit_candidate=fit_connect4_candidate,
    run_gate=run_connect4_gate,
    nps=connect4_nps,
    round0_train=connect4_round0_train,
)
