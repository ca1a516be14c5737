"""An in-process UCI session for the UCI tests (the ``session`` fixture of
``conftest.py``): :class:`treestrap.engine.uci.UciEngine` with the hand-set weights,
and the pattern of its ``info depth`` lines."""

from __future__ import annotations

import io
import re
import threading

from treestrap.engine.uci import UciEngine

SEARCH_TIMEOUT = 300.0  # the first search may wait for the kernels to compile
INFO = re.compile(
    r"^info depth (?P<depth>\d+) seldepth \d+ (?:multipv (?P<multipv>\d+) )?"
    r"score (?P<kind>cp|mate) (?P<score>-?\d+) nodes (?P<nodes>\d+) nps \d+ time \d+"
    r"(?: pv (?P<pv>.+))?$"
)


class _Output(io.StringIO):
    """The session's output stream: its lines, and an event set by each bestmove."""

    def __init__(self) -> None:
        super().__init__()
        self.bestmove = threading.Event()

    def write(self, text: str) -> int:
        written = super().write(text)
        if text.startswith("bestmove"):
            self.bestmove.set()
        return written


class Session:
    """An in-process UCI session with the hand-set weights."""

    def __init__(self) -> None:
        self.out = _Output()
        self.engine = UciEngine(self.out)
        # a timed go before the kernels are compiled gets the quick move, without lines
        self.engine.wait_warm()
        self.send("setoption name Preset value hand-set")

    def send(self, *commands: str) -> None:
        for command in commands:
            self.engine.handle(command)

    def output_since(self, start: int) -> list[str]:
        return self.out.getvalue()[start:].splitlines()

    def search(self, fen: str, go: str) -> list[str]:
        """The lines a ``go`` on ``fen`` prints, its bestmove last."""
        start = len(self.out.getvalue())
        self.out.bestmove.clear()
        self.send(f"position fen {fen}", go)
        assert self.out.bestmove.wait(SEARCH_TIMEOUT), "no bestmove"
        return self.output_since(start)

    def close(self) -> None:
        self.engine.shutdown()


def info_lines(lines: list[str]) -> list[re.Match[str]]:
    """The parsed ``info depth`` lines among ``lines`` (each must parse)."""
    matches = [INFO.match(line) for line in lines if line.startswith("info depth")]
    assert all(matches), lines
    return [m for m in matches if m]
