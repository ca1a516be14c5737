"""A player's drawn games that it thought it was winning, judged by Stockfish.

For every drawn game of the player, the position after the own move whose score peaked
over its last ``--last`` own moves is taken; where that peak is ``--ahead`` pawns or
more, Stockfish (a fixed number of nodes a position, its verdicts cached in ``OUT``)
scores the same position from the player's side. A judge that agrees (>= +150 cp) says
the win was there and the player did not convert it; a judge that calls it level
(-50 to +50) says the player's evaluation overrated a drawn position::

    python benchmarks/draw_judge.py runs/zero-fast3-vs-sf2200/games.pgn zero-fast3 \
        --judge-nodes 1000000 --out runs/draw-judge

Printed: one row a game (the peak, the judge's score, how the game ended, the material
there) and the count of each verdict. ``--rescore NAME=FILE`` (repeatable) searches
each of those positions again with the weight file ``FILE`` at ``--rescore-nodes`` and
adds its scores (pawns, the player's side) as a column, with their mean over the
positions the judge calls level: how far another network still takes those draws for
wins. Every search is node-limited, so the figures do not depend on the machine's load.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Callable
from pathlib import Path

import chess
import chess.pgn
from loss_judge import Judge
from loss_turns import node_search, own_scores, player_games

AGREES, BETTER, WORSE = 150, 50, -50


def rescorer(path: Path, nodes: int) -> Callable[[chess.Board], float]:
    """The score (pawns, side to move) of a search of a board with the weights of
    ``path`` to ``nodes`` nodes."""
    from treestrap.evaluation.weight_files import load_weights

    search = node_search(load_weights(path))
    return lambda board: search(board, nodes).score / 100


def material(board: chess.Board, white: bool) -> str:
    """The pieces on the board as ``KRB-KR``: the player's first, kings and pawns
    included."""
    order = "KQRBNP"

    def side(color: bool) -> str:
        pieces = [p.symbol().upper() for p in board.piece_map().values() if p.color == color]
        return "".join(sorted(pieces, key=order.index))

    return f"{side(white)}-{side(not white)}"


VERDICTS = ("worse by the judge", "level by the judge", "better by the judge", "won by the judge")


def verdict(cp: int) -> str:
    """The judge's word on a position the player scored as well ahead."""
    if cp >= AGREES:
        return VERDICTS[3]
    if cp >= BETTER:
        return VERDICTS[2]
    return VERDICTS[1] if cp >= WORSE else VERDICTS[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn", type=Path, help="a tournament's games.pgn")
    parser.add_argument("player", help="the player's name in the PGN")
    parser.add_argument("--ahead", type=float, default=1.5, help="the peak, in pawns")
    parser.add_argument("--last", type=int, default=20, help="own moves before the end")
    parser.add_argument("--judge-nodes", type=int, default=1_000_000)
    parser.add_argument("--out", type=Path, required=True, help="a folder for the cache")
    parser.add_argument("--rescore", action="append", default=[], metavar="NAME=FILE")
    parser.add_argument("--rescore-nodes", type=int, default=100_000)
    args = parser.parse_args()
    rescore = {}
    for item in args.rescore:
        name, _, path = item.partition("=")
        if not name or not Path(path).is_file():
            parser.error(f"--rescore {item}: NAME=FILE of a weight file")
        rescore[name] = rescorer(Path(path), args.rescore_nodes)
    args.out.mkdir(parents=True, exist_ok=True)
    cache_path = args.out / "judge-cache.json"
    cache = json.loads(cache_path.read_text()) if cache_path.exists() else {}
    judge = Judge(args.judge_nodes, cache)
    draws = 0
    rows: list[tuple[str, float, int, str, str, list[float]]] = []
    try:
        for index, game, white, outcome in player_games(args.pgn, args.player):
            if outcome != "drawn":
                continue
            draws += 1
            scores = list(own_scores(game, white))[-args.last :]
            if not scores:
                continue
            ply, peak, _ = max(scores, key=lambda s: s[1])
            if peak < args.ahead:
                continue
            board = game.board()
            for move in list(game.mainline_moves())[:ply]:
                board.push(move)
            cp = -judge.verdict(board)["cp"]  # the opponent is to move
            again = [-search(board) for search in rescore.values()]
            ending = game.headers.get("Termination", "?")
            rows.append((f"{index}", peak, cp, ending, material(board, white), again))
    finally:
        cache_path.write_text(json.dumps(cache))
        judge.close()
    names = "".join(f" {name} |" for name in rescore)
    print(f"| game | own peak (pawns) | judge (cp, player's side) | ended by | material |{names}")
    print("|---|---|---|---|---|" + "---|" * len(rescore))
    for game_no, peak, cp, ending, pieces, again in sorted(rows, key=lambda r: r[2]):
        others = "".join(f" {x:+.2f} |" for x in again)
        print(f"| {game_no} | {peak:+.2f} | {cp:+d} | {ending} | {pieces} |{others}")
    counts = dict.fromkeys(VERDICTS, 0)
    for row in rows:
        counts[verdict(row[2])] += 1
    summary = ", ".join(f"{n} {name}" for name, n in counts.items())
    print(
        f"\n{draws} draws, {len(rows)} after an own score of +{args.ahead:.2f} or more: {summary}"
    )
    level = [row[5] for row in rows if verdict(row[2]) == VERDICTS[1]]
    for i, name in enumerate(rescore):
        if level:
            mean = statistics.fmean(again[i] for again in level)
            print(f"{name} at {args.rescore_nodes:,} nodes: {mean:+.2f} on the level ones")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
