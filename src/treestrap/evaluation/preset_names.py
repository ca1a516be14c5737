"""The presets' names and the default one, free of numba: the command line, the player
specs and the UCI engine read them from here (the weights themselves are
:mod:`treestrap.evaluation.presets`')."""

from __future__ import annotations

HAND_SET, LEARNED, RANDOM = "hand-set", "learned", "random"
#: A hybrid network made from random weights by self-play alone, by the tools
#: (``tools/make_self_play_net.py``): its file carries the whole provenance chain.
SELF_PLAY_NET = "self-play-net"
#: A perspective network made by ``treestrap bootstrap`` from random weights by rounds of
#: its own self-play data (docs/bootstrap.md): its file carries the run's cost and chain.
ZERO = "zero"
#: The next network of the same chain: a ``treestrap bootstrap --from zero`` run with
#: cheaper self-play labels (more positions a CPU hour); ``zero`` stays as it was measured.
ZERO2 = "zero2"
#: A later round of ``zero2``'s run, fitted with less weight on the game results.
ZERO3 = "zero3"
#: A later round of the same run, fitted from ``zero3`` to more of its own games.
ZERO4 = "zero4"
#: A later round of the same run: a network twice as wide (512 units a side), fitted
#: afresh to the run's games of ``zero4``'s and earlier players.
ZERO5 = "zero5"
#: The shipped presets written by ``treestrap bootstrap`` (a run may start ``--from`` them),
#: oldest first; help texts list them from here, and the tuples below take them whole.
BOOTSTRAP_PRESETS = (ZERO, ZERO2, ZERO3, ZERO4, ZERO5)
PRESET_NAMES = (HAND_SET, LEARNED, RANDOM, SELF_PLAY_NET, *BOOTSTRAP_PRESETS)
#: The presets whose weights are shipped files, each made by the tools and shipped by
#: ``tools/ship_preset.py`` with its provenance chain: name -> file in the package's
#: ``treestrap.evaluation.data`` (chess's facts list them: games/chess_facts.py).
SHIPPED_FILES = {name: f"{name}.npz" for name in (LEARNED, SELF_PLAY_NET, *BOOTSTRAP_PRESETS)}
SHIPPED_PRESETS = tuple(SHIPPED_FILES)
#: The shipped presets that are networks (``weights preset`` copies them whole).
NETWORK_PRESETS = (SELF_PLAY_NET, *BOOTSTRAP_PRESETS)

#: The preset an engine or a player gets when none is named: the strongest measured
#: (docs/reports/bootstrap-zero.md gives its matches and the commands that played them).
DEFAULT_PRESET = ZERO5
#: Why the default is the default, for help texts: no figure here, where nothing would
#: keep it true; the file's metadata and the docs hold the measured ones.
DEFAULT_PRESET_WHY = f"the strongest measured; treestrap weights show {ZERO5} tells more"
