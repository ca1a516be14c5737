"""Player spec strings: who plays in a match or tournament.

=================================  ==================================================
``treestrap``                      our engine in process, the default preset's weights
                                   (``zero5``, the strongest measured)
``hand-set``                       our engine in process, hand-set weights
``learned``, ``zero5``, ...        our engine in process, a shipped preset's weights
``random[:SEED]``                  our engine in process, small random weights
``PATH.npz`` / ``weights:PATH``    our engine in process, a weight file or checkpoint
``treestrap-uci[:PATH|PRESET]``    our engine as a UCI subprocess (a preset by name;
                                   none: the engine's default preset); a last
                                   ``:threads=N`` sets its ``Threads`` option
``stockfish`` / ``stockfish:ELO``  Stockfish, optionally at ``UCI_Elo`` ELO
``uci:COMMAND LINE``               any UCI engine
``xboard:COMMAND LINE``            any xboard (CECP) engine
=================================  ==================================================

``NAME=SPEC`` names the player; otherwise a short name is made from the spec
(``hand-set``, ``random-3``, the weight file's stem, ``stockfish-1350``, the command's
program name), made unique with ``-2``, ``-3``... Parsing checks that files and
programs exist, so a typo fails before any game starts.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from treestrap.evaluation.preset_names import (
    DEFAULT_PRESET,
    HAND_SET,
    RANDOM,
    SHIPPED_PRESETS,
)

IN_PROCESS, UCI, XBOARD = "in-process", "uci", "xboard"
#: Our engine with the default preset, by the program's name.
TREESTRAP = "treestrap"
TREESTRAP_UCI = "treestrap-uci"
#: Debian installs its engines under /usr/games, which is often not on PATH.
EXTRA_ENGINE_DIRS = ("/usr/games",)

#: ``treestrap-uci``'s last part that sets the engine's search threads.
_THREADS = re.compile(r"^(?:(?P<what>.*):)?threads=(?P<threads>[^:]*)$")

#: ``NAME=`` prefix: a name holds no ``=``, ``:``, ``/`` or space, so paths and
#: command lines are never mistaken for one.
_NAMED = re.compile(r"^(?P<name>[^=:/\\\s]+)=(?P<spec>.+)$")
_FORMS = (
    "treestrap, hand-set, learned, random[:SEED], PATH.npz, weights:PATH, "
    "treestrap-uci[:PATH|hand-set|learned|random][:threads=N], "
    "stockfish[:ELO], uci:COMMAND or xboard:COMMAND, optionally as NAME=SPEC"
)


@dataclass(frozen=True)
class PlayerSpec:
    """How to start one player; picklable, so worker processes get it as is."""

    name: str
    kind: str  # IN_PROCESS, UCI or XBOARD
    weights: str | None = None  # in process: a weight file, else a preset
    preset: str = DEFAULT_PRESET
    seed: int = 0
    command: tuple[str, ...] = ()  # UCI / xboard
    options: tuple[tuple[str, object], ...] = ()

    def engine_key(self) -> tuple[object, ...]:
        """What identifies the engine itself (players may share one under two names)."""
        return (self.kind, self.weights, self.preset, self.seed, self.command, self.options)


def find_engine(name: str) -> str | None:
    """Path of an engine command, looking in /usr/games too."""
    found = shutil.which(name)
    if found:
        return found
    for folder in EXTRA_ENGINE_DIRS:
        candidate = os.path.join(folder, name)
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def _weights(path: str, name: str) -> PlayerSpec:
    if not Path(path).is_file():
        raise ValueError(f"weight file not found: {path}")
    return PlayerSpec(name or Path(path).stem, IN_PROCESS, weights=path)


def _command(kind: str, line: str, name: str) -> PlayerSpec:
    try:
        words = tuple(shlex.split(line))
    except ValueError as exc:
        raise ValueError(f"bad {kind} command line {line!r}: {exc}") from None
    if not words:
        raise ValueError(f"{kind}: needs a command line, e.g. {kind}:/usr/games/fairymax")
    program = find_engine(words[0]) or (words[0] if os.access(words[0], os.X_OK) else None)
    if program is None:
        raise ValueError(f"engine program not found: {words[0]}")
    return PlayerSpec(name or _program_name(words), kind, command=(program, *words[1:]))


def _program_name(words: tuple[str, ...]) -> str:
    """The engine's own name: the script's for ``python script.py``."""
    first = Path(words[0]).name
    if first.startswith("python") and len(words) > 1 and not words[1].startswith("-"):
        return Path(words[1]).stem
    return first


def _treestrap_uci(what: str, name: str) -> PlayerSpec:
    threads = _THREADS.match(what)
    if threads:
        spec = _treestrap_uci(threads["what"] or "", name)
        count = _thread_count(threads["threads"])
        suffix = "" if name else f"-t{count}"  # the same engine on 1 and N threads
        return replace(spec, name=spec.name + suffix, options=(*spec.options, ("Threads", count)))
    command = (sys.executable, "-m", "treestrap.cli", "uci")
    if not what:  # no Preset option sent: the engine plays its default preset
        return PlayerSpec(name or f"uci-{TREESTRAP}", UCI, command=command)
    if what in (HAND_SET, RANDOM, *SHIPPED_PRESETS):
        return PlayerSpec(name or f"uci-{what}", UCI, command=command, options=(("Preset", what),))
    if not Path(what).is_file():
        raise ValueError(f"weight file not found: {what}")
    return PlayerSpec(name or f"uci-{Path(what).stem}", UCI, command=(*command, "--weights", what))


def _thread_count(text: str) -> int:
    """``threads=N``'s N: a whole number from 1 to the engine's ``Threads`` maximum
    (more threads than cores is allowed, as the engine allows it)."""
    from treestrap.engine.lazy_smp import MAX_THREADS  # here: it loads the search

    if not text.isdigit() or not 1 <= int(text) <= MAX_THREADS:
        raise ValueError(f"threads=N needs a whole number from 1 to {MAX_THREADS}, got {text!r}")
    return int(text)


def _stockfish(elo: str, name: str) -> PlayerSpec:
    program = find_engine("stockfish")
    if program is None:
        raise ValueError("engine program not found: stockfish (apt-get install stockfish)")
    if not elo:
        return PlayerSpec(name or "stockfish", UCI, command=(program,))
    if not elo.isdigit():
        raise ValueError(f"stockfish:ELO needs a whole number, got {elo!r}")
    options = (("UCI_LimitStrength", True), ("UCI_Elo", int(elo)))
    return PlayerSpec(name or f"stockfish-{elo}", UCI, command=(program,), options=options)


def parse_player(text: str) -> PlayerSpec:
    """One spec string (see the module docstring); ``ValueError`` says what is wrong."""
    match = _NAMED.match(text.strip())
    name, spec = (match["name"], match["spec"]) if match else ("", text.strip())
    kind, sep, rest = spec.partition(":")
    if spec == TREESTRAP:
        return PlayerSpec(name or spec, IN_PROCESS, preset=DEFAULT_PRESET)
    if spec in (HAND_SET, *SHIPPED_PRESETS):
        return PlayerSpec(name or spec, IN_PROCESS, preset=spec)
    if kind == RANDOM:
        if sep and not rest.isdigit():
            raise ValueError(f"random:SEED needs a whole number, got {rest!r}")
        seed = int(rest) if sep else 0
        return PlayerSpec(
            name or (f"random-{seed}" if sep else RANDOM), IN_PROCESS, preset=RANDOM, seed=seed
        )
    if kind == "weights" and sep:
        return _weights(rest, name)
    if kind == TREESTRAP_UCI:
        return _treestrap_uci(rest, name)
    if kind == "stockfish":
        return _stockfish(rest, name)
    if kind in (UCI, XBOARD) and sep:
        return _command(kind, rest, name)
    if spec.lower().endswith(".npz"):
        return _weights(spec, name)
    raise ValueError(f"unknown player {text!r} (expected {_FORMS})")


def parse_players(texts: list[str]) -> list[PlayerSpec]:
    """Every spec, with unique names: explicit names must differ, made-up ones are
    numbered (``-2``, ``-3``...) where they clash."""
    specs = [parse_player(t) for t in texts]
    explicit = [s.name for t, s in zip(texts, specs, strict=True) if _NAMED.match(t.strip())]
    for name in explicit:
        if explicit.count(name) > 1:
            raise ValueError(f"player name {name!r} given twice")
    taken = set(explicit)
    unique = []
    for text, spec in zip(texts, specs, strict=True):
        if _NAMED.match(text.strip()):
            unique.append(spec)
            continue
        name, n = spec.name, 1
        while name in taken:
            n += 1
            name = f"{spec.name}-{n}"
        taken.add(name)
        unique.append(replace(spec, name=name))
    return unique
