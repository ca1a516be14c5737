"""Stages 4 and 5 of a Serban (2014) reproduction: the gauntlets of Figures 7.1 (the
SL LogReg against every RL LogReg checkpoint) and 7.2 (the best RL LogReg against every
MLP checkpoint), and how their games ended."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from treestrap.play.forfeits import format_forfeits
from treestrap.play.game import MAX_LENGTH
from treestrap.play.results_db import ResultsDB
from treestrap.play.schedule import GAUNTLET
from treestrap.play.tournament import TournamentConfig, plan_tournament, run_tournament
from treestrap.rating.ratings import RatingOptions, fit_ratings_settled
from treestrap.rating.results import GameResult, load_results
from treestrap.reproduce.serban2014.budgets import RL_LOGREG, SL_LOGREG, Budget
from treestrap.reproduce.serban2014.selfplay import run_dir, selfplay_runs

#: Each figure's gauntlet, by its folder under ``tournament/``.
FOLDERS = {"7.1": "logreg", "7.2": "mlp"}


def tournament_dir(out: Path, figure: str) -> Path:
    return out / "tournament" / FOLDERS[figure]


def checkpoints(out: Path, label: str, budget: Budget, start: bool) -> list[tuple[int, Path]]:
    """(games, file) of a run's checkpoints every ``checkpoint_every`` games and its
    last, with the start (game 0) if ``start``."""
    folder = run_dir(out, label) / "checkpoints"
    wanted = list(range(budget.checkpoint_every, budget.games + 1, budget.checkpoint_every))
    if not wanted or wanted[-1] != budget.games:
        wanted.append(budget.games)
    if start:
        wanted.insert(0, 0)
    found = []
    for games in wanted:
        path = folder / f"game-{games:06d}.npz"
        if not path.exists():
            raise ValueError(f"{path} is missing: {run_dir(out, label)} is not a finished run")
        found.append((games, path))
    return found


def player_name(label: str, games: int) -> str:
    return f"{label}@{games}"


def tournament_config(
    players: list[str],
    budget: Budget,
    seed: int,
    openings: str | None,
    finisher: str | None,
    workers: int,
    figure: str,
) -> TournamentConfig:
    """A gauntlet of ``players[0]`` against the others under the budget's limits."""
    return TournamentConfig(
        players=players,
        format=GAUNTLET,
        games_per_pair=budget.games_per_pair,
        openings=openings,
        seed=seed,
        tc=budget.tc,
        max_plies=budget.max_plies,
        finish_with=finisher,
        finish_tc=budget.finish_tc,
        finish_plies=budget.finish_plies,
        workers=workers,
        event=f"treestrap reproduce serban2014 (Figure {figure})",
    )


def play_gauntlet(config: TournamentConfig, folder: Path, progress: bool) -> bool:
    """Play (or finish) a gauntlet; False if every scheduled game was already stored.
    ``IncompleteTournament`` if games were given up: no figure rests on fewer games
    than scheduled (running the same command again replays them)."""
    scheduled = len(plan_tournament(config).games)
    stored = folder / "results.sqlite"
    if stored.exists() and len(load_results(folder)) >= scheduled:
        return False
    result = run_tournament(config, folder, resume=stored.exists(), progress=progress)
    result.require_complete(
        f"run the same command again (or treestrap tournament --resume {folder}) to replay them"
    )
    return True


def logreg_players(out: Path, budget: Budget) -> list[str]:
    """Figure 7.1's gauntlet: the SL LogReg, then every RL LogReg checkpoint."""
    specs = [f"{SL_LOGREG}={out / 'starts' / 'sl-logreg.npz'}"]
    specs += [
        f"{player_name(RL_LOGREG, g)}={path}"
        for g, path in checkpoints(out, RL_LOGREG, budget, start=False)
    ]
    return specs


def best_rl_logreg(games: list[GameResult]) -> str:
    """The RL LogReg checkpoint rated highest by Figure 7.1's games (on a tie, the one
    trained longer)."""
    table, _ = fit_ratings_settled(games, RatingOptions(anchor=(SL_LOGREG, 0.0)))
    names = [n for n in table.names if n.startswith(f"{RL_LOGREG}@")]
    return max(names, key=lambda n: (round(table.rating(n).elo, 6), int(n.split("@")[1])))


def mlp_players(out: Path, budget: Budget, reference: str) -> list[str]:
    """Figure 7.2's gauntlet: the best RL LogReg, then every MLP checkpoint from its
    supervised start on."""
    games = int(reference.split("@")[1])
    specs = [f"{reference}={run_dir(out, RL_LOGREG) / 'checkpoints' / f'game-{games:06d}.npz'}"]
    for label in selfplay_runs(out):
        if label == RL_LOGREG:
            continue
        specs += [
            f"{player_name(label, g)}={path}"
            for g, path in checkpoints(out, label, budget, start=True)
        ]
    return specs


@dataclass(frozen=True)
class Finishes:
    """How a tournament's games ended: all, handed to the finisher at the ply limit,
    and of those the ones it played to a natural end (mate, stalemate, draw rules)."""

    games: int
    handed_over: int
    ended: int
    forfeits: str = "forfeits: 0"  # by reason (treestrap.play.forfeits)

    def describe(self, max_plies: int, finisher: bool) -> str:
        if not finisher:
            return (
                f"{self.games} games, {self.handed_over} drawn at {max_plies} plies; "
                f"{self.forfeits}"
            )
        return (
            f"{self.games} games, {self.handed_over} reached {max_plies} plies and went to "
            f"Stockfish, {self.ended} of those played to an end; {self.forfeits}"
        )


def finishes(folder: Path) -> Finishes:
    """The :class:`Finishes` of the tournament in ``folder`` (from its terminations)."""
    with ResultsDB.open(folder) as db:
        terminations = [g.termination or "" for g in db.games()]
    return Finishes(
        len(terminations),
        sum(1 for t in terminations if t.startswith((MAX_LENGTH, "finished by"))),
        sum(1 for t in terminations if t.startswith("finished by")),
        format_forfeits(terminations),
    )


def gauntlet_players(out: Path, budget: Budget, figure: str) -> list[str]:
    """Figure ``figure``'s players, the fixed one first; 7.2's needs 7.1's games."""
    if figure == "7.1":
        return logreg_players(out, budget)
    reference = best_rl_logreg(load_results(tournament_dir(out, "7.1")))
    return mlp_players(out, budget, reference)


def gauntlet_stage(
    out: Path,
    figure: str,
    budget: Budget,
    seed: int,
    openings: str | None,
    finisher: str | None,
    workers: int,
    progress: bool,
) -> str | None:
    """Stage 4 or 5: play (or finish) Figure ``figure``'s gauntlet. Returns the stage's
    summary line, or None when every game was played before."""
    players = gauntlet_players(out, budget, figure)
    config = tournament_config(players, budget, seed, openings, finisher, workers, figure)
    folder = tournament_dir(out, figure)
    if not play_gauntlet(config, folder, progress):
        return None
    ends = finishes(folder)
    return f"tournament {figure}: " + ends.describe(budget.max_plies, finisher is not None)
