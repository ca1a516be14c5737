"""The gate: a candidate becomes the best only by winning a match against it.

The match is a tournament of two in-process players from the built-in book with both
colours, under a pentanomial SPRT (:mod:`treestrap.play.sprt_match`): H1 accepts the
candidate; H0, or the game limit reached undecided, keeps the best. The tournament
stores every game as it ends, so a killed gate resumes where it stopped.
"""

from __future__ import annotations

import json
import resource
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from treestrap.play.sprt_match import SprtWatch

if TYPE_CHECKING:  # chess's budgets; a game's gate reads only the result's types here
    from treestrap.bootstrap.budgets import GatePlan

CANDIDATE = "candidate"
BEST = "best"
RESULT_FILE = "gate.json"


@dataclass
class GateResult:
    """The match's decision and the candidate's score against the best."""

    accepted: bool
    decision: str  # "H1", "H0" or "continue" (undecided at the limit)
    games: int
    wins: int
    draws: int
    losses: int
    elo: float
    lower: float
    upper: float
    llr: float
    summary: str
    #: CPU time of the match's games (this process and its workers; for games a stopped
    #: gate left, their thinking time: :func:`stored_games_cpu_seconds`)
    cpu_seconds: float = 0.0

    def line(self) -> str:
        verdict = "accepted" if self.accepted else "rejected"
        return (
            f"gate: {verdict} ({self.decision}), {self.games} games +{self.wins} ={self.draws} "
            f"-{self.losses}, Elo {self.elo:+.0f} [{self.lower:+.0f}, {self.upper:+.0f}]"
        )


def _cpu_seconds() -> float:
    """CPU time of this process and of its finished child processes."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def stored_games_cpu_seconds(out_dir: Path) -> float:
    """The CPU time of the games a stopped gate left in ``out_dir``, which the process
    that goes on never measures: their engines' thinking time as the runner noted it.
    In a gate game one engine thinks at a time, on one core, so this is its CPU time:
    within 2% of the measured time of gates played whole (docs/bootstrap.md)."""
    from treestrap.play.game import thinking_seconds
    from treestrap.play.results_db import ResultsDB

    with ResultsDB.open(out_dir) as db:
        return sum(thinking_seconds(game.pgn) for game in db.games())


def decide(
    played: list[tuple[str, str, str]], watch: SprtWatch, cpu_seconds: float = 0.0
) -> GateResult:
    """The gate's result from the match's games (white, black, result) and the SPRT
    that watched them: accepted only when the test accepted H1."""
    from treestrap.rating.standings import head_to_head

    score = next(s for a, b, s in head_to_head([CANDIDATE, BEST], played) if a == CANDIDATE)
    lower, upper = score.elo_interval()
    decision = watch.result.decision
    return GateResult(
        accepted=decision == "H1",
        decision=decision,
        games=score.games,
        wins=score.wins,
        draws=score.draws,
        losses=score.losses,
        elo=round(score.elo, 1),
        lower=round(lower, 1),
        upper=round(upper, 1),
        llr=round(watch.result.llr, 3),
        summary=watch.summary(),
        cpu_seconds=round(cpu_seconds, 1),
    )


def read_gate(out_dir: Path) -> GateResult | None:
    """A finished gate's result, or None."""
    path = out_dir / RESULT_FILE
    return GateResult(**json.loads(path.read_text())) if path.exists() else None


def run_gate(
    candidate: Path, best: Path, out_dir: Path, plan: GatePlan, progress: bool = True
) -> GateResult:
    """Play (or finish, or read back) the gate of ``candidate`` against ``best``."""
    from treestrap.play.tournament import TournamentConfig, run_tournament
    from treestrap.rating.results import DB_NAME

    done = read_gate(out_dir)
    if done is not None:
        return done
    config = TournamentConfig(
        players=[f"{CANDIDATE}={candidate}", f"{BEST}={best}"],
        games_per_pair=plan.max_games,
        tc=plan.tc,
        workers=plan.workers,
        sprt=plan.sprt,
        event="treestrap bootstrap gate",
    )
    resume = (out_dir / DB_NAME).exists()
    earlier = stored_games_cpu_seconds(out_dir) if resume else 0.0
    cpu = _cpu_seconds()
    result = run_tournament(config, out_dir, resume=resume, progress=progress)
    result = result.require_complete("run the same treestrap bootstrap command again")
    assert result.sprt is not None
    played = [(g.white, g.black, g.result) for g in result.games]
    gate = decide(played, result.sprt, cpu_seconds=earlier + _cpu_seconds() - cpu)
    (out_dir / RESULT_FILE).write_text(json.dumps(asdict(gate), indent=1) + "\n")
    return gate
