"""Connect Four's gate: the candidate against the best player, both fixed-depth searches
over their weight files, in a tournament of in-process players
(:mod:`treestrap.play.contract_tournament`) from random openings, each played with both
colours, under a pentanomial SPRT. H1 accepts the candidate; H0, or the game limit
reached undecided, keeps the best. The tournament stores every game as it ends, with the
CPU time its players spent, so a killed gate resumes where it stopped and still counts
what its earlier games cost.

Both players are made by :func:`learned_player`, which takes nothing but a weight file
and a depth: the gate never plays the exact solver (``perfect``) or a book.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from pathlib import Path

from treestrap.bootstrap.connect4_budgets import Connect4GatePlan
from treestrap.bootstrap.gate import BEST, CANDIDATE, RESULT_FILE, GateResult, decide, read_gate
from treestrap.games.connect4_facts import CONNECT4_FACTS
from treestrap.games.connect4_players import HAND_SET, RANDOM_WEIGHTS, SEARCH, parse_connect4_player
from treestrap.games.connect4_tournament import weights_player
from treestrap.games.move_pgn import recorded_cpu_seconds
from treestrap.rating.results import DB_NAME


def learned_player(name: str, weights: Path, depth: int) -> str:
    """The spec of a fixed-depth search over the weight file ``weights``; ``ValueError``
    for anything that would make another player (the solver, a preset, a missing
    file)."""
    text = weights_player(name, str(weights), f"depth={depth}")
    spec = parse_connect4_player(text)
    if spec.kind != SEARCH or spec.model in (HAND_SET, RANDOM_WEIGHTS):
        raise ValueError(f"{text}: not a search over a weight file")
    return text


def run_connect4_gate(
    candidate: Path, best: Path, out_dir: Path, plan: Connect4GatePlan, progress: bool = True
) -> GateResult:
    """Play (or finish, or read back) the gate of ``candidate`` against ``best``."""
    from treestrap.play.contract_tournament import (
        ContractTournamentConfig,
        run_contract_tournament,
    )

    done = read_gate(out_dir)
    if done is not None:
        return done
    config = ContractTournamentConfig.of(
        CONNECT4_FACTS.name,
        [learned_player(CANDIDATE, candidate, plan.depth), learned_player(BEST, best, plan.depth)],
        opening_plies=plan.opening_plies,
        games_per_pair=plan.max_games,
        sprt=plan.sprt,
        event="treestrap bootstrap gate",
    )
    resume = (out_dir / DB_NAME).exists()
    earlier = stored_games_cpu_seconds(out_dir) if resume else 0.0
    out_dir.mkdir(parents=True, exist_ok=True)
    cpu = time.process_time()  # the games are played in this process
    result = run_contract_tournament(config, out_dir, resume=resume, progress=progress)
    assert result.sprt is not None
    played = [(g.white, g.black, g.result) for g in result.games]
    gate = decide(played, result.sprt, cpu_seconds=earlier + time.process_time() - cpu)
    (out_dir / RESULT_FILE).write_text(json.dumps(asdict(gate), indent=1) + "\n")
    return gate


def stored_games_cpu_seconds(out_dir: Path) -> float:
    """The CPU time of the games a stopped gate left in ``out_dir``, which the process
    that goes on never measures: as each game's record keeps it."""
    from treestrap.play.results_db import ResultsDB

    with ResultsDB.open(out_dir) as db:
        return sum(recorded_cpu_seconds(game.pgn) for game in db.games())
