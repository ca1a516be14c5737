"""Chess's :class:`~treestrap.games.facts.GameFacts`: the first game, whose defaults are
the training config's own."""

from __future__ import annotations

from treestrap.evaluation.preset_names import SHIPPED_FILES
from treestrap.games.facts import GameFacts

CHESS_FACTS = GameFacts(
    name="chess",
    title="chess",
    contract="treestrap.games.chess_game:CHESS_GAME",
    named_in_files=False,
    random_start_redrawn=True,
    opening_book=True,
    engine_tournament=True,
    weights_report="treestrap.reports.weights:weights_report",
    weights_plot="treestrap.reports.weights:plot_weights",
    bootstrap="treestrap.bootstrap.chess_provider:CHESS_BOOTSTRAP",
    presets=SHIPPED_FILES,
)
