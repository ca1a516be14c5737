"""What the bootstrap pipeline takes from a game: a :class:`BootstrapProvider`.

The pipeline (:mod:`treestrap.bootstrap.pipeline`) is the same for every game: round 0
trains linear weights from random ones by TreeStrap self-play, and each later round
plays self-play chunks with the best player, fits a candidate to them and gates it. What
differs is asked of the game's provider, named in its
:class:`~treestrap.games.facts.GameFacts` (``bootstrap``, ``"module:attribute"``) and
imported when a run starts: its budgets, round 0's training config, the recorder of
one chunk of self-play and the record type of its position files, the fit of a
candidate and the gate's match.

A budget is the game's own dataclass; the pipeline reads only the fields of
:class:`RunBudget` from it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from treestrap.bootstrap.chunks import ChunkSummary
from treestrap.games.registry import game_facts, game_names

if TYPE_CHECKING:  # chess's gate module; the table of games must not pull it in
    from treestrap.bootstrap.gate import GateResult


class ChunkSettings(Protocol):
    """What the pipeline reads of a budget's self-play settings."""

    games: int
    chunk: int
    seed: int

    def chunks(self) -> int: ...


class RunBudget(Protocol):
    """What the pipeline reads of a budget (each game's budget has more)."""

    name: str
    round0_games: int
    round0_depth: int
    rounds: int
    selfplay: Any  # a ChunkSettings dataclass (``seed`` is replaced round by round)
    fit: Any  # has ``data_rounds``: the rounds of data a fit reads
    gate: Any

    def to_json(self) -> dict[str, Any]: ...


#: ``(candidate, train_files, held_out, budget, best, games, state_dir, progress)``: fit
#: (or finish, or read back) a round's candidate into ``candidate``; what the round's
#: record keeps of the fit (``positions``, ``held_out_loss``, ``cpu_seconds``, ``model``)
FitCandidate = Callable[[Path, list[Path], list[Path], Any, Path, int, Path, bool], dict[str, Any]]


@dataclass(frozen=True)
class BootstrapProvider:
    """A game's pieces of the bootstrap pipeline."""

    #: the game's name (``--game``)
    game: str
    #: its budgets by name, and a budget from the JSON of ``RunBudget.to_json``
    budgets: Mapping[str, RunBudget]
    budget_from_json: Callable[[dict[str, Any]], RunBudget]
    #: ``(budget, seed)``: round 0's training config (TreeStrap self-play from random
    #: weights, a ``training.config.TrainConfig``)
    round0_config: Callable[[Any, int], Any]
    #: how the report names round 0's model
    round0_model: str
    #: ``(player, settings, data_dir, index)``: play (or read back) one chunk of self-play
    #: with the weight file ``player``; a module-level function, so worker processes and
    #: Ray tasks can run it
    play_chunk: Callable[[Path, Any, Path, int], ChunkSummary]
    #: the record type of its chunks' position files
    record: str
    fit_candidate: FitCandidate
    #: ``(candidate, best, out_dir, gate_plan, progress)``: play (or finish, or read
    #: back) the gate
    run_gate: Callable[[Path, Path, Path, Any, bool], GateResult]
    #: ``(weights, depth)``: nodes per second of its search with a weight file (0: not
    #: measured)
    nps: Callable[[Path, int], int]
    #: ``(config, folder, seconds, progress, actors)``: round 0 by the game's own learner
    #: when ``round0_config`` gave a config of its own (a state with ``games`` and
    #: ``cpu_seconds``), None for the TreeStrap training run
    round0_train: Callable[[Any, Path, float | None, bool, int], Any] | None = None


def bootstrap_games() -> tuple[str, ...]:
    """The games that have the pipeline."""
    return tuple(name for name in game_names() if game_facts(name).bootstrap)


def bootstrap_provider(game: str) -> BootstrapProvider:
    """Game ``game``'s provider; ``ValueError`` for an unknown game or one without the
    pipeline."""
    facts = game_facts(game)
    if not facts.bootstrap:
        games = ", ".join(bootstrap_games())
        raise ValueError(f"--game {game}: {facts.title} has no bootstrap pipeline ({games} have)")
    module, _, attribute = facts.bootstrap.partition(":")
    provider: BootstrapProvider = getattr(importlib.import_module(module), attribute)
    return provider
