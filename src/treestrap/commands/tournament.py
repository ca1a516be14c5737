"""``treestrap tournament``: a round robin or gauntlet between engines and weight files,
or between a game's in-process players where the game's tournaments are not engine
tournaments (:mod:`treestrap.play.contract_tournament`).

Only argparse at import time: the tournament machinery (and numba, for in-process
players) is imported when the command runs, so ``treestrap --help`` stays instant.
"""

from __future__ import annotations

import argparse
import contextlib
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from treestrap.commands.arguments import add_backend_arguments, check_backend_arguments, number
from treestrap.evaluation.preset_names import DEFAULT_PRESET
from treestrap.games.registry import DEFAULT_GAME, game_facts, game_names

PLAYER_HELP = (
    "treestrap | hand-set | learned | random[:SEED] | PATH.npz | weights:PATH (our "
    f"engine in process; treestrap: the default preset, {DEFAULT_PRESET}, the strongest "
    "measured) | treestrap-uci[:PATH|PRESET] | stockfish[:ELO] | uci:'COMMAND LINE' | "
    "xboard:'COMMAND LINE'; prefix NAME= to name a player"
)


def _count(text: str) -> int:
    value = number(text, int, "a whole number")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _centipawns(text: str) -> float:
    value = number(text, float, "centipawns")
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def _seconds(text: str) -> float:
    value = number(text, float, "seconds")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value


def _player_tc(text: str) -> tuple[str, str]:
    """``NAME=TC``: one player's own time control."""
    from treestrap.play.timecontrol import parse_time_control

    name, sep, tc = text.partition("=")
    if not sep or not name or not tc:
        raise argparse.ArgumentTypeError(f"expected NAME=TC, got {text!r}")
    try:
        parse_time_control(tc)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return name, tc


def add_parser(sub: Any) -> None:
    """Add ``tournament`` to the ``treestrap`` subcommands."""
    t = sub.add_parser(
        "tournament",
        help="play a round robin or gauntlet between engines and weight files",
        description="Play every pair (or the first player against each other one) from "
        "the same openings with both colours, in parallel worker processes. Results go "
        "to RUN_DIR/results.sqlite as games end (a killed run resumes with --resume) "
        "and every game to RUN_DIR/games.pgn. Exits 1, with no summary, when games were "
        "given up (--resume replays them) or one of our players failed: an in-process "
        "one raised or played an illegal move, or our engine as a UCI subprocess sent "
        "'info string error', crashed or played a bad move (the traceback in "
        "RUN_DIR/error.txt). Other engines' failures lose their games by forfeit.",
    )
    t.add_argument("players", nargs="*", metavar="PLAYER", help=PLAYER_HELP)
    t.add_argument("--out", metavar="RUN_DIR", help="directory for results and games")
    t.add_argument(
        "--resume",
        metavar="RUN_DIR",
        help="finish the tournament stored here; players given with it must be the stored "
        "ones (a database from elsewhere cannot choose the commands run)",
    )
    t.add_argument("--format", choices=["round-robin", "gauntlet"], default="round-robin")
    t.add_argument("--games-per-pair", type=_count, default=2, metavar="N", help="even (default 2)")
    t.add_argument(
        "--tc", default="depth=3", help="BASE+INC seconds, depth=N or nodes=N (default depth=3)"
    )
    t.add_argument(
        "--player-tc",
        type=_player_tc,
        action="append",
        default=[],
        metavar="NAME=TC",
        help="time odds: the player named NAME plays at TC, of the kind of --tc, the others "
        "at --tc (repeatable; e.g. --player-tc zero=20+0.2)",
    )
    t.add_argument("--openings", metavar="FILE", help=".pgn/.tsv/.epd/.bin (default: built-in)")
    t.add_argument(
        "--workers", type=_count, help="games played at once (default 2; may change on resume)"
    )
    t.add_argument("--seed", type=int, default=1, help="opening choice (default 1)")
    t.add_argument(
        "--sprt",
        metavar="elo0=E0,elo1=E1[,alpha=A,beta=B]",
        help="two players: test the first against the second on game pairs (pentanomial "
        "GSPRT, logistic Elo; add ,model=normalized for normalized Elo; alpha and beta "
        "default 0.05) and stop once it decides; --games-per-pair is then the game limit",
    )
    adj = t.add_argument_group("adjudication")
    adj.add_argument("--resign-score", type=_centipawns, metavar="CP", help="resign rule threshold")
    adj.add_argument("--resign-moves", type=_count, default=3, metavar="N", help="(default 3)")
    adj.add_argument("--draw-score", type=_centipawns, metavar="CP", help="draw rule threshold")
    adj.add_argument("--draw-moves", type=_count, default=8, metavar="N", help="(default 8)")
    adj.add_argument(
        "--draw-after", type=_count, default=40, metavar="MOVE", help="(default move 40)"
    )
    adj.add_argument("--max-plies", type=_count, default=400, metavar="N", help="(default 400)")
    adj.add_argument(
        "--finish-with", metavar="PLAYER", help="engine that plays unfinished games to the end"
    )
    adj.add_argument("--finish-tc", default="depth=6", help="its limit (default depth=6)")
    adj.add_argument(
        "--finish-plies", type=_count, default=200, metavar="N", help="its cap (default 200)"
    )
    adj.add_argument(
        "--move-timeout",
        type=_seconds,
        default=60.0,
        metavar="S",
        help="forfeit a move longer than this under depth/node limits (default 60)",
    )
    t.add_argument("--quiet", action="store_true", help="no progress bar or interim standings")
    own = t.add_argument_group("in-process players (games without engine tournaments)")
    own.add_argument(
        "--game",
        choices=game_names(),
        default=DEFAULT_GAME,
        help="the game (default chess); connect4 players: perfect[:p=P], random, "
        "hand-set[:depth=N], random-weights[:seed=S][:depth=N], PATH.npz[:depth=N]",
    )
    own.add_argument(
        "--opening-plies",
        type=_count,
        metavar="N",
        help="random plies before each game (the game's default: connect4 4; 8 or more "
        "with a perfect player: the solver takes minutes near the empty board)",
    )
    add_backend_arguments(t, "the games")
    t.set_defaults(func=run_command)


def _config(args: argparse.Namespace) -> Any:
    from treestrap.play.adjudication import Adjudication
    from treestrap.play.players import parse_players
    from treestrap.play.tournament import TournamentConfig, load_config

    if args.resume:
        if args.out or args.sprt or args.player_tc:
            raise ValueError("--resume takes no --out, --sprt or --player-tc: the run dir has them")
        config = load_config(args.resume)
        _check_players(config.players, args, parse_players)
        if args.workers:
            config.workers = args.workers
        return config
    if not args.out:
        raise ValueError("--out RUN_DIR is required (or --resume RUN_DIR)")
    rule = Adjudication(
        resign_score=args.resign_score,
        resign_moves=args.resign_moves,
        draw_score=args.draw_score,
        draw_moves=args.draw_moves,
        draw_after=args.draw_after,
    )
    return TournamentConfig(
        players=list(args.players),
        format=args.format,
        games_per_pair=args.games_per_pair,
        openings=args.openings,
        seed=args.seed,
        tc=args.tc,
        adjudication=rule,
        max_plies=args.max_plies,
        finish_with=args.finish_with,
        finish_tc=args.finish_tc,
        finish_plies=args.finish_plies,
        move_timeout=args.move_timeout,
        workers=args.workers or 2,
        sprt=args.sprt,
        player_tcs=dict(args.player_tc),
    )


def _check_players(stored: list[str], args: argparse.Namespace, parse: Any) -> None:
    """Players given with ``--resume`` must be the stored ones; none given: say which
    commands the stored ones are, since they are what runs."""
    from treestrap.play.tournament import check_resumed_players

    if args.players:
        check_resumed_players(stored, list(args.players), args.resume, parse)
    else:
        shown = " ".join(shlex.quote(p) for p in stored)
        print(f"resuming with the stored players: {shown}", file=sys.stderr)


def _games_runner(args: argparse.Namespace) -> contextlib.AbstractContextManager[None]:
    """Where the games run: the local pool, or Ray tasks for ``--backend ray``."""
    if args.backend != "ray":
        return contextlib.nullcontext()
    from treestrap.distributed.ray_games import ray_runner
    from treestrap.play.gamepool import games_run_by

    return games_run_by(ray_runner(args.address))


def _tournament_game(args: argparse.Namespace) -> str:
    """The game of the tournament: ``--game``, or the stored one on resume."""
    if args.resume:
        from treestrap.play.tournament_store import stored_game_kind

        return stored_game_kind(args.resume) or args.game
    return str(args.game)


#: Options of engine tournaments only, with their defaults (a changed one is refused).
_ENGINE_ONLY = {
    "openings": None,
    "tc": "depth=3",
    "player_tc": [],
    "sprt": None,
    "finish_with": None,
    "resign_score": None,
    "draw_score": None,
    "backend": "local",
    "workers": None,  # in-process players play one game after another in this process
}


def _contract_config(args: argparse.Namespace, game: str) -> Any:
    from treestrap.play.contract_tournament import (
        ContractTournamentConfig,
        load_contract_config,
        tournament_play,
    )

    play = tournament_play(game)
    for dest, default in _ENGINE_ONLY.items():
        if getattr(args, dest) != default:
            option = "--" + dest.replace("_", "-")
            raise ValueError(
                f"{option} is for engine tournaments, not --game {game} (its players: "
                f"{play.player_forms})"
            )
    if args.resume:
        if args.out or args.opening_plies is not None:
            raise ValueError("--resume takes no --out and no --opening-plies")
        config = load_contract_config(args.resume)
        _check_players(config.players, args, play.parse_players)
        return config
    if not args.out:
        raise ValueError("--out RUN_DIR is required (or --resume RUN_DIR)")
    return ContractTournamentConfig.of(
        game,
        list(args.players),
        args.opening_plies,
        format=args.format,
        games_per_pair=args.games_per_pair,
        seed=args.seed,
    )


def _play_in_process(args: argparse.Namespace, game: str) -> Any:
    """A game without engine tournaments: its in-process players, one game after
    another."""
    from treestrap.play.contract_tournament import run_contract_tournament

    config = _contract_config(args, game)
    run_dir = args.resume or args.out
    return run_contract_tournament(
        config, run_dir, resume=bool(args.resume), progress=not args.quiet
    )


def _play_engines(args: argparse.Namespace) -> Any:
    from treestrap.play.tournament import run_tournament

    config = _config(args)
    run_dir = args.resume or args.out
    with _games_runner(args):
        return run_tournament(config, run_dir, resume=bool(args.resume), progress=not args.quiet)


def _print_summary(result: Any, quiet: bool, note: str = "") -> None:
    """Standings (when the run did not print them), head to head, forfeits, files."""
    from treestrap.rating.standings import format_head_to_head, format_standings, head_to_head

    if quiet:  # otherwise the tournament printed them as it ended
        print(format_standings(result.standings))
    played = [(g.white, g.black, g.result) for g in result.games]
    print(f"\nhead to head (Elo of the first named, 95% interval{note}):")
    print(format_head_to_head(head_to_head(result.players, played)))
    if quiet:
        print(result.forfeits())
    print(f"{len(result.games)} games in {result.db_path}; PGN in {result.pgn_path}")


def run_command(args: argparse.Namespace) -> int:
    """Handler: 0 when every game is stored, 1 if some were given up or one of our
    players failed, 2 for bad input, 130 when interrupted (the stored
    games stay; resume later)."""
    game = _tournament_game(args)
    try:
        engines = game_facts(game).engine_tournament
    except ValueError as exc:  # a stored game this build does not know
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not engines:
        return _run(args, lambda: _play_in_process(args, game), "; White moves first")
    if args.opening_plies is not None:
        print(
            f"error: --opening-plies is not for --game {game}: its tournaments play from a book",
            file=sys.stderr,
        )
        return 2
    problem = check_backend_arguments(args)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    return _run(args, lambda: _play_engines(args))


def _run(args: argparse.Namespace, play: Callable[[], Any], note: str = "") -> int:
    """Play the tournament, then print its summary; errors as one line (see
    :func:`run_command`)."""
    from treestrap.play.errors import TournamentStopped
    from treestrap.rating.results import DB_NAME

    run_dir = args.resume or args.out
    try:
        result = play().require_complete()
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except TournamentStopped as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        # The command line prints the file and the reason; the stored games stay.
        if run_dir and (Path(run_dir) / DB_NAME).is_file():
            exc.add_note(
                f"the games stored are kept: finish with treestrap tournament --resume {run_dir}"
            )
        raise
    except KeyboardInterrupt:
        print(f"interrupted: finish with treestrap tournament --resume {run_dir}", file=sys.stderr)
        return 130
    _print_summary(result, args.quiet, note)
    if result.sprt is not None:
        print(result.sprt.summary())
    return 0
