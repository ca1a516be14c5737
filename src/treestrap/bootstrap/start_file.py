"""A run that starts from an earlier run's best player (``treestrap bootstrap --from``).

A run folder does not outlive its machine, but its best file does: it is shipped as a
preset and carries the run's cost and its provenance chain back to random weights. A
run started from such a file skips round 0: the file, copied into the run as
``start.npz``, is round 0's player, and the run's CPU hours and Elo against round 0
carry on from the figures recorded in it, so the curve and the shipped file still
count from random weights. Only files written by ``treestrap bootstrap`` of the same
game, learned by self-play alone, are taken: anything else would break the chain. Self-play
alone as the chain's games show it, not as a flag says: the file's chain is audited
(:mod:`treestrap.provenance_audit`), and a flag it does not bear out, or a parent's
record of other weights, refuses the file.
"""

from __future__ import annotations

import shutil
from importlib.resources import as_file, files
from pathlib import Path
from typing import Any

#: The start file's copy in the run (round 0's player).
START_FILE = "start.npz"


def resolve_start(text: str, game: str) -> Path:
    """The file ``--from`` names: a path, or a shipped preset of ``game`` (the game's
    facts list them; chess: ``preset_names.BOOTSTRAP_PRESETS``)."""
    from treestrap.games.registry import game_facts

    path = Path(text)
    if path.is_file():
        return path
    presets = game_facts(game).presets
    if text in presets:
        with as_file(files("treestrap.evaluation.data") / presets[text]) as shipped:
            return Path(shipped)
    names = ", ".join(presets) or "none"
    raise ValueError(f"--from {text}: no such file, nor a preset of {game} ({names})")


def start_record(path: Path, game: str) -> dict[str, Any]:
    """The ``bootstrap`` record of a file a run may start from; ValueError saying why
    when it may not (not a bootstrap best file, another game, its chain's audit finds a
    problem, not self-play only)."""
    from treestrap.evaluation.provenance import record_of, weights_sha256
    from treestrap.evaluation.weight_file_format import read_weight_file
    from treestrap.provenance_audit import audit_chain

    meta, weights = read_weight_file(path)
    metadata = meta.get("metadata", {})
    record = metadata.get("bootstrap")
    if not isinstance(record, dict) or "cpu_seconds" not in record:
        raise ValueError(
            f"--from {path}: not a file written by treestrap bootstrap (no run record); "
            "give a run's best.npz or a preset it made"
        )
    if record.get("game") != game:
        raise ValueError(f"--from {path}: a {record.get('game')} file, not {game}")
    audit = audit_chain(record_of(metadata), weights_sha256(weights))
    if audit.problems:
        raise ValueError(f"--from {path}: {audit.problems[0]}")
    if not audit.self_play_only:
        raise ValueError(f"--from {path}: its provenance is not self-play only ({audit.why_not})")
    return dict(record)


def start_settings(path: Path, text: str, game: str) -> dict[str, Any]:
    """What ``bootstrap.json`` keeps of the start: the name given, the file's SHA-256
    and its run record."""
    from treestrap.evaluation.provenance import file_sha256

    return {"from": text, "sha256": file_sha256(path), "bootstrap": start_record(path, game)}


def copy_start(path: Path, run: Path) -> None:
    """Copy the start file into the run (by a temporary name, so a kill leaves either
    no copy or a whole one)."""
    run.mkdir(parents=True, exist_ok=True)
    partial = run / (START_FILE + ".partial")
    shutil.copyfile(path, partial)
    partial.replace(run / START_FILE)


def model_name(path: Path) -> str:
    """The start file's model as the rounds table names models (``perspective:256``)."""
    from treestrap.evaluation.weight_file_format import read_weight_file

    meta, _ = read_weight_file(path)
    width = meta.get("width")
    return f"{meta['model']}:{width}" if width else str(meta["model"])


def start_round(run: Path, start: dict[str, Any]) -> dict[str, Any]:
    """Round 0's record of a run started from a file: no games of its own, the cost and
    the Elo its file recorded."""
    from treestrap.evaluation.provenance import file_sha256

    path = run / START_FILE
    if not path.is_file() or file_sha256(path) != start["sha256"]:
        raise ValueError(
            f"{path} is missing or changed: run the same command with --from {start['from']}"
        )
    record = start["bootstrap"]
    return {
        "round": 0,
        "player_file": START_FILE,
        "accepted": True,
        "games": 0,
        "positions": 0,
        "cpu_seconds": float(record["cpu_seconds"]),
        "round_cpu_seconds": 0.0,
        "elo_vs_round0": float(record.get("elo_vs_round0", 0.0)),
        "elo_margin": float(record.get("elo_margin", 0.0)),
        "model": f"{model_name(path)} (--from {start['from']})",
    }
