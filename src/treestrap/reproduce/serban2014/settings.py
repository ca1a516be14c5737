"""What a Serban (2014) directory was started with (``settings.json``), and the
Stockfish finisher its tournaments need: checked before any stage runs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from treestrap.play.players import find_engine
from treestrap.reproduce.serban2014.budgets import Budget
from treestrap.reproduce.stages import read_json, write_json

NEED_PGN = "serban2014 learns its starting points from games: give --pgn PGN"


def check_finisher(finish: bool) -> str | None:
    """The tournaments' finisher spec, ``ValueError`` if Stockfish is missing."""
    if not finish:
        return None
    if find_engine("stockfish") is None:
        raise ValueError(
            "stockfish not found (on PATH or in /usr/games; apt-get install stockfish): "
            "Serban's tournaments have Stockfish play out games unfinished after 200 "
            "plies; give --no-finish to score them as draws instead"
        )
    return "stockfish"


def _sha256(path: str | Path) -> str:
    from treestrap.evaluation.provenance import file_sha256

    return file_sha256(path)


def check_settings(
    out: Path,
    budget: Budget,
    seed: int,
    pgn: str | None,
    openings: str | None,
    finish: bool,
) -> None:
    """Write ``settings.json`` in a new directory; in one started before, refuse other
    settings (their stages would mix two experiments), naming what differs."""
    # The budget's numbers, not its wording: a reworded note changes no stage.
    numbers = {k: v for k, v in dataclasses.asdict(budget).items() if k not in ("note", "caveat")}
    wanted: dict[str, Any] = {
        "experiment": "serban2014",
        "budget": json.loads(json.dumps(numbers)),
        "seed": seed,
        "finish": finish,
        "openings": openings,
        "openings_sha256": _sha256(openings) if openings else None,
    }
    if pgn is not None:
        wanted["pgn_sha256"] = _sha256(pgn)
    path = out / "settings.json"
    if not path.exists():
        if pgn is None:
            raise ValueError(NEED_PGN)
        write_json(path, wanted)
        return
    stored = read_json(path)
    differ = [key for key, value in wanted.items() if stored.get(key) != value]
    if differ:
        names = ", ".join("the PGN file" if k == "pgn_sha256" else k for k in differ)
        raise ValueError(
            f"{out} holds a reproduction with other settings ({names}): run it with the "
            "options it was started with, or choose another --out"
        )
