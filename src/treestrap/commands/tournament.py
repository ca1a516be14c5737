"""``treestrap tournament``: a round robin or gauntlet between engines and weight files.

Only argparse at import time: the tournament machinery (and numba, for in-process
players) is imported when the command runs, so ``treestrap --help`` stays instant.
"""

from __future__ import annotations

import argparse
import contextlib
import shlex
import sys
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


def add_parser(sub: Any) -> None:
    """Add ``tournament`` to the ``treestrap`` subcommands."""
    t = sub.add_parser(
        "tournament",
        help="play a round robin or gauntlet between engines and weight files",
        description="Play every pair (or the first player against each other one) from "
        "the same openings with both colours, in parallel worker processes. Results go "
        "to RUN_DIR/results.sqlite as games end (a killed run resumes with --resume) "
        "and every game to RUN_DIR/games.pgn. Exits 1, with no summary, when games were "
        "given up (--resume replays them) or one of our in-process players raised (its "
        "traceback in RUN_DIR/error.txt).",
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
    c4 = t.add_argument_group("Connect Four")
    c4.add_argument(
        "--game",
        choices=game_names(),
        default=DEFAULT_GAME,
        help="the game (default chess); connect4 players: perfect[:p=P], random, "
        "hand-set[:depth=N], random-weights[:seed=S][:depth=N], PATH.npz[:depth=N]",
    )
    c4.add_argument(
        "--opening-plies",
        type=_count,
        metavar="N",
        help="connect4: random plies before each game (default 4; 8 or more with a "
        "perfect player: the solver takes minutes near the empty board)",
    )
    add_backend_arguments(t, "the games")
    t.set_defaults(func=run_command)


def _config(args: argparse.Namespace) -> Any:
    from treestrap.play.adjudication import Adjudication
    from treestrap.play.players import parse_players
    from treestrap.play.tournament import TournamentConfig, load_config

    if args.resume:
        if args.out or args.sprt:
            raise ValueError("--resume takes no --out and no --sprt: the run dir has them")
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


def _is_fixed_depth(args: argparse.Namespace) -> bool:
    """Whether the tournament is one of fixed-depth contract players (Connect Four's)
    rather than of engines (chess's): by ``--game``, or by the stored one on resume."""
    game = args.game
    if args.resume:
        from treestrap.play.connect4.tournament import stored_game_kind

        game = stored_game_kind(args.resume) or game
    return not game_facts(game).engine_tournament


#: Options of chess tournaments only, with their defaults (a changed one is refused).
_CHESS_ONLY = {
    "openings": None,
    "tc": "depth=3",
    "sprt": None,
    "finish_with": None,
    "resign_score": None,
    "draw_score": None,
    "backend": "local",
    "workers": None,  # Connect Four games run one after another in this process
}


def _connect4_config(args: argparse.Namespace) -> Any:
    from treestrap.play.connect4.players import parse_connect4_players
    from treestrap.play.connect4.tournament import (
        DEFAULT_OPENING_PLIES,
        Connect4TournamentConfig,
        load_connect4_config,
    )

    for dest, default in _CHESS_ONLY.items():
        if getattr(args, dest) != default:
            option = "--" + dest.replace("_", "-")
            hint = " (give a search player its depth: hand-set:depth=4)" if dest == "tc" else ""
            raise ValueError(f"{option} is for chess tournaments, not --game connect4{hint}")
    if args.resume:
        if args.out or args.opening_plies:
            raise ValueError("--resume takes no --out and no --opening-plies")
        config = load_connect4_config(args.resume)
        _check_players(config.players, args, parse_connect4_players)
        return config
    if not args.out:
        raise ValueError("--out RUN_DIR is required (or --resume RUN_DIR)")
    return Connect4TournamentConfig(
        players=list(args.players),
        format=args.format,
        games_per_pair=args.games_per_pair,
        opening_plies=args.opening_plies or DEFAULT_OPENING_PLIES,
        seed=args.seed,
    )


def _run_connect4(args: argparse.Namespace) -> int:
    """``--game connect4``: in-process players, one game after another."""
    from treestrap.play.connect4.tournament import run_connect4_tournament
    from treestrap.play.errors import TournamentStopped

    run_dir = args.resume or args.out
    try:
        config = _connect4_config(args)
        result = run_connect4_tournament(
            config, run_dir, resume=bool(args.resume), progress=not args.quiet
        ).require_complete()
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except TournamentStopped as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"interrupted: finish with treestrap tournament --resume {run_dir}", file=sys.stderr)
        return 130
    _print_summary(result, args.quiet, "; White moves first")
    return 0


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
    in-process players raised, 2 for bad input, 130 when interrupted (the stored
    games stay; resume later)."""
    from treestrap.play.errors import TournamentStopped
    from treestrap.play.tournament import run_tournament
    from treestrap.rating.results import DB_NAME

    if _is_fixed_depth(args):
        return _run_connect4(args)
    if args.opening_plies is not None:
        print("error: --opening-plies is for --game connect4", file=sys.stderr)
        return 2
    run_dir = args.resume or args.out
    problem = check_backend_arguments(args)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        config = _config(args)
        with _games_runner(args):
            result = run_tournament(
                config, run_dir, resume=bool(args.resume), progress=not args.quiet
            ).require_complete()
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
    _print_summary(result, args.quiet)
    if result.sprt is not None:
        print(result.sprt.summary())
    return 0
