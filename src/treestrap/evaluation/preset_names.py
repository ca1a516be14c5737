"""The presets' names and the default one, free of numba: the command line, the player
specs and the UCI engine read them from here (the weights themselves are
:mod:`treestrap.evaluation.presets`')."""

from __future__ import annotations

HAND_SET, LEARNED, RANDOM = "hand-set", "learned", "random"
#: The shipped network: a hybrid of an MLP on the bitboard inputs and the learned
#: linear weights (docs/networks.md).
LEARNED_NET = "learned-net"
PRESET_NAMES = (HAND_SET, LEARNED, RANDOM, LEARNED_NET)
#: The presets whose weights are shipped files (with their provenance).
SHIPPED_PRESETS = (LEARNED, LEARNED_NET)

#: The preset an engine or a player gets when none is named: the strongest measured.
#: The shipped network scored +166 Elo [+125, +212] against the learned linear weights
#: (200 games at 10s+0.1s, ECO openings with both colours; docs/networks.md), which had
#: scored +127 Elo [+81, +177] against hand-set.
DEFAULT_PRESET = LEARNED_NET
#: Why the default is the default, for help texts.
DEFAULT_PRESET_WHY = "the strongest measured: +166 Elo over learned at 10s+0.1s"
