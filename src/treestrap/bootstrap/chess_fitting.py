"""Chess's round candidate: a perspective network fitted to the run's self-play data, saved
with the provenance that ties it to the player whose games it learned from.

The fit checkpoints every epoch into the round's ``fit`` folder and resumes from there;
the candidate's file is written last, with ``fit/summary.json`` before it, so a round
that finds both has its candidate.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from treestrap.bootstrap.budgets import Budget
from treestrap.bootstrap.candidate_record import FitOutcome, fit_round_candidate
from treestrap.distill.position_file import record_count


def _start(best: Any, budget: Budget) -> Any:
    """The best network to start from, when it has the planned shape (else None)."""
    from treestrap.evaluation.perspective_weights import PerspectiveModel

    plan = budget.fit
    if not plan.from_previous or not isinstance(best, PerspectiveModel):
        return None
    shape = (best.width, best.activation, best.buckets)
    return best if shape == (plan.width, plan.activation, plan.buckets) else None


def fit_candidate(
    candidate: Path,
    train_files: list[Path],
    held_out: list[Path],
    budget: Budget,
    best_path: Path,
    games: int,
    state_dir: Path,
    progress: bool = True,
) -> dict[str, Any]:
    """Fit (or finish fitting, or read back) the round's candidate; what the round's
    record keeps of the fit."""
    from treestrap.evaluation.weight_files import load_weights

    best = load_weights(best_path)

    def fit() -> FitOutcome:
        from treestrap.distill.perspective_fit import fit_perspective, held_out_errors
        from treestrap.evaluation.perspective_weights import PerspectiveModel

        settings = budget.fit.settings()
        start = _start(best, budget)
        model, reports = fit_perspective(
            train_files, held_out, settings, start=start, state_dir=state_dir, progress=progress
        )
        last = reports[-1]
        figures = {
            "held_out_loss": round(last.held_out_loss, 5),
            "held_out_cp": round(last.held_out_cp, 1),
        }
        if isinstance(best, PerspectiveModel):
            # The best network on the same held-out games: the measure a run can compare
            # from round to round (each round holds out games of its own).
            best_loss, best_cp = held_out_errors(best, held_out, settings)
            figures.update(
                best_held_out_loss=round(best_loss, 5), best_held_out_cp=round(best_cp, 1)
            )
        return FitOutcome(
            model=model,
            positions=sum(record_count(f) for f in train_files),
            fit={
                "settings": asdict(settings),
                "held_out_loss": last.held_out_loss,
                "held_out_cp": last.held_out_cp,
            },
            figures=figures,
            epochs=[vars(r) for r in reports],
            start=start,
        )

    return fit_round_candidate(candidate, state_dir, best_path, best, games, budget.name, fit)
