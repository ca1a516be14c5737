"""Connect Four's :class:`~treestrap.games.facts.GameFacts` (its compiled side:
:mod:`treestrap.games.connect4_game`)."""

from __future__ import annotations

from treestrap.games.facts import GameFacts, RefusedOption

_SELF_PLAY = "Connect Four learns by self-play"

CONNECT4_FACTS = GameFacts(
    name="connect4",
    title="Connect Four",
    random_start_redrawn=True,
    contract="treestrap.games.connect4_game:CONNECT4_GAME",
    # its own feature set, and no chess tempo feature to freeze
    train_defaults={"game": "connect4", "feature_set": "connect4", "freeze": []},
    refused_options=(
        RefusedOption("opponent", "self", "--opponent", _SELF_PLAY),
        RefusedOption("opponent_after", 0, "--opponent-after", _SELF_PLAY),
        RefusedOption("ladder", False, "--ladder", _SELF_PLAY),
        RefusedOption(
            "openings", None, "--openings", "its games start from seeded random openings"
        ),
        RefusedOption("clock", None, "--clock", "give --depth or --nodes"),
        RefusedOption(
            "node_value", "static", "--node-value", "Connect Four has no quiescence search"
        ),
        RefusedOption("quiet_only", False, "--quiet-only", "every Connect Four position is quiet"),
        RefusedOption("linear_part", None, "--linear-part", "hybrids are chess networks"),
    ),
    # Its values are the hand-written evaluation's points (a centre disc is 3) and many
    # of its features count lines, so the chess steps barely move its weights. Each
    # factor is a power of ten that lowers the rule's error on held-out Connect Four
    # games steadily (tests/test_connect4_learning.py); ten times more made TreeStrap and
    # RootStrap diverge there.
    step_factors={
        "td": 100.0,
        "td-root": 1e6,
        "td-leaf": 100.0,
        "rootstrap-mm": 10.0,
        "rootstrap-ab": 10.0,
        "treestrap-mm": 10.0,
        "treestrap-ab": 100.0,
    },
    network_inputs="connect4",
    network_activations=("tanh",),
    hybrids=False,
    weights_report="treestrap.reports.connect4_weights:summarize_connect4",
    games_file="games.txt",
    record_end="\n",
    bootstrap="treestrap.bootstrap.connect4_provider:CONNECT4_BOOTSTRAP",
    # the best files of `treestrap bootstrap --game connect4` (--budget standard and
    # ntuple), shipped by tools/ship_preset.py
    presets={"connect4-zero": "connect4-zero.npz", "connect4-ntuple": "connect4-ntuple.npz"},
)
