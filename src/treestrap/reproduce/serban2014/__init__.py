"""One command for Serban (2014), chapter 7: networks on the bitboard inputs learn by
self-play with Algorithm 7 from supervised starting points, and a tournament rates them.

The stages, each resumable (run the same command again after an interruption; a
finished stage is never redone, an unfinished one goes on where it stopped)::

    dataset/              the game collection as labelled positions (supervised.dataset)
    supervised/NAME/      the supervised starting points (supervised.train): the SL
                          logistic regression and three MLP(20) candidates trained on
                          all, a quarter and a twentieth of the training games
    starts/               their network weight files (supervised.convert) and
                          starts.json: the MLPs named A, B, C by falling test accuracy
                          (Serban: A high, B medium, C low accuracy)
    selfplay/RUN/         Algorithm 7 self-play runs (training.run) from each start:
                          rl-logreg, mlp-a, mlp-b, mlp-c; checkpoints every 10 games
    tournament/logreg/    Figure 7.1: the SL LogReg against every RL LogReg checkpoint
    tournament/mlp/       Figure 7.2: the best RL LogReg against every MLP checkpoint
    ratings.*, curve.csv  one BayesElo-model fit of both tournaments, the best RL
                          LogReg fixed at 250 Elo (Serban's anchor)
    fig7_1.png fig7_2.png Elo against training games, 95% intervals
    table.txt             ratings, the starting points' accuracies and Serban's findings
                          (MLPs above LogReg, RL LogReg above SL LogReg) with LOS
    settings.json         what the directory was started with; timings.json: the
                          seconds each stage took

Both tournaments are gauntlets, as Serban's were, and games still going after 200 plies
are played out by Stockfish (his protocol; ``finish=False`` scores them as draws). The
best RL LogReg is the checkpoint rated highest by the first tournament; the MLPs meet
it in the second, and the anchor puts it at 250.

The modules, one concept each: ``budgets`` (what a run spends), ``settings`` (what a
directory was started with), ``starts`` (dataset and supervised starts), ``selfplay``,
``gauntlets``, ``ratings``, ``figures``, ``report`` and ``pipeline`` (the stages in
order); the stage runner and the directory's JSON files are ``reproduce.stages``.
"""

from __future__ import annotations

from treestrap.reproduce.serban2014.budgets import (
    ANCHOR_ELO,
    BUDGETS,
    HIDDEN,
    LETTERS,
    LOGREG_MOMENTUM,
    LOGREG_STEP,
    MLP_MOMENTUM,
    MLP_STEP,
    RL_LOGREG,
    SERBAN_RL_OVER_SL,
    SETTLED,
    SL_LOGREG,
    Budget,
)
from treestrap.reproduce.serban2014.figures import plot_figure, plot_figures
from treestrap.reproduce.serban2014.gauntlets import (
    FOLDERS,
    Finishes,
    best_rl_logreg,
    checkpoints,
    finishes,
    gauntlet_players,
    gauntlet_stage,
    logreg_players,
    mlp_players,
    play_gauntlet,
    player_name,
    tournament_config,
    tournament_dir,
)
from treestrap.reproduce.serban2014.pipeline import reproduce
from treestrap.reproduce.serban2014.ratings import SerbanResult, rate
from treestrap.reproduce.serban2014.report import findings, format_table, write_curve, write_report
from treestrap.reproduce.serban2014.selfplay import (
    games_trained,
    run_dir,
    selfplay_config,
    selfplay_runs,
    train_selfplay,
)
from treestrap.reproduce.serban2014.settings import check_finisher, check_settings
from treestrap.reproduce.serban2014.starts import (
    Start,
    build_data,
    starts_of,
    supervised_config,
    train_starts,
)

__all__ = [
    "ANCHOR_ELO",
    "BUDGETS",
    "FOLDERS",
    "HIDDEN",
    "LETTERS",
    "LOGREG_MOMENTUM",
    "LOGREG_STEP",
    "MLP_MOMENTUM",
    "MLP_STEP",
    "RL_LOGREG",
    "SERBAN_RL_OVER_SL",
    "SETTLED",
    "SL_LOGREG",
    "Budget",
    "Finishes",
    "SerbanResult",
    "Start",
    "best_rl_logreg",
    "build_data",
    "check_finisher",
    "check_settings",
    "checkpoints",
    "findings",
    "finishes",
    "format_table",
    "games_trained",
    "gauntlet_players",
    "gauntlet_stage",
    "logreg_players",
    "mlp_players",
    "play_gauntlet",
    "player_name",
    "plot_figure",
    "plot_figures",
    "rate",
    "reproduce",
    "run_dir",
    "selfplay_config",
    "selfplay_runs",
    "starts_of",
    "supervised_config",
    "tournament_config",
    "tournament_dir",
    "train_selfplay",
    "train_starts",
    "write_curve",
    "write_report",
]
