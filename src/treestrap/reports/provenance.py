"""A weight file's provenance chain as text, each hash checked where it can be.

``treestrap weights show`` prints it: one block per step (the tool's command, code,
CPU time, games and sources), then each parent indented below, down to the random
weights the chain starts from. A hash is checked against the file itself, against the
parent's file or preset when it is at hand, and for a random start by drawing the same
random weights again. Below the chain, its audit (:mod:`treestrap.provenance_audit`):
the self-play flag computed from the chain's games, not read, and what the chain shows
that a reader must be told (uncommitted code, games that disagree with ``--games``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from treestrap.evaluation.provenance import record_of, stored_weights, weights_sha256
from treestrap.provenance_audit import ChainAudit, audit_chain

#: Finds a parent's weights by the name its record gives (a preset or a path): their
#: SHA-256, or None when they are not at hand.
Resolver = Callable[[str], str | None]


def _short(sha: str) -> str:
    return sha[:16]


def _check(recorded: str, actual: str | None) -> str:
    if actual is None:
        return "not at hand, not checked"
    return "matches" if actual == recorded else f"DIFFERS (now {_short(actual)})"


def _games(games: Mapping[str, int]) -> str:
    return ", ".join(f"{name} {count:,}" for name, count in games.items())


def _random_sha(parent: Mapping[str, Any], game: str) -> str | None:
    """The SHA-256 of the same random linear weights of ``game`` drawn again (a random
    start whose record names its feature set; other starts are only hashed)."""
    feature_set = parent.get("feature_set")
    if not feature_set:
        return None
    from treestrap.games.registry import get_game

    try:
        draw = get_game(game).random_model
        model = draw(str(feature_set), int(parent["seed"]), float(parent["scale"]))
    except (KeyError, ValueError, TypeError):
        return None
    return weights_sha256(model.weights)


#: The tool whose candidates record a round of a bootstrap run.
BOOTSTRAP_TOOL = "treestrap bootstrap"
#: A bootstrap round's steps, in order, as ``cpu_split`` names them.
ROUND_STEPS = ("selfplay", "fit", "gate")
#: How the CPU time of a bootstrap candidate without a split reads: its fit's alone.
FIT_ONLY = "fit only: its round's self-play and gate not recorded"


def _hours(seconds: Any) -> str:
    return f"{float(seconds or 0.0) / 3600:.2f}"


def cpu_text(record: Mapping[str, Any]) -> str:
    """A step's CPU time as its record gives it: a bootstrap round's with its split
    (self-play, fit, gate), a distilled network's (fit, labels); a bootstrap candidate
    written before rounds recorded their split counts its fit alone, and says so."""
    hours = f"{_hours(record.get('cpu_seconds'))} CPU hours"
    split = record.get("cpu_split")
    if isinstance(split, Mapping):  # in the round's order (a file keeps its keys sorted)
        order = [k for k in ROUND_STEPS if k in split] + sorted(set(split) - set(ROUND_STEPS))
        parts = ", ".join(f"{name} {_hours(split[name])}" for name in order)
        return f"{hours} ({parts})"
    if "cpu_seconds_fit" in record and "cpu_seconds_labels" in record:
        fit, labels = _hours(record["cpu_seconds_fit"]), _hours(record["cpu_seconds_labels"])
        return f"{hours} (fit {fit}, labels {labels})"
    if record.get("tool") == BOOTSTRAP_TOOL and "positions" in record:
        return f"{hours} ({FIT_ONLY})"
    return hours


def _step_lines(record: Mapping[str, Any], pad: str) -> list[str]:
    lines = [f"{pad}{record.get('command', '?')}"]
    facts = [
        f"{record.get('tool', '?')}",
        f"commit {record.get('commit', '?')}",
        cpu_text(record),
        str(record.get("date", "")),
    ]
    lines.append(f"{pad}  {', '.join(f for f in facts if f)}")
    for resume in record.get("resumed", []):
        lines.append(
            f"{pad}  resumed after {resume.get('after_games')} games: {resume.get('command')}"
        )
    if record.get("games"):
        lines.append(f"{pad}  games: {_games(record['games'])}")
    for source in record.get("sources", []):
        lines += _source_lines(source, pad + "  ")
    return lines


def _source_lines(source: Mapping[str, Any], pad: str) -> list[str]:
    what = source.get("kind", "source")
    head = f"{pad}{what} {source.get('path', '?')}"
    if source.get("positions") is not None:
        head += f": {int(source['positions']):,} positions"
    if source.get("filter"):
        head += f", players {source['filter']}"
    lines = [head]
    for game_file in source.get("games", []):
        lines.append(
            f"{pad}  {game_file.get('path', '?')} sha256 {_short(game_file.get('sha256', ''))}"
        )
        if game_file.get("kept"):
            lines.append(f"{pad}    kept: {_games(game_file['kept'])}")
        if game_file.get("dropped"):
            lines.append(f"{pad}    left out: {_games(game_file['dropped'])}")
    if source.get("sha256"):
        lines.append(f"{pad}  sha256 {_short(source['sha256'])}")
    return lines


def _parent_lines(
    parent: Mapping[str, Any], pad: str, resolve: Resolver, shown: set[str], game: str
) -> list[str]:
    role, sha = parent.get("role", "parent"), str(parent.get("sha256", ""))
    kind = parent.get("kind")
    if kind == "random":
        where = f"feature set {parent['feature_set']}, " if parent.get("feature_set") else ""
        return [
            f"{pad}{role}: random weights ({where}seed {parent.get('seed')}, scale "
            f"{parent.get('scale')}) sha256 {_short(sha)}: {_check(sha, _random_sha(parent, game))}"
        ]
    name = str(parent.get("name", "?"))
    lines = [f"{pad}{role}: {name} sha256 {_short(sha)}: {_check(sha, resolve(name))}"]
    if kind == "hand-written":
        lines.append(f"{pad}  a hand-written evaluation (the chain starts here, not learned)")
        return lines
    record = parent.get("provenance")
    if not isinstance(record, dict):
        lines.append(f"{pad}  no provenance recorded by the tools: the chain stops here")
        return lines
    if sha in shown:  # the same weights in another role: their chain is printed above
        return [*lines, f"{pad}  (its chain is shown above)"]
    shown.add(sha)
    lines += _step_lines(record, pad + "  ")
    for grand in record.get("parents", []):
        lines += _parent_lines(grand, pad + "  ", resolve, shown, game)
    return lines


def default_resolver(name: str) -> str | None:
    """A parent's current weights by preset name or path; None when neither is here."""
    from treestrap.evaluation.preset_names import PRESET_NAMES
    from treestrap.evaluation.weight_file_format import WeightFileError, read_weight_file

    if name in PRESET_NAMES:
        from treestrap.evaluation.presets import preset_model

        return weights_sha256(stored_weights(preset_model(name)))
    path = Path(name)
    if not path.is_file():
        return None
    try:
        return weights_sha256(read_weight_file(path)[1])
    except WeightFileError:
        return None


def provenance_lines(
    metadata: Mapping[str, Any],
    weights: np.ndarray,
    resolve: Resolver = default_resolver,
    game: str | None = None,
) -> list[str]:
    """The chain of a file of ``game`` (default: the default game) whose metadata and
    weights vector are given; a chain stays within one game."""
    record = record_of(metadata)
    if record is None:
        return [
            "provenance: not recorded by the tools (a file written before they kept "
            "one, or by another program): the chain cannot be checked"
        ]
    own = weights_sha256(weights)
    audit = audit_chain(record, own)
    lines = [
        f"provenance (self-play only: {audit.verdict()}; weights sha256 {_short(own)}: "
        f"{_check(str(record.get('sha256', '')), own)})"
    ]
    lines += _step_lines(record, "  ") + _run_lines(metadata, record)
    from treestrap.games.registry import DEFAULT_GAME

    shown: set[str] = set()
    for parent in record.get("parents", []):
        lines += _parent_lines(parent, "  ", resolve, shown, game or DEFAULT_GAME)
    return lines + audit_lines(audit)


def _run_lines(metadata: Mapping[str, Any], record: Mapping[str, Any]) -> list[str]:
    """For a bootstrap file whose own step counts its fit alone: the run's CPU time,
    which its ``bootstrap`` record keeps (from random weights to this round, rejected
    rounds included); the round's own total is recorded nowhere in such a file."""
    run = metadata.get("bootstrap")
    if not isinstance(run, Mapping) or "cpu_seconds" not in run:
        return []
    if not cpu_text(record).endswith(f"({FIT_ONLY})"):
        return []
    return [
        f"    the run to round {run.get('round', '?')}: {_hours(run['cpu_seconds'])} CPU hours "
        "from random weights, rejected rounds included (the file's bootstrap record)"
    ]


def audit_lines(audit: ChainAudit) -> list[str]:
    """The audit's verdict: it passes, or each problem and each fact on a line."""
    if audit.passes:
        return ["audit: passes (flags computed from the chain, hashes, commits, games)"]
    problems = f"{len(audit.problems)} problems" if audit.problems else "no problem"
    lines = [f"audit: {problems}, {len(audit.facts)} facts to know"]
    lines += [f"  PROBLEM {line}" for line in audit.problems]
    lines += [f"  known: {line}" for line in audit.facts]
    return lines
