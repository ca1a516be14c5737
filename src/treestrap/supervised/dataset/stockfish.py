"""One Stockfish process per worker, with the settings that make its answers repeatable.

One thread and a hash table cleared at every new game (python-chess sends
``ucinewgame`` when the ``game`` key of a request changes) make a fixed-depth search
depend only on the game, not on which worker saw which games before: a resumed build,
or one with another ``--jobs``, stores the same rollouts and scores.
"""

from __future__ import annotations

import chess.engine

from treestrap.play.players import find_engine
from treestrap.supervised.dataset.errors import DatasetError

#: Small on purpose: fixed shallow depths need little, and each worker has its own.
HASH_MB = 16


def open_stockfish() -> chess.engine.SimpleEngine:
    """A configured Stockfish, or DatasetError saying how to install it."""
    path = find_engine("stockfish")
    if path is None:
        raise DatasetError("Stockfish not found (apt-get install stockfish, or put it on PATH)")
    try:
        engine = chess.engine.SimpleEngine.popen_uci(path)
        engine.configure({"Threads": 1, "Hash": HASH_MB})
    except (chess.engine.EngineError, OSError) as exc:
        raise DatasetError(f"cannot start Stockfish at {path}: {exc}") from None
    return engine


def stockfish_name() -> str:
    """The engine's own name and version (``id name``), stored with the dataset: other
    versions play other rollouts and give other scores."""
    engine = open_stockfish()
    try:
        return str(engine.id.get("name", "Stockfish"))
    finally:
        engine.quit()
