"""Play a match between two UCI engines and print the score with Elo and a 95% interval.

Examples (from the repository root, with the package installed)::

    # the hand-set preset against Sunfish (pip install --no-deps sunfish)
    python benchmarks/engine_match.py --second sunfish --games 20 --tc 10+0.1
    # against Stockfish limited to 1350 Elo (apt-get install stockfish)
    python benchmarks/engine_match.py --second stockfish-1350 --games 100 --tc 10+0.1

Players: ``treestrap`` (hand-set preset), ``treestrap:FILE`` (a weight file),
``treestrap-random``, ``sunfish``, ``stockfish``, ``stockfish-ELO`` (UCI_LimitStrength),
or any command line prefixed with ``cmd:``. Each opening of the built-in book (or
``--openings FILE``) is played twice with colours reversed. The runner keeps the clocks
and counts losses on time.
"""

from __future__ import annotations

import argparse
import shlex
import sys

from treestrap.play.errors import TournamentStopped
from treestrap.play.match import EngineSpec, find_engine, play_match
from treestrap.play.openings import load_openings, pick_openings
from treestrap.play.timecontrol import parse_time_control


def player(text: str) -> EngineSpec:
    treestrap = [sys.executable, "-m", "treestrap.cli", "uci"]
    if text == "treestrap":
        return EngineSpec("treestrap-handset", tuple(treestrap))
    if text == "treestrap-random":
        return EngineSpec("treestrap-random", tuple(treestrap), (("Preset", "random"),))
    if text.startswith("treestrap:"):
        path = text.split(":", 1)[1]
        return EngineSpec(f"treestrap-{path}", (*treestrap, "--weights", path))
    if text == "sunfish":
        exe = find_engine("sunfish-uci")
        if not exe:
            sys.exit("sunfish-uci not found: pip install --no-deps sunfish")
        return EngineSpec("sunfish", (exe,))
    if text.startswith("stockfish"):
        exe = find_engine("stockfish")
        if not exe:
            sys.exit("stockfish not found: apt-get install stockfish")
        if text == "stockfish":
            return EngineSpec("stockfish", (exe,))
        elo = int(text.split("-", 1)[1])
        options = (("UCI_LimitStrength", True), ("UCI_Elo", elo))
        return EngineSpec(f"stockfish-{elo}", (exe,), options)
    if text.startswith("cmd:"):
        command = tuple(shlex.split(text[4:]))
        return EngineSpec(command[0], command)
    sys.exit(f"unknown player {text!r}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first", default="treestrap")
    parser.add_argument("--second", default="sunfish")
    parser.add_argument("--games", type=int, default=20, help="total games (even)")
    parser.add_argument("--tc", default="10+0.1", help="BASE+INC seconds, depth=N or nodes=N")
    parser.add_argument("--openings", default=None, help="opening file (.tsv/.pgn/.epd)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pgn", default=None, help="append every game to this PGN file")
    args = parser.parse_args()
    first, second = player(args.first), player(args.second)
    tc = parse_time_control(args.tc)
    openings = pick_openings(load_openings(args.openings), max(1, args.games // 2), args.seed)
    print(f"{first.name} vs {second.name}, {args.games} games at {tc.describe()}")
    try:
        result = play_match(first, second, openings, tc, args.workers, args.pgn)
    except TournamentStopped as exc:  # games given up, or our engine raised: no score
        print(f"error: {exc}", file=sys.stderr)
        return 1
    score = result.score()
    print(f"\n{first.name} vs {second.name} at {tc.describe()}: {score.describe()}")
    print(result.forfeits())
    for name in (first.name, second.name):
        print(f"losses on time by {name}: {result.time_losses(name)}")
    terminations: dict[str, int] = {}
    for g in result.games:
        terminations[g.termination] = terminations.get(g.termination, 0) + 1
    print("terminations: " + ", ".join(f"{k} {v}" for k, v in sorted(terminations.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
