"""Held-out losses of a chess bootstrap run's networks that compare from round to round.

    python benchmarks/bootstrap_held_out.py runs/zero-fast

Each round holds out its own last chunk of games, so the losses its report lists are
measured on different positions. Here every round's candidate and the best network it
faced are measured on that round's held-out chunk (their difference: what the round's
fit gained on games it did not learn from), under the fit settings of the round's own
budget (result weight, score clip), beside the floor: the mean entropy of those
held-out targets, the least loss any network could reach on them. Then every best
network of the run is measured on the last round's held-out chunk (one common set: the
run's progress as a loss). Rounds whose best player is a linear weight file have no
network loss to show.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from treestrap.bootstrap.budget_changes import round_budget
from treestrap.bootstrap.budgets import Budget
from treestrap.bootstrap.pipeline import (
    SETTINGS_FILE,
    finished_rounds,
    round_data_files,
    round_dir,
)
from treestrap.distill.perspective_fit import PerspectiveFitSettings, held_out_errors, targets
from treestrap.distill.position_file import iter_batches
from treestrap.evaluation.perspective_weights import PerspectiveModel
from treestrap.evaluation.weight_files import load_weights


def network(path: Path) -> PerspectiveModel | None:
    model = load_weights(path)
    return model if isinstance(model, PerspectiveModel) else None


def loss(model: PerspectiveModel | None, files: list[Path], fit: PerspectiveFitSettings) -> str:
    return "-" if model is None else f"{held_out_errors(model, files, fit)[0]:.4f}"


def target_entropy(files: list[Path], fit: PerspectiveFitSettings) -> float:
    """The mean entropy of the fit's targets on ``files``: the least cross-entropy a
    network could reach there."""
    total, count = 0.0, 0
    for records in iter_batches(files, 65536):
        y = np.clip(targets(records, fit), 1e-12, 1.0 - 1e-12)
        total += float(-(y * np.log(y) + (1.0 - y) * np.log1p(-y)).sum())
        count += len(records)
    return total / count


def round_rows(run: Path, budget: Budget) -> list[str]:
    """One row a round: its candidate and its best network on its held-out chunk."""
    rows, best = [], None
    for record in finished_rounds(run):
        player = run / record["player_file"]
        if record["round"] > 0:
            # the budget the round began with (every finished round has its own file)
            own = round_budget(round_dir(run, record["round"]), budget.to_json(), Budget.from_json)
            fit = own.fit.settings()
            _, held_out = round_data_files(run, record["round"], own)
            candidate = network(player)
            assert candidate is not None, f"{player}: not a perspective network"
            ours = held_out_errors(candidate, held_out, fit)[0]
            theirs = None if best is None else held_out_errors(best, held_out, fit)[0]
            gain = "-" if theirs is None else f"{theirs - ours:+.4f}"
            theirs_text = "-" if theirs is None else f"{theirs:.4f}"
            accepted = "yes" if record["accepted"] else "no"
            floor = target_entropy(held_out, fit)
            rows.append(
                f"| {record['round']} | {ours:.4f} | {theirs_text} | {gain} | {floor:.4f} "
                f"| {accepted} |"
            )
        if record["accepted"]:
            best = network(player)
    return rows


def common_rows(run: Path, budget: Budget, records: list[dict[str, Any]]) -> list[str]:
    """Every accepted network of the run on the last round's held-out chunk."""
    _, held_out = round_data_files(run, records[-1]["round"], budget)
    fit = budget.fit.settings()
    rows = []
    for record in records:
        if record["accepted"]:
            model = network(run / record["player_file"])
            rows.append(f"| {record['round']} | {loss(model, held_out, fit)} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run", type=Path, help="a chess bootstrap run folder")
    args = parser.parse_args()
    settings = json.loads((args.run / SETTINGS_FILE).read_text())
    if settings.get("game", "chess") != "chess":
        parser.error("only a chess run's networks have held-out losses to compare")
    budget = Budget.from_json(settings["budget"])
    records = finished_rounds(args.run)
    if len(records) < 2:
        parser.error(f"{args.run}: no network round has finished")
    print("| round | candidate | best before it | gain | floor | accepted |")
    print("|---|---|---|---|---|---|")
    print("\n".join(round_rows(args.run, budget)))
    print(f"\nEvery accepted network on round {records[-1]['round']}'s held-out chunk:\n")
    print("| accepted in round | held-out loss |")
    print("|---|---|")
    print("\n".join(common_rows(args.run, budget, records)))


if __name__ == "__main__":
    main()
