"""``treestrap rate``: BayesElo-style ratings (or an SPRT) from PGN files and tournament runs.

Only argparse is imported at module level, so that building the CLI stays instant and
pulls in neither numpy-heavy code nor plotting.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from treestrap.games.registry import DEFAULT_GAME, game_names


def add_parser(sub: Any) -> None:
    """Register ``rate`` on ``sub``, the result of ``ArgumentParser.add_subparsers()``."""
    p = sub.add_parser(
        "rate",
        help="rate players from game results (BayesElo-style), or run an SPRT",
        description="Fit maximum a posteriori Elo ratings (the BayesElo model: draw Elo, "
        "white advantage, virtual-draw prior) to the games in PGN files, SQLite result "
        "files or tournament run directories, and print a table with 95% intervals. "
        "With --sprt, report a sequential probability ratio test for one pair instead: "
        "in the BayesElo model on games, and fishtest's generalized SPRT (logistic Elo) "
        "on games (trinomial) and on game pairs (pentanomial).",
    )
    p.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="PGN file, SQLite file, or run directory holding results.sqlite",
    )
    p.add_argument(
        "--anchor",
        metavar="NAME=ELO",
        help="pin one player's rating (e.g. untrained=250); default: mean rating 0",
    )
    p.add_argument("--draw-elo", type=float, metavar="X", help="fix the draw Elo (default: fit)")
    p.add_argument(
        "--advantage", type=float, metavar="X", help="fix White's advantage (default: fit)"
    )
    p.add_argument(
        "--prior",
        type=float,
        default=2.0,
        metavar="N",
        help="virtual draws per pair of players that met (default 2; 0 = plain likelihood)",
    )
    p.add_argument("--csv", metavar="OUT.csv", help="also write the table as CSV")
    p.add_argument("--json", metavar="OUT.json", help="also write ratings and LOS as JSON")
    p.add_argument("--los", action="store_true", help="print the likelihood-of-superiority matrix")
    p.add_argument(
        "--sprt",
        metavar="ELO0,ELO1",
        help="SPRT of --player against --opponent: H0 elo=ELO0 against H1 elo=ELO1 "
        "(or elo0=E0,elo1=E1[,alpha=A,beta=B][,model=normalized]); pairs are the two "
        "games of one round (one opening), else consecutive games",
    )
    p.add_argument("--player", help="SPRT: the player under test")
    p.add_argument("--opponent", help="SPRT: the reference player")
    p.add_argument(
        "--game",
        choices=game_names(),
        default=DEFAULT_GAME,
        help="the game of the results (default chess): every tournament source must hold "
        "its games (in Connect Four White is the first player, so the white advantage is "
        "the first player's)",
    )
    p.add_argument(
        "--partial",
        action="store_true",
        help="rate a tournament whose schedule still has games to play (stopped or still "
        "running) on the games played; the first line then says what the ratings rest on "
        "(default: refuse it)",
    )
    p.add_argument("--alpha", type=float, default=0.05, help="SPRT false-positive rate")
    p.add_argument("--beta", type=float, default=0.05, help="SPRT false-negative rate")
    p.set_defaults(func=run_rate)


def _error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _parse_anchor(text: str) -> tuple[str, float]:
    name, sep, value = text.rpartition("=")
    try:
        if not sep or not name:
            raise ValueError
        return name, float(value)
    except ValueError:
        raise ValueError(f"--anchor wants NAME=ELO, got {text!r}") from None


def _parse_sprt(text: str) -> tuple[float, float]:
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        return float(parts[0]), float(parts[1])
    except ValueError:
        raise ValueError(f"--sprt wants ELO0,ELO1, got {text!r}") from None


def run_rate(args: argparse.Namespace) -> int:
    """Handler: 0 with the table (or the SPRT), 1 for a tournament with games left to
    play (without ``--partial``), 2 for bad input."""
    from treestrap.play.errors import TournamentStopped
    from treestrap.play.tournament_store import check_rated, rests_on
    from treestrap.rating.ratings import RatingOptions, fit_ratings_settled
    from treestrap.rating.results import load_round_results

    try:
        _check_sources(args.game, args.sources)
        rounds = []
        for source in args.sources:  # read first: a file it cannot read is bad input
            rounds.extend(load_round_results(source))
        incomplete = check_rated(args.sources, args.partial)
        games = [game[:3] for game in rounds]
        if not games:
            return _error("no finished games in " + ", ".join(map(str, args.sources)))
        if incomplete:  # --partial: the first line says what the numbers rest on
            print(rests_on(len(games), incomplete))
        if args.sprt is not None:
            return _run_sprt(args, rounds)
        options = RatingOptions(
            draw_elo=args.draw_elo,
            advantage=args.advantage,
            prior=args.prior,
            anchor=_parse_anchor(args.anchor) if args.anchor else None,
        )
        table, notes = fit_ratings_settled(games, options)
        print(table.format_table())
        for note in notes:
            print(f"note: {note}")
        if args.los:
            print()
            print(table.format_los())
        if args.csv:
            table.to_csv(args.csv)
            print(f"wrote {args.csv}")
        if args.json:
            table.to_json(args.json)
            print(f"wrote {args.json}")
    except TournamentStopped as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:
        return _error(str(exc))
    except OSError as exc:
        return _error(f"{exc.filename or ''}: {exc.strerror or exc}")
    return 0


def _check_sources(game: str, sources: list[str]) -> None:
    """``ValueError`` for a tournament source that holds another game's games (PGN
    files are read as they are: their headers do not say the game)."""
    from treestrap.play.tournament_store import stored_game_kind

    for source in sources:
        kind = stored_game_kind(source)
        if kind is not None and kind != game:
            raise ValueError(f"{source} holds a {kind} tournament, not {game}")


def _run_sprt(args: argparse.Namespace, rounds: list[tuple[str, str, str, str]]) -> int:
    from treestrap.rating.gsprt import Gsprt, parse_gsprt
    from treestrap.rating.pairs import pair_results
    from treestrap.rating.sprt import count_results, sprt

    if not args.player or not args.opponent:
        return _error("--sprt needs --player and --opponent")
    if "=" in args.sprt:
        test = parse_gsprt(args.sprt, args.alpha, args.beta)
    else:
        test = Gsprt(*_parse_sprt(args.sprt), args.alpha, args.beta)
    games = [game[:3] for game in rounds]
    wins, draws, losses = count_results(games, args.player, args.opponent)
    if wins + draws + losses == 0:
        return _error(f"no finished games between {args.player!r} and {args.opponent!r}")
    result = sprt(wins, draws, losses, test.elo0, test.elo1, test.alpha, test.beta)
    total = wins + draws + losses
    print(f"{args.player} vs {args.opponent}: +{wins} ={draws} -{losses} ({total} games)")
    print(result.describe())  # the BayesElo-model test on games, as before
    pairing = pair_results(rounds, args.player, args.opponent)
    trinomial = test.result(pairing.trinomial)
    print(f"GSPRT {test.describe()}, trinomial: {trinomial.describe()} -> {trinomial.decision}")
    if pairing.pair_scores:
        penta = test.result(pairing.pentanomial)
        print(
            f"GSPRT {test.describe()}, pentanomial: {penta.describe()} -> {penta.decision}; "
            f"{pairing.describe()}"
        )
    else:
        print(
            "GSPRT pentanomial: no game pairs (one opening with both colours) among "
            f"these games; {pairing.unpaired} games unpaired"
        )
    return 0
