"""Where a player's lost games turned, read from its own scores in a tournament's PGN.

For every game PLAYER lost, the score it reported with each of its moves (the runner
writes them as move comments, in pawns for the mover): how high it rose, and whether it
fell from level or better (>= -0.3) to clearly lost (<= -1.5) within three of its own
moves, and at which ply and with how many pieces on the board. A sudden fall in the
middlegame says the search and the evaluation did not see the turn coming::

    python benchmarks/loss_turns.py runs/zero7-vs-sf2200/games.pgn zero
"""

from __future__ import annotations

import argparse
import re
import statistics
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import chess
import chess.pgn

if TYPE_CHECKING:
    from treestrap.engine.engine import SearchOutcome
    from treestrap.evaluation.weight_files import ChessModel

#: A move comment's leading score: pawns, or a mate for (+) or against (-) the mover.
SCORE = re.compile(r"\s*([+-]?\d+(?:\.\d+)?|[+-]mate)")
LEVEL, LOST, WITHIN = -0.3, -1.5, 3


def own_scores(game: chess.pgn.Game, white: bool) -> Iterator[tuple[int, float, int]]:
    """``(ply, score, pieces on the board)`` after each of the player's own moves."""
    node, ply = game, 0
    while node.variations:
        node = node.variations[0]
        ply += 1
        found = SCORE.match(node.comment or "")
        if found and (ply % 2 == 1) == white:
            text = found.group(1)
            score = 99.0 if text == "+mate" else -99.0 if text == "-mate" else float(text)
            yield ply, score, len(node.board().piece_map())


def player_games(pgn: Path, player: str) -> Iterator[tuple[int, chess.pgn.Game, bool, str]]:
    """``(number, game, white, outcome)`` for each game ``player`` played in ``pgn``:
    its number in the file (from 1), whether the player had white, and ``"won"``,
    ``"drawn"`` or ``"lost"`` for the player."""
    with pgn.open(encoding="utf-8") as fh:
        number = 0
        while (game := chess.pgn.read_game(fh)) is not None:
            number += 1
            white = game.headers["White"] == player
            if not white and game.headers["Black"] != player:
                continue
            result = game.headers["Result"]
            ours, theirs = ("1-0", "0-1") if white else ("0-1", "1-0")
            outcome = {ours: "won", theirs: "lost", "1/2-1/2": "drawn"}.get(result, "unfinished")
            yield number, game, white, outcome


def node_search(
    model: ChessModel, hash_mb: int = 16
) -> Callable[[chess.Board, int], SearchOutcome]:
    """A function searching a board to a node count with ``model``'s evaluation, from a
    fresh table each time (the engine's own search, as it plays)."""
    from treestrap.core.notation import parse_fen
    from treestrap.engine.engine import Engine
    from treestrap.search.timeman import SearchLimits

    engine = Engine(model.evaluator(), hash_mb=hash_mb)

    def search(board: chess.Board, nodes: int) -> SearchOutcome:
        engine.new_game()
        return engine.go(parse_fen(board.fen()), SearchLimits(nodes=nodes))

    return search


def turn(scores: list[tuple[int, float, int]]) -> tuple[int, float, int] | None:
    """The first own move that fell from level or better to lost within ``WITHIN``."""
    for i in range(1, len(scores)):
        before = [s for _, s, _ in scores[max(0, i - WITHIN) : i]]
        if scores[i][1] <= LOST and max(before) >= LEVEL:
            return scores[i]
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn", type=Path, help="a tournament's games.pgn")
    parser.add_argument("player", help="the player's name in the PGN")
    args = parser.parse_args()
    peaks: list[float] = []
    turns: list[tuple[int, float, int]] = []
    for _, game, white, outcome in player_games(args.pgn, args.player):
        if outcome != "lost":
            continue
        scores = list(own_scores(game, white))
        if not scores:
            continue
        peaks.append(max(s for _, s, _ in scores))
        if (found := turn(scores)) is not None:
            turns.append(found)
    if not peaks:
        raise SystemExit(f"no lost game of {args.player} with scores in {args.pgn}")
    lost = len(peaks)
    print(
        f"{args.player}: {lost} lost games; its own score peaked at a median "
        f"{statistics.median(peaks):+.2f} (at least +1.00 in {sum(p >= 1 for p in peaks)})"
    )
    if turns:
        print(
            f"a fall from >= {LEVEL:+.1f} to <= {LOST:+.1f} within {WITHIN} own moves in "
            f"{len(turns)} of {lost}: median ply {statistics.median(t[0] for t in turns):.0f}, "
            f"median pieces on the board {statistics.median(t[2] for t in turns):.0f}"
        )


if __name__ == "__main__":
    main()
