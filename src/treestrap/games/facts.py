"""What the command line, a run's config and its records need to know of a game, without
compiling it: :class:`GameFacts`, one per registered game (:mod:`treestrap.games.registry`).

The compiled side of a game (its kernels, searches and models) is its
:class:`~treestrap.games.contract.Game`, loaded on first use from ``contract``. Nothing
outside a game's own modules asks which game it is: it asks the game's facts or contract
for what differs (a default, a refused option, a file name, a step factor).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class RefusedOption:
    """A training option a game does not take: ``field`` must keep the value ``only``,
    and ``flag`` is refused with ``why``."""

    field: str
    only: Any
    flag: str
    why: str


@dataclass(frozen=True)
class GameFacts:
    """A game as the command line and the training config see it."""

    #: the name ``--game`` takes
    name: str
    #: how the docs and messages write it ("Connect Four")
    title: str
    #: ``"module:attribute"`` of its compiled :class:`~treestrap.games.contract.Game`
    contract: str
    #: the fields of a training config that differ from chess's defaults for this game
    train_defaults: Mapping[str, Any] = field(default_factory=dict)
    #: training options the game does not take
    refused_options: tuple[RefusedOption, ...] = ()
    #: the linear rules' default steps, as factors on the paper's (rule name -> factor;
    #: a rule not named keeps the paper's step)
    step_factors: Mapping[str, float] = field(default_factory=dict)
    #: the feature set that networks of this game read
    network_inputs: str = "bitboard"
    #: the hidden activations its networks take (``--model mlp:H`` is tanh)
    network_activations: tuple[str, ...] = ("tanh", "crelu")
    #: whether a network may have a linear part (``--linear-part``)
    hybrids: bool = True
    #: a training run's file of game records, and what ends each record
    games_file: str = "games.pgn"
    record_end: str = "\n\n"
    #: whether ``config.json`` and weight files name the game (the first registered game,
    #: chess, leaves it out: its files are as they were before there were games)
    named_in_files: bool = True
    #: whether a linear random start is drawn again from its record (seed, scale, feature
    #: set) to check a weight file's provenance
    random_start_redrawn: bool = False
    #: whether a training run plays from the opening book of ``--openings`` (otherwise
    #: from the game's own seeded openings)
    opening_book: bool = False
    #: whether its tournaments are engine tournaments (play/tournament.py: UCI and
    #: in-process engines, clocks, an opening book); otherwise its contract's in-process
    #: players meet from its seeded openings (``Game.tournament_play``,
    #: play/contract_tournament.py)
    engine_tournament: bool = False
    #: ``"module:function"`` of its weight files' report, ``(model, top, group) -> str``
    #: (``treestrap weights show``; imported when asked for)
    weights_report: str = ""
    #: ``"module:function"`` drawing its weight files, ``(model, path, title, units) ->
    #: path`` (``weights show --plot``; ``units``: how many of a network's hidden units),
    #: or "" for none
    weights_plot: str = ""
    #: ``"module:attribute"`` of its bootstrap pipeline's pieces (``treestrap bootstrap``:
    #: a :class:`~treestrap.bootstrap.provider.BootstrapProvider`, imported when a run
    #: starts), or "" for a game without the pipeline
    bootstrap: str = ""
    #: its shipped presets: a name ``treestrap weights show`` takes -> the file's name in
    #: the package's ``treestrap.evaluation.data``
    presets: Mapping[str, str] = field(default_factory=dict)

    def problem(self, config: Any) -> str | None:
        """The first option of ``config`` that this game refuses, as a message."""
        for refused in self.refused_options:
            if getattr(config, refused.field) != refused.only:
                return f"{refused.flag} is not for --game {self.name}: {refused.why}"
        return None
