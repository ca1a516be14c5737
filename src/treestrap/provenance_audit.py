"""A provenance chain checked against itself: what it says is computed again, not read.

A weight file's record (:mod:`treestrap.evaluation.provenance`) stores a
``self_play_only`` flag at every step, and every parent's record is a copy made when
the step ran. A flag typed by hand, or a record copied beside other weights, would go
unseen if a reader believed what is stored. So :func:`audit_chain` computes the flag
again from the games the chain records (every step's ``games``, every source's kept
games, down to the root: random weights are a self-play root, a hand-written
evaluation is not, a file without a record ends the chain), checks each parent's
recorded hash against the hash in that parent's own record, and names the facts a
reader must be told: code that was not committed (``-dirty`` or ``unknown``) and a
training run whose games disagree with its ``--games`` with no resume recorded.

``treestrap weights show`` prints the audit, ``tools/ship_preset.py`` and
``treestrap bootstrap --from`` refuse a file it finds problems in. The writers compute
the flag by the same functions, so what they store is what the audit computes.

The standard library alone: every layer may use it, and it compiles nothing.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

#: The metadata key of the record.
KEY = "provenance"
#: A training run's games against itself, in ``games``.
SELF_PLAY = "self-play"
#: The name a training run's PGN gives its learning player on both sides in self-play.
LEARNER = "learner"
#: How a file's own step is named in the audit's lines.
THIS_FILE = "this file"


@dataclass(frozen=True)
class ChainAudit:
    """What the audit of a record found.

    ``self_play_only`` is computed from the chain (``why_not`` says why not);
    ``claimed`` is the flag the record stores. ``problems`` are contradictions (a flag
    the chain does not bear out, a record of other weights): a file with any is not
    shipped nor started from. ``facts`` are true of the chain and told, not refused:
    uncommitted code, games that disagree with their command's ``--games``."""

    self_play_only: bool
    claimed: bool | None
    why_not: str | None
    problems: tuple[str, ...]
    facts: tuple[str, ...]
    #: the commit of the file's own step, as recorded ("?" when none is)
    commit: str

    @property
    def passes(self) -> bool:
        """No problem and nothing to tell."""
        return not self.problems and not self.facts

    def verdict(self) -> str:
        """``yes``/``no``, and where the record claims otherwise, what it claims."""
        said = "yes" if self.self_play_only else "no"
        if self.claimed is None or self.claimed == self.self_play_only:
            return said
        if self.claimed:
            return f"{said} (the record claims yes: a hand-edited flag)"
        return f"{said} (the record claims no)"


def games_are_self_play(games: Any) -> bool:
    """Whether a game count by players (``{"self-play": 10, "hand-set": 3}``, or for PGN
    sources ``{"learner vs learner": 10}``) holds only games of the weights against
    themselves."""
    if not isinstance(games, Mapping):
        return False
    allowed = (SELF_PLAY, f"{LEARNER} vs {LEARNER}")
    return all(name in allowed for name, count in games.items() if count)


def _others(games: Any) -> str:
    """The games a count holds that are not self-play, as a reader names them."""
    if not isinstance(games, Mapping):
        return f"games recorded as {games!r}"
    allowed = (SELF_PLAY, f"{LEARNER} vs {LEARNER}")
    return ", ".join(f"{n} {c:,}" for n, c in games.items() if c and n not in allowed)


def commit_is_committed(commit: Any) -> bool:
    """Whether a recorded commit names code that is in the history (not ``-dirty``,
    not ``unknown``, not missing)."""
    text = str(commit or "")
    return bool(text) and text != "unknown" and not text.endswith("-dirty")


def parent_why_not(parent: Mapping[str, Any]) -> str | None:
    """Why a parent's chain is not self-play only, or None when it is: a random root
    is; a hand-written one, noise around a hand-written evaluation, an unrecorded file
    or a record of other weights is not."""
    kind = parent.get("kind")
    name = str(parent.get("name", "?"))
    if kind == "random":
        around = parent.get("around")
        return f"random noise around {around}" if around else None
    if kind == "hand-written":
        return f"a hand-written start ({name})"
    record = parent.get("provenance")
    if kind != "weights" or not isinstance(record, Mapping):
        return f"{name}: no provenance recorded"
    if record.get("sha256") != parent.get("sha256"):
        return f"{name}: its record is of other weights"
    return record_why_not(record)


def source_why_not(source: Mapping[str, Any]) -> str | None:
    """Why a source's games are not all the chain's own self-play, or None."""
    files = source.get("games")
    path = source.get("path", "?")
    if not isinstance(files, list) or not files:
        return f"source {path}: no games recorded by file"
    for game_file in files:
        if not isinstance(game_file, Mapping):
            return f"source {path}: games recorded by name only"
        why = game_file_why_not(game_file)
        if why is not None:
            return why
    return None


def game_file_why_not(game_file: Mapping[str, Any]) -> str | None:
    """Why a PGN file's kept games are not the chain's own self-play, or None."""
    path = game_file.get("path", "?")
    kept = game_file.get("kept", {})
    if not games_are_self_play(kept):
        return f"games {path}: {_others(kept)}"
    players = game_file.get("players")
    if not isinstance(players, Mapping):
        return f"games {path}: no record of who played them"
    return parent_why_not(players)


def record_why_not(record: Mapping[str, Any]) -> str | None:
    """Why a step's chain is not self-play only, or None when it is: it has a root,
    all its games and its sources' kept games are self-play, and so is every parent's."""
    games = record.get("games")
    if games is not None and not games_are_self_play(games):
        return f"games against {_others(games)}"
    parents = record.get("parents") or []
    if not parents:
        return "no parent: the chain has no root"
    for parent in parents:
        why = parent_why_not(parent)
        if why is not None:
            return why
    for source in record.get("sources", []):
        why = source_why_not(source)
        if why is not None:
            return why
    return None


def chain_self_play_only(
    parents: Iterable[Mapping[str, Any]],
    games: Mapping[str, int] | None = None,
    sources: Iterable[Mapping[str, Any]] = (),
) -> bool:
    """The flag of a step about to be written with these parents, games and sources."""
    step = {"parents": list(parents), "sources": list(sources)}
    if games is not None:
        step["games"] = games
    return record_why_not(step) is None


def _games_flag(command: str) -> int | None:
    """The ``--games N`` of a command line, or None."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    found = None
    for i, word in enumerate(words):
        value = None
        if word == "--games" and i + 1 < len(words):
            value = words[i + 1]
        elif word.startswith("--games="):
            value = word.partition("=")[2]
        if value is not None and value.isdigit():
            found = int(value)
    return found


def games_fact(record: Mapping[str, Any]) -> str | None:
    """What is wrong with a step's games against its command's ``--games``: a total
    that is not what the last command giving ``--games`` asked for (a resume may ask
    for more), or None."""
    games = record.get("games")
    if not isinstance(games, Mapping):
        return None
    total = sum(int(c) for c in games.values() if isinstance(c, int | float))
    resumes = [r for r in record.get("resumed", []) if isinstance(r, Mapping)]
    asked, by = _games_flag(str(record.get("command", ""))), "its command"
    for resume in resumes:
        again = _games_flag(str(resume.get("command", "")))
        if again is not None:
            asked, by = again, "its last resume"
    if asked is None or asked == total:
        return None
    if not resumes:
        return f"{total:,} games where its command asks --games {asked}, and no resume is recorded"
    return f"{total:,} games where {by} asks --games {asked}"


def _name(parent: Mapping[str, Any]) -> str:
    sha = str(parent.get("sha256", ""))[:16]
    return f"{parent.get('role', 'parent')} {parent.get('name', '?')} (sha256 {sha})"


class _Walk:
    """One audit's pass over a chain: problems and facts in the order met, each once."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.facts: list[str] = []
        #: each step's record by its weights' hash, as first met (a chain copies the
        #: record of weights that are a parent in two roles)
        self.steps_seen: dict[str, str] = {}

    def note(self, into: list[str], line: str) -> None:
        if line not in into:
            into.append(line)

    def flag(self, where: str, claimed: Any, why: str | None) -> None:
        """A stored flag against the computed one."""
        if claimed is None:
            return
        if bool(claimed) and why is not None:
            line = f"{where}: the record claims self-play only, its chain is not ({why}): "
            self.note(self.problems, line + "a hand-edited flag")
        elif not claimed and why is None:
            self.note(self.problems, f"{where}: the record claims not self-play only, its chain is")

    def step(self, record: Mapping[str, Any], where: str) -> None:
        self.flag(where, record.get("self_play_only"), record_why_not(record))
        text = json.dumps(record, sort_keys=True, default=str)
        sha = str(record.get("sha256", ""))
        if sha in self.steps_seen:  # the same weights in another role: told once
            if self.steps_seen[sha] != text:
                self.note(self.problems, f"{where}: two records of these weights differ")
            return
        self.steps_seen[sha] = text
        commit = record.get("commit")
        if not commit_is_committed(commit):
            self.note(self.facts, f"{where}: made from uncommitted code: commit {commit or '?'}")
        games = games_fact(record)
        if games is not None:
            self.note(self.facts, f"{where}: {games}")
        for parent in record.get("parents") or []:
            self.parent(parent)
        for source in record.get("sources", []):
            self.source(source)

    def parent(self, parent: Mapping[str, Any]) -> None:
        where = _name(parent)
        self.flag(where, parent.get("self_play_only"), parent_why_not(parent))
        record = parent.get("provenance")
        if parent.get("kind") != "weights" or not isinstance(record, Mapping):
            return
        if record.get("sha256") != parent.get("sha256"):
            own = str(record.get("sha256", ""))[:16]
            self.note(self.problems, f"{where}: its record is of other weights (sha256 {own})")
        self.step(record, where)

    def source(self, source: Mapping[str, Any]) -> None:
        where = f"source {source.get('path', '?')}"
        self.flag(where, source.get("self_play_only"), source_why_not(source))
        for game_file in source.get("games", []) if isinstance(source.get("games"), list) else []:
            if not isinstance(game_file, Mapping):
                continue
            self.flag(
                f"games {game_file.get('path', '?')}",
                game_file.get("self_play_only"),
                game_file_why_not(game_file),
            )
            if isinstance(game_file.get("players"), Mapping):
                self.parent(game_file["players"])


def audit_chain(record: Mapping[str, Any] | None, weights_sha256: str | None = None) -> ChainAudit:
    """Audit a file's provenance ``record`` (None: the file has none), and when
    ``weights_sha256`` is given, the file's own weights against it."""
    if not isinstance(record, Mapping):
        why = "no provenance record"
        return ChainAudit(False, None, why, (f"{THIS_FILE}: {why}",), (), "?")
    walk = _Walk()
    if weights_sha256 is not None and record.get("sha256") != weights_sha256:
        walk.note(
            walk.problems, f"{THIS_FILE}: its weights differ from the hash its provenance records"
        )
    walk.step(record, THIS_FILE)
    why = record_why_not(record)
    claimed = record.get("self_play_only")
    return ChainAudit(
        self_play_only=why is None,
        claimed=None if claimed is None else bool(claimed),
        why_not=why,
        problems=tuple(walk.problems),
        facts=tuple(walk.facts),
        commit=str(record.get("commit") or "?"),
    )
