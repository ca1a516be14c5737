"""What a bootstrap run spends: its budgets, by name.

A budget fixes every setting of the pipeline: round 0 (TreeStrap self-play from random
linear weights, the ``strong`` training preset without its partner), and for each
later round the self-play games, the network fitted to them and the gate it must pass.
``smoke`` runs end to end in minutes on two cores (the tests use it); ``standard`` is
the run that makes the shipped network, resumed over several sessions.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from treestrap.bootstrap.budget_json import RunBudget
from treestrap.bootstrap.selfplay import SelfPlaySettings
from treestrap.distill.perspective_fit import PerspectiveFitSettings


@dataclass(frozen=True)
class FitPlan(PerspectiveFitSettings):
    """The network each round fits (a fit's settings), and where the fit starts and what
    it reads."""

    #: start from the best network when it has this shape (else a fresh start)
    from_previous: bool = True
    #: rounds of data a fit reads: this round's and the rounds before it
    data_rounds: int = 3

    def settings(self) -> PerspectiveFitSettings:
        """The fit's own settings."""
        return PerspectiveFitSettings(
            **{f.name: getattr(self, f.name) for f in fields(PerspectiveFitSettings)}
        )


@dataclass(frozen=True)
class GatePlan:
    """The match a candidate must win: a pentanomial SPRT against the best so far."""

    tc: str = "5+0.05"
    sprt: str = "elo0=0,elo1=10"
    max_games: int = 600
    workers: int = 2


@dataclass(frozen=True)
class Budget(RunBudget):
    """Every setting of a chess bootstrap run."""

    selfplay: SelfPlaySettings = field(default_factory=SelfPlaySettings)
    fit: FitPlan = field(default_factory=FitPlan)
    gate: GatePlan = field(default_factory=GatePlan)


BUDGETS = {
    "smoke": Budget(
        name="smoke",
        round0_games=10,
        round0_depth=2,
        rounds=2,
        selfplay=SelfPlaySettings(nodes=800, games=16, chunk=8, max_plies=160),
        fit=FitPlan(width=32, epochs=2, batch=512, lr=3e-3),
        gate=GatePlan(tc="nodes=1500", sprt="elo0=0,elo1=200", max_games=8),
    ),
    "standard": Budget(
        name="standard",
        round0_games=6000,
        round0_depth=3,
        rounds=12,
        selfplay=SelfPlaySettings(nodes=5000, games=3000, chunk=50),
        # 16 epochs in batches of 1024: on round 1's 213,783 positions the held-out loss
        # was 0.444 after 6 epochs of 4096, 0.407 after 30 of 4096, 0.403 after these
        fit=FitPlan(width=256, epochs=16, batch=1024, data_rounds=5),
        gate=GatePlan(tc="2+0.02", sprt="elo0=0,elo1=15", max_games=300),
    ),
}
