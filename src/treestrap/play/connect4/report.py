"""The measurement against perfect play as a table, JSON and CSV (what docs cite)."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from treestrap.play.connect4.measure import PlayerMeasure

JSON_NAME, CSV_NAME = "measure.json", "measure.csv"


def format_table(measures: Sequence[PlayerMeasure]) -> str:
    """One line per player: both shares, then W/D/L, score and the share of games that
    held a won or drawn opening's result, against each opponent."""
    if not measures:
        return "(nothing measured)"
    opponents = [g.opponent for g in measures[0].games]
    signs = any(m.static_sign is not None for m in measures)
    width = max(len("player"), *(len(m.name) for m in measures))
    head = f"{'player':<{width}}  {'depth':>5}  {'best move':>19}  {'keeps result':>19}"
    head += f"  {'static sign':>19}" if signs else ""
    head += "".join(f"  {name:>27}" for name in opponents)
    lines = [head]
    for m in measures:
        line = f"{m.name:<{width}}  {_depth_cell(m):>5}  {m.best.describe():>19}"
        line += f"  {m.kept.describe():>19}"
        if signs:
            line += f"  {m.static_sign.describe() if m.static_sign else '-':>19}"
        for g in m.games:
            cell = f"{g.wdl()} {100 * g.score:.0f}% h{100 * g.held_share:.0f}%"
            line += f"  {cell:>27}"
        lines.append(line)
    if any(m.mean_depth is not None for m in measures):
        lines.append("depth: a timed player's mean depth over the positions")
    for m in measures:
        if m.proven is not None:
            lines.append(
                f"{m.name}: a proof settled the move of {100 * m.proven:.1f}% of the positions"
            )
    if signs:
        lines.append(
            "static sign: of the won and lost positions, the share whose evaluation for the "
            "side to move (no search) has the result's sign"
        )
    if opponents:
        lines.append(
            "+W =D -L, score; h: of the games perfect play wins or draws for the "
            "player's colour from its opening, the share it won or drew as perfect play would"
        )
    return "\n".join(lines)


def _depth_cell(m: PlayerMeasure) -> str:
    if m.mean_depth is not None:
        return f"{m.mean_depth:.1f}"
    return "-" if m.depth is None else str(m.depth)


def measure_document(measures: Sequence[PlayerMeasure], setup: dict[str, Any]) -> dict[str, Any]:
    return {**setup, "players": [m.to_dict() for m in measures]}


def write_reports(
    out_dir: str | Path, measures: Sequence[PlayerMeasure], setup: dict[str, Any]
) -> list[Path]:
    """``measure.json`` (everything) and ``measure.csv`` (a row per player)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    json_path, csv_path = out / JSON_NAME, out / CSV_NAME
    json_path.write_text(
        json.dumps(measure_document(measures, setup), indent=2) + "\n", encoding="utf-8"
    )
    opponents = [g.opponent for g in measures[0].games] if measures else []
    fields = ["player", "spec", "depth", "seconds", "mean_depth"]
    for share in ("best_move", "keeps_result", "static_sign"):
        fields += [share, f"{share}_low", f"{share}_high"]
    for name in opponents:
        keys = ("wins", "draws", "losses", "score", "held", "turned")
        fields += [f"{name}_{k}" for k in keys]
    fields += ["proven"]
    with open(csv_path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(fields)
        for m in measures:
            row: list[object] = [m.name, m.spec, "" if m.depth is None else m.depth]
            row += ["" if m.seconds is None else m.seconds]
            row += ["" if m.mean_depth is None else f"{m.mean_depth:.2f}"]
            for share in (m.best, m.kept, m.static_sign):
                if share is None:
                    row += ["", "", ""]
                    continue
                lo, hi = share.interval()
                row += [f"{share.value:.4f}", f"{lo:.4f}", f"{hi:.4f}"]
            for g in m.games:
                row += [g.wins, g.draws, g.losses, f"{g.score:.4f}"]
                row += [f"{g.held_share:.4f}", f"{g.turned_share:.4f}"]
            row += ["" if m.proven is None else f"{m.proven:.4f}"]
            writer.writerow(row)
    return [json_path, csv_path]
