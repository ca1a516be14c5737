"""The Stockfish builds a speed benchmark compares with, and each one's build line.

Debian's ``stockfish`` package is built for generic x86-64 (its ``compiler`` command
prints "64bit SSE2"); a build of the same version for this processor family (AVX2,
POPCNT) searches about a third more nodes per second. A benchmark therefore runs
against both: Debian's (``stockfish`` on the PATH or in /usr/games) and a native
build, Stockfish 15.1 compiled for this processor family from the official source (a
user builds it and gives its path with ``--native`` or in ``$TREESTRAP_NATIVE_STOCKFISH``;
without either it is left out with a line), when it runs on this machine. Each is named by its
build line, the "Compilation settings include:" line of Stockfish's ``compiler``
command.

Imported by the benchmarks beside it (``python benchmarks/x.py`` puts this folder on
the path) and by ``tests/test_stockfish_builds.py``.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from treestrap.play.players import find_engine

#: Where a user names the native build when a benchmark is not given ``--native``.
NATIVE_VARIABLE = "TREESTRAP_NATIVE_STOCKFISH"
#: Seconds a ``compiler`` command may take (Stockfish answers at once).
PROBE_TIMEOUT = 20.0


@dataclass(frozen=True)
class StockfishBuild:
    """A Stockfish binary that runs here, with what its ``compiler`` command says."""

    label: str  # "Debian" or "native": the column a benchmark prints
    command: str  # the path the benchmark runs
    build: str  # e.g. "64bit SSE2", the settings it was compiled with
    compiled_by: str  # e.g. "g++ (GNUC) 12.2.0 on Linux"

    def describe(self) -> str:
        """One line for a benchmark's header."""
        by = f", compiled by {self.compiled_by}" if self.compiled_by else ""
        return f"Stockfish {self.label}: {self.command}: build {self.build!r}{by}"


class BuildProbeError(RuntimeError):
    """The binary did not print a build line (missing, crashed, or not Stockfish)."""


def parse_compiler_output(text: str) -> tuple[str, str]:
    """(build, compiled by) from the output of Stockfish's ``compiler`` command."""
    build = compiled_by = ""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("Compilation settings include:"):
            build = line.partition(":")[2].strip()
        elif line.startswith("Compiled by"):
            compiled_by = line.removeprefix("Compiled by").strip()
    if not build:
        raise BuildProbeError("no 'Compilation settings include:' line in its output")
    return build, compiled_by


def probe(command: str, timeout: float = PROBE_TIMEOUT) -> tuple[str, str]:
    """(build, compiled by) of the Stockfish at ``command``, from ``command compiler``.

    Raises :class:`BuildProbeError` with a reason a person can act on: not found, not
    executable, killed by a signal (a build for instructions this processor lacks
    stops with SIGILL, "Illegal instruction"), or no build line."""
    try:
        done = subprocess.run(
            [command, "compiler"],
            input="quit\n",  # an older build that takes no argument reads UCI instead
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError:
        raise BuildProbeError("not found") from None
    except PermissionError:
        raise BuildProbeError("not executable") from None
    except subprocess.TimeoutExpired:
        raise BuildProbeError(f"no answer to 'compiler' within {timeout:g} s") from None
    except OSError as exc:  # e.g. a binary for another architecture
        raise BuildProbeError(f"cannot be run: {exc.strerror or exc}") from None
    if done.returncode < 0:
        number = -done.returncode
        if number == signal.SIGILL:
            raise BuildProbeError(
                "Illegal instruction (SIGILL): built for instructions this processor lacks"
            )
        raise BuildProbeError(f"killed by signal {signal.Signals(number).name}")
    if done.returncode != 0:
        raise BuildProbeError(f"exit status {done.returncode}")
    return parse_compiler_output(done.stdout)


def native_path(environ: Mapping[str, str] = os.environ) -> Path | None:
    """The native build a user named in ``$TREESTRAP_NATIVE_STOCKFISH``, or None."""
    named = environ.get(NATIVE_VARIABLE, "")
    return Path(named) if named else None


def select_builds(
    debian: str = "stockfish",
    native: str | Path | None = None,
    report: Callable[[str], None] = print,
) -> list[StockfishBuild]:
    """The builds to compare with, Debian's first, each with its build line.

    ``debian`` is a command name or path (found on the PATH or in /usr/games);
    ``native`` a path, by default :func:`native_path`. A build that is missing or does
    not run here is left out with a line given to ``report`` saying why; the caller
    decides what to do when none is left."""
    builds = []
    native = native if native is not None else native_path()
    if native is None:
        report(f"Stockfish native: left out, none given (--native PATH or ${NATIVE_VARIABLE})")
    candidates = [("Debian", find_engine(debian) or debian)]
    candidates += [("native", str(native))] if native is not None else []
    for label, command in candidates:
        try:
            build, compiled_by = probe(command)
        except BuildProbeError as exc:
            report(f"Stockfish {label}: {command}: left out, {exc}")
            continue
        builds.append(StockfishBuild(label, command, build, compiled_by))
    return builds


def judge_command(
    debian: str = "stockfish",
    native: str | Path | None = None,
    report: Callable[[str], None] = print,
) -> str:
    """The Stockfish a benchmark uses as judge: the native build where it runs here
    (the same evaluation, more nodes a second), else Debian's.

    Arguments as :func:`select_builds`; raises :class:`BuildProbeError` when neither
    runs."""
    builds = select_builds(debian, native, report)
    if not builds:
        raise BuildProbeError("neither Debian's stockfish nor the native build runs here")
    return builds[-1].command
