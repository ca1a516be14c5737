"""The text a person reads about a dataset: after a build, and from ``dataset show``."""

from __future__ import annotations

from typing import Any

from treestrap.supervised.dataset.labels import CLASS_NAMES
from treestrap.supervised.dataset.split import SPLIT_NAMES


def format_manifest(manifest: dict[str, Any]) -> str:
    """Games read, kept and skipped by reason; positions per split and class."""
    games = manifest["games"]
    skipped = games["skipped"]
    n_skipped = sum(skipped.values())
    reasons = ", ".join(f"{reason} {n:,}" for reason, n in skipped.items())
    lines = [
        f"games: {games['read']:,} read, {games['kept']:,} kept, {n_skipped:,} skipped"
        + (f" ({reasons})" if reasons else ""),
    ]
    opts = manifest["options"]
    if opts.get("rollout_depth") is not None:
        lines.append(
            f"rollouts (Stockfish depth {opts['rollout_depth']}): {games['rolled_out']:,} "
            f"games played to the end, {games['rollout_aborted']:,} abandoned after "
            f"{opts['rollout_max_plies']} plies, {manifest['positions']['rollout']:,} "
            "positions appended"
        )
    if opts.get("score_depth") is not None:
        lines.append(f"Stockfish score at depth {opts['score_depth']} stored for every position")
    lines.append(f"positions: {manifest['positions']['total']:,}")
    header = f"  {'split':<11}{'games':>8}{'positions':>11}" + "".join(
        f"{name:>18}" for name in CLASS_NAMES
    )
    lines.append(header)
    for name in SPLIT_NAMES:
        lines.append(_split_line(name, manifest["splits"][name], "classes", "positions"))
    if opts.get("rollout_depth") is not None:
        lines.append("  without rollout positions, labelled with the PGN result:")
        for name in SPLIT_NAMES:
            split = manifest["splits"][name]
            lines.append(
                _split_line(name, split, "classes_without_rollout", "positions_without_rollout")
            )
    return "\n".join(lines)


def _split_line(name: str, split: dict[str, Any], classes_key: str, positions_key: str) -> str:
    total = split[positions_key]
    cells = "".join(
        f"{n:>10,} {100 * n / total if total else 0:5.1f}%"
        for n in (split[classes_key][c] for c in CLASS_NAMES)
    )
    return f"  {name:<11}{split['games']:>8,}{total:>11,}{cells}"


def format_options(manifest: dict[str, Any]) -> str:
    """The build options and inputs, one line each."""
    opts = manifest["options"]
    split = ":".join(str(v) for v in opts["split"])
    lines = [
        f"options: min-elo {opts['min_elo']}, event {opts['event']!r}, time-control "
        f"{opts['time_control']!r}, min-plies {opts['min_plies']}, undecided "
        f"{opts['undecided']}, seed {opts['seed']}, split {split}, rollout depth "
        f"{opts['rollout_depth']}, stockfish-score depth {opts['score_depth']}",
    ]
    if manifest.get("stockfish"):
        lines.append(f"engine: {manifest['stockfish']}")
    for source in manifest["sources"]:
        lines.append(
            f"source ({source['role']}): {source['path']} ({source['games']:,} games, "
            f"sha256 {source['sha256'][:16]})"
        )
    layouts = ", ".join(f"{k} {v}" for k, v in manifest["feature_layouts"].items())
    lines.append(f"format {manifest['format_version']}, feature layouts: {layouts}")
    return "\n".join(lines)
