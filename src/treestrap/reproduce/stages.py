"""What both reproductions share around their stages: a budget picked by name, the
output directory's JSON files written whole, and stages run in order, each skipped
when finished before and timed into ``timings.json`` when it did work."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

BudgetT = TypeVar("BudgetT")

#: seconds each stage took, summed over every invocation on the directory
TIMINGS = "timings.json"


def pick_budget(
    budget: str | BudgetT, budgets: Mapping[str, BudgetT], experiment: str = ""
) -> tuple[str, BudgetT]:
    """``(name, budget)`` of a name in ``budgets``, or ``("custom", budget)`` for a
    budget of one's own; an unknown name is a ``ValueError`` (naming ``experiment``
    when given)."""
    if not isinstance(budget, str):
        return "custom", budget
    if budget not in budgets:
        where = f" for {experiment}" if experiment else ""
        raise ValueError(f"unknown budget {budget!r}{where} (known: {', '.join(budgets)})")
    return budget, budgets[budget]


def write_whole(path: Path, text: str) -> None:
    """Write ``text`` through a temporary file, so that an interrupted run leaves the
    old file or the new one, never half of one (resuming trusts what it finds)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_json(path: Path, data: dict[str, Any]) -> None:
    write_whole(path, json.dumps(data, indent=1) + "\n")


def read_json(path: Path) -> dict[str, Any]:
    """A JSON object from ``path``; a ``ValueError`` naming the file otherwise."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: unreadable ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a JSON object")
    return data


def read_timings(out: Path) -> dict[str, Any]:
    """Seconds by stage from ``out``'s ``timings.json`` (none before the first)."""
    path = out / TIMINGS
    return read_json(path) if path.exists() else {}


def add_timing(out: Path, stage: str, seconds: float) -> None:
    """Add ``seconds`` to ``stage``'s time in ``timings.json``."""
    timings = read_timings(out)
    timings[stage] = round(float(timings.get(stage, 0.0)) + seconds, 1)
    write_json(out / TIMINGS, timings)


def time_stage(out: Path, stage: str, began: float) -> float:
    """Record the seconds since ``began`` (``time.monotonic``) as ``stage``'s; returns them."""
    seconds = time.monotonic() - began
    add_timing(out, stage, seconds)
    return seconds


@dataclass(frozen=True)
class Stage:
    """One resumable step of a reproduction: ``run`` does what is left of it and
    returns its summary line, or None when it was finished before."""

    name: str
    run: Callable[[], str | None]


def run_stages(out: Path, stages: list[Stage], say: Callable[[str], None]) -> bool:
    """Run ``stages`` in order, telling ``say`` one line each; True if any did work."""
    changed = False
    for stage in stages:
        began = time.monotonic()
        line = stage.run()
        if line is None:
            say(f"{stage.name}: done before")
            continue
        seconds = time_stage(out, stage.name, began)
        changed = True
        say(f"{line} ({seconds:.0f} s)")
    return changed
