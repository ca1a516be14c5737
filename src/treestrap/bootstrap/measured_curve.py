"""The measured curve of a bootstrap chain (``treestrap curve --bootstrap RUN`` or
``--presets NAMES``): round 0 and every accepted round's player in one round robin,
rated with the first at 0 and plotted against the chain's CPU hours beside the sum of
its gate estimates, which the run's own report shows (:mod:`treestrap.bootstrap.report`:
each gate is an SPRT stopped at H1, which overstates the gain).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from treestrap.bootstrap.report import GATE_SUM_BIAS

#: The chain's players meet at a node budget a move, so the games are cheap and repeat
#: on any machine: the standard budget's self-play limit, about 1.5 CPU seconds a game
#: of the shipped networks.
MEASURED_TC = "nodes=5000"
MEASURED_EVENT = "treestrap curve (bootstrap chain)"
#: The folder of the measured curve's tournament under its ``--out``.
TOURNAMENT_DIR = "tournament"


@dataclass(frozen=True)
class ChainPlayer:
    """A player of the measured curve: an accepted round's weights or a shipped preset,
    with the chain's figures at it."""

    name: str
    spec: str  # the tournament's player: a weight file's path, or a preset's name
    cpu_seconds: float  # the chain's CPU seconds from random weights up to it
    gate_sum: float  # its sum of gate estimates against the chain's round 0
    gate_margin: float  # that sum's 95% margin


@dataclass
class ChainPoint:
    """A player's measured rating (the first player anchored at 0) beside its sum of
    gate estimates counted from the same anchor."""

    name: str
    cpu_seconds: float
    elo: float
    lower: float
    upper: float
    games: int  # the tournament games its rating rests on
    gate_sum: float
    gate_margin: float


@dataclass
class ChainStep:
    """Two players next to each other on the chain, head to head (logistic Elo of the
    later one), beside what the gates between them added up to."""

    earlier: str
    later: str
    score: Any  # treestrap.rating.elo.MatchScore of ``later`` against ``earlier``
    gate_sum: float


@dataclass
class ChainCurve:
    """The measured curve: the ratings of the whole pool, each player's point and the
    chain's steps."""

    table: Any  # treestrap.rating.table.RatingTable
    points: list[ChainPoint]
    steps: list[ChainStep]
    notes: list[str] = field(default_factory=list)

    def format_table(self) -> str:
        """Each player: CPU hours, measured Elo with its 95% interval, the games it
        rests on, and the sum of gate estimates from the same anchor."""
        lines = [
            f"{'player':<12}{'CPU hours':>10}{'Elo':>7}  {'95% interval':<14}{'games':>6}"
            f"  sum of gate estimates ({GATE_SUM_BIAS})"
        ]
        for p in self.points:
            interval = "(anchor)" if p is self.points[0] else f"[{p.lower:+.0f}, {p.upper:+.0f}]"
            gates = f"{p.gate_sum:+.0f}" + (f" +-{p.gate_margin:.0f}" if p.gate_margin else "")
            lines.append(
                f"{p.name:<12}{p.cpu_seconds / 3600:>10.2f}{p.elo:>+7.0f}  {interval:<14}"
                f"{p.games:>6}  {gates}"
            )
        lines.append("")
        lines.append("steps, head to head (logistic Elo of the later player, 95% interval):")
        for s in self.steps:
            lines.append(
                f"{s.earlier} -> {s.later}: {s.score.describe()}; gates summed {s.gate_sum:+.0f}"
            )
        return "\n".join(lines)

    def to_csv(self, path: Path) -> None:
        rows = ["player,cpu_seconds,cpu_hours,elo,lower95,upper95,games,gate_sum,gate_margin"]
        rows += [
            f"{p.name},{p.cpu_seconds:.1f},{p.cpu_seconds / 3600:.3f},{p.elo:.1f},"
            f"{p.lower:.1f},{p.upper:.1f},{p.games},{p.gate_sum:.1f},{p.gate_margin:.1f}"
            for p in self.points
        ]
        path.write_text("\n".join(rows) + "\n", encoding="utf-8")


@dataclass
class ChainSettings:
    """How the chain's players meet."""

    tc: str = MEASURED_TC
    games_per_pair: int = 2
    workers: int = 2
    seed: int = 1
    openings: str | None = None  # None: the built-in book
    max_plies: int = 400


def run_players(run: Path) -> list[ChainPlayer]:
    """Round 0 (or the file a ``--from`` run started from) and every accepted round of
    the bootstrap run ``run``; ``ValueError`` for anything else or fewer than two."""
    from treestrap.bootstrap.pipeline import SETTINGS_FILE, finished_rounds
    from treestrap.games.registry import DEFAULT_GAME, game_facts

    try:
        settings = json.loads((run / SETTINGS_FILE).read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{run} is not a bootstrap run ({exc})") from exc
    game = settings.get("game", DEFAULT_GAME)
    if not game_facts(game).engine_tournament:
        raise ValueError(f"{run} is a run of --game {game}: the measured curve plays chess")
    players = [
        ChainPlayer(
            "start" if r["round"] == 0 and "start" in settings else f"round-{r['round']:02d}",
            str((run / r["player_file"]).resolve()),
            float(r["cpu_seconds"]),
            float(r["elo_vs_round0"]),
            float(r.get("elo_margin", 0.0)),
        )
        for r in finished_rounds(run)
        if r["accepted"]
    ]
    if len(players) < 2:
        raise ValueError(
            f"{run} has {len(players)} accepted round(s): a curve needs round 0 and an "
            "accepted round after it"
        )
    return players


def preset_players(names: list[str]) -> list[ChainPlayer]:
    """Shipped presets made by ``treestrap bootstrap`` as players, each at the CPU hours
    and the sum of gate estimates its file's ``bootstrap`` record holds."""
    from treestrap.bootstrap.start_file import resolve_start
    from treestrap.evaluation.preset_names import BOOTSTRAP_PRESETS
    from treestrap.evaluation.weight_file_format import read_weight_file

    if len(names) < 2 or len(set(names)) != len(names):
        raise ValueError(f"--presets needs two or more different presets, got {names}")
    players = []
    for name in names:
        if name not in BOOTSTRAP_PRESETS:
            raise ValueError(
                f"--presets {name}: not a preset made by treestrap bootstrap "
                f"({', '.join(BOOTSTRAP_PRESETS)})"
            )
        record = read_weight_file(resolve_start(name, "chess"))[0]["metadata"]["bootstrap"]
        players.append(
            ChainPlayer(
                name,
                name,
                float(record["cpu_seconds"]),
                float(record["elo_vs_round0"]),
                float(record.get("elo_margin", 0.0)),
            )
        )
    return players


def chain_config(players: list[ChainPlayer], settings: ChainSettings) -> Any:
    """The round robin's :class:`~treestrap.play.tournament.TournamentConfig`."""
    from treestrap.play.tournament import TournamentConfig

    return TournamentConfig(
        players=[f"{p.name}={p.spec}" for p in players],
        games_per_pair=settings.games_per_pair,
        openings=settings.openings,
        seed=settings.seed,
        tc=settings.tc,
        max_plies=settings.max_plies,
        workers=settings.workers,
        event=MEASURED_EVENT,
    )


def play_chain(
    players: list[ChainPlayer], tournament: Path, settings: ChainSettings, progress: bool = True
) -> None:
    """Play the round robin in ``tournament``, or the games a stopped one lacks;
    ``ValueError`` if it holds another tournament, ``IncompleteTournament`` for games
    given up."""
    from treestrap.play.tournament import load_config, run_tournament
    from treestrap.rating.results import DB_NAME

    config = chain_config(players, settings)
    resume = (tournament / DB_NAME).exists()
    if resume and _without_workers(load_config(tournament)) != _without_workers(config):
        raise ValueError(
            f"{tournament} holds the tournament of other players or settings: choose "
            "another --out, or delete that folder to play it again"
        )
    remedy = "run the same command again to replay them"
    run_tournament(config, tournament, resume=resume, progress=progress).require_complete(remedy)


def _without_workers(config: Any) -> str:
    """A config's JSON with the workers left out: a resume may use any number."""
    return str(dataclasses.replace(config, workers=1).to_json())


def rate_chain(players: list[ChainPlayer], tournament: Path) -> ChainCurve:
    """BayesElo-model ratings of the stored round robin, the first player anchored at
    0; ``UnfinishedTournament`` while its schedule has games left to play."""
    from treestrap.play.tournament_store import check_rated
    from treestrap.rating.ratings import RatingOptions, fit_ratings_settled
    from treestrap.rating.results import load_results
    from treestrap.rating.standings import head_to_head

    check_rated([tournament], partial=False)  # no rating from an incomplete tournament
    games = load_results(tournament)
    anchor = players[0]
    table, notes = fit_ratings_settled(games, RatingOptions(anchor=(anchor.name, 0.0)))
    points = []
    for p in players:
        r = table.rating(p.name)
        # the margins add as squares along the chain: the anchor's part is shared
        margin = math.sqrt(max(0.0, p.gate_margin**2 - anchor.gate_margin**2))
        gates = p.gate_sum - anchor.gate_sum
        points.append(
            ChainPoint(p.name, p.cpu_seconds, r.elo, r.lower, r.upper, r.games, gates, margin)
        )
    pairs = {(a, b): s for a, b, s in head_to_head([p.name for p in players], games)}
    steps = [
        ChainStep(a.name, b.name, _reversed(pairs[(a.name, b.name)]), b.gate_sum - a.gate_sum)
        for a, b in itertools.pairwise(players)
    ]
    return ChainCurve(table, points, steps, notes)


def _reversed(score: Any) -> Any:
    """The later player's score against the earlier (head to head names the earlier)."""
    return type(score)(score.losses, score.draws, score.wins)


def measure_chain(
    players: list[ChainPlayer], out: Path, settings: ChainSettings, progress: bool = True
) -> ChainCurve:
    """Play (or resume) the chain's round robin in ``out/tournament``, rate it and write
    ``ratings.txt``/``.csv``/``.json``, ``curve.csv`` and ``curve.png`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    tournament = out / TOURNAMENT_DIR
    play_chain(players, tournament, settings, progress)
    curve = rate_chain(players, tournament)
    notes = "".join(f"note: {note}\n" for note in curve.notes)
    text = curve.table.format_table() + "\n" + notes + "\n" + curve.format_table() + "\n"
    (out / "ratings.txt").write_text(text, encoding="utf-8")
    curve.table.to_csv(out / "ratings.csv")
    curve.table.to_json(out / "ratings.json")
    curve.to_csv(out / "curve.csv")
    plot_measured(
        curve, out / "curve.png", f"{settings.tc}, {settings.games_per_pair} games a pair"
    )
    return curve


def plot_measured(curve: ChainCurve, path: Path, conditions: str) -> None:
    """Measured Elo (95% intervals) over the chain's CPU hours, and beside it the sum of
    gate estimates from the same anchor, dashed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = sorted(curve.points, key=lambda p: p.cpu_seconds)
    hours = [p.cpu_seconds / 3600 for p in points]
    fig, ax = plt.subplots(figsize=(6.4, 4))
    ax.errorbar(
        hours,
        [p.elo for p in points],
        yerr=[[p.elo - p.lower for p in points], [p.upper - p.elo for p in points]],
        marker="o",
        capsize=3,
        color="tab:blue",
        label="measured (one round robin)",
    )
    ax.plot(
        hours,
        [p.gate_sum for p in points],
        linestyle="--",
        marker="x",
        color="tab:red",
        label=f"sum of gate estimates ({GATE_SUM_BIAS})",
    )
    for p, x in zip(points, hours, strict=True):
        ax.annotate(p.name, (x, p.elo), textcoords="offset points", xytext=(4, -12), fontsize=8)
    ax.margins(y=0.12)  # room for the names under the points
    ax.set_xlabel("CPU hours from random weights")
    ax.set_ylabel(f"Elo, {curve.points[0].name} = 0")
    ax.set_title(f"bootstrap chain, measured: {conditions}", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
