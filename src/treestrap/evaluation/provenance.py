"""Where a weight file came from, written by the tool that made it.

Every command that writes weights (``train``, ``distill fit``, ``supervised``,
``weights preset``) puts a ``provenance`` record into the file's metadata:

- ``tool``, ``command`` (the command line), ``version``, ``commit``, ``date``;
- ``cpu_seconds``: the CPU time of this step (a distilled network counts its labels in);
- ``sha256``: the SHA-256 of the file's own weights (the ``weights`` member, not the
  metadata), so a weight edited after the tool wrote it shows;
- ``games``: games by the players that played them (a training run's self-play and
  its opponent's), ``sources``: the files its positions came from, each with its
  SHA-256 and its games by player;
- ``parents``: the weights it started from or learned from (start, teacher, linear
  part), each with its weights' SHA-256 and its own provenance, so the chain goes back
  to random weights (or stops at a hand-written evaluation or an unrecorded file);
- ``self_play_only``: computed from the chain, true only when it starts at random
  weights and every game in it was played by the chain's own weights against
  themselves. A parent's flag is computed again from its record (which must be of its
  weights), never copied: :mod:`treestrap.provenance_audit` computes it for the writers
  here and for every reader alike.

The module is free of numba and torch: the reports and the ``weights show`` command
read it without compiling anything.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

# The flag's rules live in the audit, which readers share; named here for the writers.
from treestrap.provenance_audit import KEY as KEY
from treestrap.provenance_audit import LEARNER as LEARNER
from treestrap.provenance_audit import SELF_PLAY as SELF_PLAY
from treestrap.provenance_audit import chain_self_play_only as chain_self_play_only
from treestrap.provenance_audit import games_are_self_play as games_are_self_play
from treestrap.provenance_audit import parent_why_not


def weights_sha256(weights: np.ndarray) -> str:
    """The SHA-256 of a weight vector as a file stores it (little-endian float64)."""
    data = np.ascontiguousarray(weights, dtype="<f8")
    return hashlib.sha256(data.tobytes()).hexdigest()


def stored_weights(model: Any) -> np.ndarray:
    """The vector a model's file stores: its weights, then a hybrid's linear part."""
    linear = getattr(model, "linear", None)
    return model.weights if linear is None else np.concatenate([model.weights, linear])


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def _commit() -> str:
    from treestrap.version import git_commit, recorded_commit

    return git_commit() or recorded_commit() or "unknown"


#: The arguments of the ``treestrap`` command running in this process (set by its
#: entry point), or None: then the process's own command line is recorded.
_COMMAND_ARGS: list[str] | None = None


def set_command_line(args: list[str]) -> None:
    """Record the arguments of the ``treestrap`` command this process runs."""
    global _COMMAND_ARGS
    _COMMAND_ARGS = list(args)


def command_line(argv: list[str] | None = None) -> str:
    """The command that is running, as a user would type it (``treestrap ...``)."""
    if argv is None and _COMMAND_ARGS is not None:
        return shlex.join(["treestrap", *_COMMAND_ARGS])
    argv = sys.argv if argv is None else argv
    program = Path(argv[0]).name if argv else "python"
    if program in ("treestrap", "__main__.py", "cli.py"):
        program = "treestrap"
    return shlex.join([program, *argv[1:]])


def tool_record(tool: str, cpu_seconds: float, command: str | None = None) -> dict[str, Any]:
    """The fields every record starts with: which tool, the command, the code, when."""
    from treestrap import __version__

    return {
        "tool": tool,
        "command": command if command is not None else command_line(),
        "version": __version__,
        "commit": _commit(),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu_seconds": round(float(cpu_seconds), 1),
    }


def random_parent(
    role: str, seed: int, scale: float, weights: np.ndarray, feature_set: str | None = None
) -> dict[str, Any]:
    """Random starting weights: the chain's root. ``feature_set`` names the chess linear
    weights that ``treestrap.evaluation.presets.random_model`` draws, so a reader can draw
    them again and check the hash (other models' random starts are only hashed)."""
    parent: dict[str, Any] = {
        "role": role,
        "kind": "random",
        "seed": seed,
        "scale": scale,
        "sha256": weights_sha256(weights),
        "self_play_only": True,
    }
    if feature_set is not None:
        parent["feature_set"] = feature_set
    return parent


def hand_written_parent(role: str, name: str, weights: np.ndarray) -> dict[str, Any]:
    """A hand-written evaluation (the ``hand-set`` preset): a root, but not learned."""
    return {
        "role": role,
        "kind": "hand-written",
        "name": name,
        "sha256": weights_sha256(weights),
        "self_play_only": False,
    }


def model_parent(role: str, name: str, weights: np.ndarray, metadata: Mapping) -> dict[str, Any]:
    """Weights read from a preset or a file: their hash and their own record (None when
    the file has none: the chain stops there, and is not self-play only). The flag is
    computed from that record's chain, and only when the record is of these weights: a
    flag stored in the file is not believed."""
    record = metadata.get(KEY) if isinstance(metadata.get(KEY), dict) else None
    parent: dict[str, Any] = {
        "role": role,
        "kind": "weights",
        "name": name,
        "sha256": weights_sha256(weights),
        "provenance": record,
    }
    parent["self_play_only"] = parent_why_not(parent) is None
    return parent


def record_of(metadata: Mapping[str, Any]) -> dict[str, Any] | None:
    """A file's record, or None for a file written before the tools kept one."""
    record = metadata.get(KEY)
    return record if isinstance(record, dict) else None


def named_parent(role: str, name: str, model: Any) -> dict[str, Any]:
    """The record of a preset or weight file ``name`` (loaded as ``model``) used as a
    parent: the hand-set preset is a hand-written root; anything else is weights."""
    from treestrap.evaluation.preset_names import HAND_SET

    weights = stored_weights(model)
    if name == HAND_SET:
        return hand_written_parent(role, name, weights)
    return model_parent(role, name, weights, model.metadata)


def preset_provenance(name: str, model: Any, seed: int = 0, scale: float = 1.0) -> dict[str, Any]:
    """The record of a preset written to a file by ``treestrap weights preset``: random
    weights are a root of their own; any other preset is the parent of its copy."""
    from treestrap.evaluation.preset_names import RANDOM

    weights = stored_weights(model)
    feature_set = getattr(getattr(model, "feature_set", None), "name", None)
    if name == RANDOM:
        parent = random_parent("drawn", seed, scale, weights, feature_set)
    else:
        parent = named_parent("copy of", name, model)
    record = tool_record("treestrap weights preset", 0.0)
    record.update(sha256=weights_sha256(weights), parents=[parent])
    record["self_play_only"] = chain_self_play_only(record["parents"])
    return record
