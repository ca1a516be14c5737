"""Connect Four's measurements against perfect play: ``treestrap measure --game connect4``
(:func:`add_measure_arguments`, :func:`run_measure`), and with ``--versus-perfect`` its
games from the empty board against the perfect player. ``treestrap connect4 measure`` and
``treestrap connect4 versus-perfect`` are their old spellings.

Only argparse at import time; the solver, searches and models load when it runs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

DEFAULT_DEPTHS = "2,4"
DEFAULT_P = "0,0.1,0.25,0.5"
DEFAULT_GAMES = 20
#: The reference file that ships with the repository, from the repository root.
DEFAULT_POSITIONS = "reference/connect4/solved-1000.txt"


def add_parser(sub: Any) -> None:
    """Add ``connect4`` (the old spellings of its measurements) to the subcommands."""
    c4 = sub.add_parser(
        "connect4",
        help="the old spellings of treestrap measure --game connect4 [--versus-perfect]",
        description="Connect Four's measurements are treestrap measure --game connect4 "
        "(--versus-perfect: from the empty board); tournaments and ratings: treestrap "
        "tournament --game connect4, treestrap rate --game connect4.",
    )
    actions = c4.add_subparsers(dest="action", metavar="ACTION", required=True)
    m = actions.add_parser(
        "measure",
        help="the old spelling of treestrap measure --game connect4",
        description=MEASURE_DESCRIPTION,
    )
    add_measure_arguments(m)
    m.set_defaults(func=run_old_measure)
    add_versus_parser(actions)


#: What ``treestrap measure --game connect4`` does.
MEASURE_DESCRIPTION = (
    "For each player (a search over a model at each depth): the share of the reference "
    "positions where its move is a best move and where it keeps the game-theoretic "
    "result, with 95% intervals; and games against the exact solver and weakened ones (a "
    "random move with probability P), each random opening played with both colours. "
    "Prints a table; with --out writes measure.json and measure.csv. With "
    "--versus-perfect instead: each player moves first from the start position (the "
    "empty board unless --start) against the perfect second player (exact scores: the "
    "longest loss, the quickest win), at each of --depths (default 4,8,12) and --times; "
    "it prints each game's moves, result and the first ply where the player turned a "
    "won game into a draw or loss, and with --out writes versus-perfect.json. Solved "
    "positions are kept in --cache, so each is solved once (near the empty board a "
    "solve takes minutes)."
)


def add_measure_arguments(m: argparse.ArgumentParser) -> None:
    """The arguments of Connect Four's measurement (``treestrap measure --game connect4``)."""
    m.add_argument(
        "players",
        nargs="*",
        metavar="PLAYER",
        help="ntuple (the shipped n-tuple preset; the default), zero (the shipped linear "
        "preset), WEIGHTS.npz, hand-set, "
        "random-weights[:seed=S], each with :depth=N or :time=S; perfect[:p=P], random; a "
        "search player without depth= or time= is measured at each of --depths and --times",
    )
    m.add_argument(
        "--depths",
        default=None,
        help=f"search depths (default {DEFAULT_DEPTHS}; none when only --times is given)",
    )
    m.add_argument(
        "--times",
        default="",
        metavar="SECONDS",
        help="seconds a move, comma-separated: the playing search deepens over one table until "
        "they are spent (default: none)",
    )
    m.add_argument(
        "--games",
        default=str(DEFAULT_GAMES),
        metavar="N",
        help=f"games against each opponent, even: N/2 openings x 2 colours (default "
        f"{DEFAULT_GAMES}; 0: positions only)",
    )
    m.add_argument("--p", default=DEFAULT_P, help=f"the opponents' P (default {DEFAULT_P})")
    m.add_argument(
        "--positions",
        default=DEFAULT_POSITIONS,
        metavar="FILE",
        help=f"scored positions (default {DEFAULT_POSITIONS})",
    )
    m.add_argument(
        "--every", default="1", metavar="K", help="only every K-th position (default 1: all)"
    )
    m.add_argument("--opening-plies", default=None, metavar="N", help="random plies (default 8)")
    m.add_argument("--seed", default="1", help="openings and random moves (default 1)")
    m.add_argument(
        "--references",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also measure hand-set and random-weights where not given (default: yes)",
    )
    m.add_argument(
        "--out",
        metavar="DIR",
        help="write measure.json and measure.csv here (--versus-perfect: versus-perfect.json)",
    )
    m.add_argument("--quiet", action="store_true", help="no progress bars")
    v = m.add_argument_group(
        "from the empty board against perfect play (--versus-perfect; the positions, "
        "--games and --p do not apply)"
    )
    v.add_argument(
        "--versus-perfect",
        action="store_true",
        help="play each player first against the perfect second player instead",
    )
    add_versus_options(v)


def add_versus_parser(actions: Any) -> None:
    """``treestrap connect4 versus-perfect``, the old spelling of ``treestrap measure
    --game connect4 --versus-perfect``."""
    v = actions.add_parser(
        "versus-perfect",
        help="the old spelling of treestrap measure --game connect4 --versus-perfect",
        description="Each player moves first from the start position (the empty board "
        "unless --start) against the perfect second player (exact scores: the longest "
        "loss, the quickest win), at each of --depths and --times; prints each game's moves, "
        "result and the first ply where the player turned a won game into a draw or loss. "
        "Solved positions are kept in --cache, so each is solved once (near the empty "
        "board a solve takes minutes).",
    )
    v.add_argument(
        "players",
        nargs="*",
        metavar="PLAYER",
        help="ntuple (the shipped n-tuple preset; the default), zero (the shipped linear "
        "preset), WEIGHTS.npz, hand-set, "
        "random-weights[:seed=S], each with :depth=N or :time=S; random; a search player "
        "without depth= or time= plays at each of --depths and --times",
    )
    v.add_argument(
        "--depths",
        default=None,
        help="search depths (default 4,8,12; none when only --times is given)",
    )
    v.add_argument(
        "--times",
        default="",
        metavar="SECONDS",
        help="seconds a move, comma-separated (default: none)",
    )
    add_versus_options(v)
    v.add_argument("--out", metavar="DIR", help="write versus-perfect.json here")
    v.add_argument("--quiet", action="store_true", help="no progress lines")
    v.set_defaults(func=run_old_versus)


def add_versus_options(v: Any) -> None:
    """The options of the games against the perfect player beyond the players, their
    depths and times, ``--out`` and ``--quiet``."""
    v.add_argument(
        "--cache",
        metavar="FILE",
        help="solved positions, read and written (default "
        "$XDG_CACHE_HOME/treestrap/connect4-solved.json, ~/.cache without it)",
    )
    v.add_argument(
        "--seeds",
        default="1",
        metavar="N",
        help="games per player and side, the perfect player's ties broken at random with "
        "seeds 0..N-1 (default 1)",
    )
    v.add_argument(
        "--as-second",
        action="store_true",
        help="also play each player second against the perfect first player (from the "
        "empty board that is an exact solve of it: 45 s once the replies are cached)",
    )
    v.add_argument(
        "--start",
        default="",
        metavar="MOVES",
        help="start position (columns 1-7; default empty); the player still plays the first "
        "player's discs",
    )
    v.add_argument(
        "--result-only",
        action="store_true",
        help="the perfect player keeps the best result only (win, draw, loss), not the "
        "exact score: cheaper, a weaker defender",
    )
    v.add_argument(
        "--table-bits",
        default="20",
        metavar="B",
        help="the solver's table, 2^B entries of 8 bytes (default 20: 8 MiB)",
    )


def run_old_versus(args: argparse.Namespace) -> int:
    """``treestrap connect4 versus-perfect``: says the new spelling, then plays."""
    print(
        "note: treestrap connect4 versus-perfect is now treestrap measure --game connect4 "
        "--versus-perfect",
        file=sys.stderr,
    )
    return _error_line_on_bad_input(_versus, args)


def _error_line_on_bad_input(
    body: Callable[[argparse.Namespace], int], args: argparse.Namespace
) -> int:
    """``body(args)``, a bad input's ``ValueError`` printed as one ``error:`` line (exit 2)."""
    try:
        return body(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _whole(text: str, what: str, low: int, high: int | None = None) -> int:
    try:
        value = int(text)
    except ValueError:
        value = low - 1
    if value < low or (high is not None and value > high):
        top = f"-{high}" if high is not None else " or more"
        raise ValueError(f"{what} must be a whole number {low}{top}, got {text!r}")
    return value


def _depths(text: str) -> list[int]:
    from treestrap.games.connect4_players import MAX_DEPTH

    words = [d.strip() for d in text.split(",") if d.strip()]
    return sorted({_whole(d, "--depths: a depth", 1, MAX_DEPTH) for d in words})


def _times(text: str) -> list[float]:
    from treestrap.games.connect4_players import MAX_SECONDS

    found = []
    for word in filter(None, (w.strip() for w in text.split(","))):
        try:
            seconds = float(word)
        except ValueError:
            seconds = -1.0
        if not 0.0 < seconds <= MAX_SECONDS:
            raise ValueError(
                f"--times: each must be seconds above 0, at most {MAX_SECONDS:g}, got {word!r}"
            )
        found.append(seconds)
    return sorted(set(found))


def _searches(specs: list[Any], depths_text: str | None, default: str, times_text: str) -> list:
    """Each search player at each depth and each time a move (a player whose spec fixes
    either is measured once), every other player once."""
    from treestrap.games.connect4_players import SEARCH

    times = _times(times_text)
    depths = _depths(depths_text if depths_text is not None else "" if times else default)
    runs = []
    for spec in specs:
        if spec.kind != SEARCH or spec.fixed:
            runs.append(spec)
            continue
        runs += [spec.with_depth(d) for d in depths] + [spec.with_time(t) for t in times]
    return list({s.name: s for s in runs}.values())


def _probabilities(text: str) -> list[float]:
    found = []
    for word in text.split(","):
        try:
            p = float(word)
        except ValueError:
            p = -1.0
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"--p: each must be a probability 0-1, got {word!r}")
        found.append(p)
    return found


def run_measure(args: argparse.Namespace) -> int:
    measure = _versus if args.versus_perfect else _measure
    return _error_line_on_bad_input(measure, args)


def run_old_measure(args: argparse.Namespace) -> int:
    """``treestrap connect4 measure``: says the new spelling, then measures."""
    print(
        "note: treestrap connect4 measure is now treestrap measure --game connect4", file=sys.stderr
    )
    return run_measure(args)


def _measure(args: argparse.Namespace) -> int:
    from treestrap.connect4.solver import Solver
    from treestrap.games.connect4_players import (
        DEFAULT_PLAYER,
        HAND_SET,
        RANDOM_WEIGHTS,
        make_player,
        parse_connect4_player,
        parse_connect4_players,
    )
    from treestrap.games.connect4_tournament import MAX_OPENING_PLIES, random_openings
    from treestrap.play.connect4.measure import (
        DEFAULT_OPENING_PLIES,
        measure_player,
        opening_results,
    )
    from treestrap.play.connect4.reference import load_reference
    from treestrap.play.connect4.report import format_table, write_reports

    ps = _probabilities(args.p)
    games = _whole(args.games, "--games", 0)
    if games % 2:
        raise ValueError(f"--games must be even (each opening with both colours), got {games}")
    every = _whole(args.every, "--every", 1)
    seed = _whole(args.seed, "--seed", 0)
    plies_text = args.opening_plies or str(DEFAULT_OPENING_PLIES)
    plies = _whole(plies_text, "--opening-plies", 0, MAX_OPENING_PLIES)
    specs = parse_connect4_players(args.players or [DEFAULT_PLAYER])
    if args.references:  # the hand-written evaluation and the random start beside them
        given = {s.model for s in specs}
        specs += [parse_connect4_player(r) for r in (HAND_SET, RANDOM_WEIGHTS) if r not in given]
    positions = load_reference(args.positions)[::every]
    runs = _searches(specs, args.depths, DEFAULT_DEPTHS, args.times)
    solver = Solver()
    openings = random_openings(games // 2, plies, seed)
    values = opening_results(openings, solver)
    measures = []
    signs = {}  # an evaluation's static sign, by model: the same at every depth and time
    for spec in runs:
        player = make_player(spec, solver)
        opponents = ps if games else []
        measures.append(
            measure_player(
                player,
                spec.model or spec.kind,
                spec.depth,
                positions,
                openings,
                values,
                opponents,
                solver,
                seed,
                progress=not args.quiet,
                known_sign=signs.get(spec.model),
            )
        )
        if measures[-1].static_sign is not None:
            signs[spec.model] = measures[-1].static_sign
    print(format_table(measures))
    if args.out:
        setup = {
            "players": list(args.players or [DEFAULT_PLAYER]),
            "depths": sorted({s.depth for s in runs if s.depth is not None}),
            "times": sorted({s.seconds for s in runs if s.seconds is not None}),
            "positions_file": str(args.positions),
            "positions": len(positions),
            "every": every,
            "games_per_opponent": games,
            "opening_plies": plies,
            "seed": seed,
            "opponents_p": ps,
            "openings": openings,
        }
        for path in write_reports(args.out, measures, setup):
            print(f"wrote {path}")
    return 0


def _versus(args: argparse.Namespace) -> int:
    import json
    import time
    from pathlib import Path

    from treestrap.connect4.board import NOT_TERMINAL, parse_moves, terminal_value
    from treestrap.games.connect4_players import (
        DEFAULT_PLAYER,
        SEARCH,
        make_player,
        parse_connect4_players,
    )
    from treestrap.play.connect4.solved import SolvedPositions, default_cache_path
    from treestrap.play.connect4.versus import (
        CachedPerfectPlayer,
        play_versus_perfect,
        summary_lines,
    )

    seeds = _whole(args.seeds, "--seeds", 1)
    bits = _whole(args.table_bits, "--table-bits", 10, 30)
    try:
        start = parse_moves(args.start)
    except ValueError as exc:
        raise ValueError(f"--start: {exc}") from None
    if terminal_value(start) != NOT_TERMINAL:
        raise ValueError(f"--start: the game is over after {args.start!r}")
    specs = parse_connect4_players(args.players or [DEFAULT_PLAYER])
    if any(s.kind != SEARCH and s.kind != "random" for s in specs):
        raise ValueError("versus-perfect plays search players and random, not perfect ones")
    runs = _searches(specs, args.depths, "4,8,12", args.times)
    cache = Path(args.cache) if args.cache else default_cache_path()
    log = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    solved = SolvedPositions(cache, bits, log)
    perfect = CachedPerfectPlayer(solved, exact=not args.result_only)
    started = time.perf_counter()
    games = []
    for spec in runs:
        player = make_player(spec)
        for player_first in (True, False) if args.as_second else (True,):
            for seed in range(seeds):
                game = play_versus_perfect(player, perfect, args.start, player_first, seed)
                print(game.describe(), flush=True)
                games.append(game)
    took = time.perf_counter() - started
    print("\n".join(summary_lines(games)))
    print(
        f"{len(games)} games in {took:.1f} s ({solved.solve_seconds:.1f} s solving); "
        f"{len(solved.bounds)} positions in {cache}"
    )
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        path = out / "versus-perfect.json"
        setup = {
            "players": list(args.players or [DEFAULT_PLAYER]),
            "depths": sorted({s.depth for s in runs if s.depth is not None}),
            "times": sorted({s.seconds for s in runs if s.seconds is not None}),
            "seeds": seeds,
            "start": args.start,
            "exact": not args.result_only,
        }
        path.write_text(json.dumps({"setup": setup, "games": [g.to_dict() for g in games]}))
        print(f"wrote {path}")
    return 0
