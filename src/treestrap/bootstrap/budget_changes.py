"""Changing a run's budget as it goes: ``treestrap bootstrap --set KEY=VALUE``.

A long run learns what its budget should have been (a gate too short to decide, too few
games a round). A change is written into ``RUN/bootstrap.json`` with the command that
made it and the first round it applies to. Every round keeps its own budget
(``round-NN/budget.json``); a change reaches the round in progress only when none of the
steps it changes (self-play, fit, gate) has begun there, so no step is resumed with
other settings than it began with.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: A round's own budget: the run's budget when the round began.
ROUND_BUDGET_FILE = "budget.json"
#: Settings no change may touch: the budget's name says which one the run was made
#: with; the chunk size and the openings' seed number the games already played.
FIXED = ("name", "selfplay.chunk", "selfplay.seed")


def parse_setting(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` as a dotted key and a JSON value (text that is not JSON stays
    text: ``gate.tc=5+0.05``)."""
    key, sep, raw = text.partition("=")
    key, raw = key.strip(), raw.strip()
    if not sep or not key or not raw:
        raise ValueError(f"--set takes KEY=VALUE (for example gate.max_games=800), got {text!r}")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return key, value


def _kind_matches(old: Any, new: Any) -> bool:
    if isinstance(old, bool) or isinstance(new, bool):
        return isinstance(old, bool) and isinstance(new, bool)
    if isinstance(old, float):
        return isinstance(new, (int, float))
    return type(old) is type(new)


def changed_budget(budget: dict[str, Any], settings: list[tuple[str, Any]]) -> dict[str, Any]:
    """``budget`` (its JSON) with ``settings`` applied; ``ValueError`` naming the key for
    an unknown or fixed setting, or a value of another kind than the setting's."""
    result = copy.deepcopy(budget)
    for key, value in settings:
        if key in FIXED:
            raise ValueError(f"--set {key}: fixed for the life of a run")
        *path, last = key.split(".")
        node = result
        for part in path:
            node = node.get(part) if isinstance(node, dict) else None
        if not isinstance(node, dict) or last not in node or isinstance(node[last], dict):
            raise ValueError(f"--set {key}: no such setting in the budget")
        old = node[last]
        if not _kind_matches(old, value):
            raise ValueError(
                f"--set {key}={json.dumps(value)}: expected a {type(old).__name__} "
                f"like {json.dumps(old)}"
            )
        node[last] = float(value) if isinstance(old, float) else value
    return result


def round_budget(
    folder: Path, budget: dict[str, Any], read: Callable[[dict[str, Any]], Any]
) -> Any:
    """The budget of the round in ``folder``: the one it began with, or ``budget`` (the
    run's JSON), written there now as it begins; ``read`` makes it from its JSON."""
    path = folder / ROUND_BUDGET_FILE
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(budget, indent=1) + "\n")
    return read(json.loads(path.read_text()))
