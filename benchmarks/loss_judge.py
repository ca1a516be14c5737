"""What turned a player's lost games, judged by Stockfish: one move, or a slow slide.

``loss_turns.py`` finds where the player's own score fell. This asks a stronger judge
(Stockfish, a fixed number of nodes a position) when the game was really lost: walking
back from that fall over the player's own moves, it scores the position before each
(from the player's side) until it finds one it does not call lost (> -150 cp). The move
played there is the *decisive move*, and the fall is one of:

- ``one move``: the decisive move turned a level or better game (>= -50) into a lost one;
- ``a slide``: the decisive move only finished a decline the judge had seen coming;
- ``not lost by the judge``: the judge does not call the game lost where the player's
  own score fell;
- ``lost from the start``: the judge had it lost at every own move it scored.

Walking on back, it finds the slide's start (the last own move the judge had level or
better) and the slide's worst move (the one the judge says lost the most). The player's
own search (``--preset``) is run again on the position before that move at ``--nodes``
and at ``--deeper`` times that, and the judge scores the moves it picks: a worst move
the deeper search replaces by one losing under 50 cp is a miss of depth; one it keeps is
a miss of the evaluation. Every search is node-limited, so the figures do not depend on
the machine's load::

    python benchmarks/loss_judge.py runs/zero2x-vs-sf2200/games.pgn zero-2x \
        --judge-nodes 200000 --out runs/loss-judge
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import chess
import chess.engine
import chess.pgn
from loss_turns import node_search, own_scores, player_games, turn
from stockfish_builds import judge_command

LOST, LEVEL, CAP = -150, -50, 1000


@dataclass
class Fall:
    """One lost game's fall as the judge saw it (centipawns, from the player's side)."""

    game: int
    kind: str
    decisive_ply: int | None = None
    own_turn_ply: int | None = None
    judge_before: int | None = None
    judge_after: int | None = None
    own_score: float | None = None
    worst_ply: int | None = None
    worst_loss: int | None = None
    worst_before: int | None = None
    slide_ply: int | None = None
    own_score_at_slide: float | None = None
    judge_best_tactical: bool | None = None
    picked: dict[str, int] | None = None


def _cp(score: chess.engine.PovScore, turn: chess.Color) -> int:
    return max(-CAP, min(CAP, score.pov(turn).score(mate_score=10_000)))


class Judge:
    """Stockfish at a fixed node count, its verdicts cached by FEN."""

    def __init__(self, nodes: int, cache: dict[str, dict]) -> None:
        self.engine = chess.engine.SimpleEngine.popen_uci(judge_command())
        self.engine.configure({"Hash": 64, "Threads": 1})
        self.nodes, self.cache = nodes, cache

    def verdict(self, board: chess.Board) -> dict:
        """``{"cp": score for the side to move, "move": best move}`` of the judge."""
        fen = board.fen()
        if fen not in self.cache:
            if board.is_game_over():
                outcome = board.outcome()
                cp = 0 if outcome is None or outcome.winner is None else -CAP
                self.cache[fen] = {"cp": cp, "move": None}
            else:
                info = self.engine.analyse(
                    board, chess.engine.Limit(nodes=self.nodes), game=object()
                )
                best = info["pv"][0].uci()
                self.cache[fen] = {"cp": _cp(info["score"], board.turn), "move": best}
        return self.cache[fen]

    def after(self, board: chess.Board, move: chess.Move) -> int:
        """The judge's score of ``move`` for the side that plays it."""
        board.push(move)
        try:
            return -self.verdict(board)["cp"]
        finally:
            board.pop()

    def close(self) -> None:
        self.engine.quit()
        self.engine.close()


def own_search(preset: str) -> Callable[[chess.Board, int], chess.Move]:
    """A function searching a board to a node count with the player's preset."""
    from treestrap.evaluation.presets import preset_model

    search = node_search(preset_model(preset))
    return lambda board, nodes: chess.Move.from_uci(search(board, nodes).best_move)


def judge_game(index: int, game: chess.pgn.Game, player: str, judge: Judge) -> Fall | None:
    """The fall of one lost game of ``player``, or None when it has none.

    Walks back from the own move where the player's score fell, over the own moves the
    judge had lost already, to the last one it had not: that one is the decisive move.
    Then on back to the last own move the judge had level or better: the slide's start.
    """
    white = game.headers["White"] == player
    scores = list(own_scores(game, white))
    found = turn(scores)
    if found is None:
        return None
    turn_ply = found[0]
    moves = list(game.mainline_moves())
    own_score = {ply: score for ply, score, _ in scores}
    boards = [game.board()]
    for move in moves[:turn_ply]:
        boards.append(boards[-1].copy(stack=False))
        boards[-1].push(move)
    fall = Fall(game=index, kind="not lost by the judge", own_turn_ply=turn_ply)
    if -judge.verdict(boards[turn_ply])["cp"] > LOST:
        return fall
    fall.kind = "lost from the start"
    for ply in sorted((ply for ply in own_score if ply <= turn_ply), reverse=True):
        before = judge.verdict(boards[ply - 1])["cp"]
        after = -judge.verdict(boards[ply])["cp"]
        if fall.decisive_ply is None and before > LOST:
            fall.kind = "one move" if before >= LEVEL else "a slide"
            fall.decisive_ply, fall.judge_before, fall.judge_after = ply, before, after
            fall.own_score = own_score[ply]
        if fall.decisive_ply is not None:
            if fall.worst_loss is None or before - after > fall.worst_loss:
                fall.worst_ply, fall.worst_loss = ply, before - after
                fall.worst_before = before
            if before >= LEVEL:
                fall.slide_ply, fall.own_score_at_slide = ply, own_score[ply]
                break
    if fall.worst_ply is not None:
        board = boards[fall.worst_ply - 1]
        if (best := judge.verdict(board)["move"]) is not None:
            best_move = chess.Move.from_uci(best)
            fall.judge_best_tactical = board.is_capture(best_move) or board.gives_check(best_move)
    return fall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn", type=Path, help="a tournament's games.pgn")
    parser.add_argument("player", help="the player's name in the PGN")
    parser.add_argument("--preset", default="zero", help="the player's preset (default zero)")
    parser.add_argument("--judge-nodes", type=int, default=500_000)
    parser.add_argument("--nodes", type=int, default=300_000, help="the own search's nodes")
    parser.add_argument("--deeper", type=int, default=8, help="the deeper search's multiple")
    parser.add_argument("--out", type=Path, required=True, help="a folder for the results")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    cache_path = args.out / "judge-cache.json"
    cache = json.loads(cache_path.read_text()) if cache_path.exists() else {}
    judge = Judge(args.judge_nodes, cache)
    falls: list[Fall] = []
    fallen: dict[int, chess.pgn.Game] = {}
    try:
        for index, game, _, outcome in player_games(args.pgn, args.player):
            if outcome != "lost":
                continue
            if (fall := judge_game(index, game, args.player, judge)) is not None:
                falls.append(fall)
                fallen[index] = game
                print(f"game {index}: {fall.kind}", file=sys.stderr, flush=True)
        pick = own_search(args.preset)
        budgets = {"1x": args.nodes, f"{args.deeper}x": args.nodes * args.deeper}
        for fall in falls:
            if fall.worst_ply is None:
                continue
            board = fallen[fall.game].board()
            for move in list(fallen[fall.game].mainline_moves())[: fall.worst_ply - 1]:
                board.push(move)
            fall.picked = {
                name: judge.after(board, pick(board, nodes)) for name, nodes in budgets.items()
            }
    finally:
        cache_path.write_text(json.dumps(cache))
        judge.close()
    (args.out / "falls.json").write_text(json.dumps([asdict(f) for f in falls], indent=1))
    summarise(falls, list(budgets))
    return 0


def summarise(falls: list[Fall], budgets: list[str]) -> None:
    print(f"{len(falls)} falls judged")
    for kind in ("one move", "a slide", "not lost by the judge", "lost from the start"):
        print(f"  {kind}: {sum(f.kind == kind for f in falls)}")
    decisive = [f for f in falls if f.decisive_ply is not None]
    if not decisive:
        return
    median = statistics.median
    lag = [(f.own_turn_ply - f.decisive_ply) // 2 for f in decisive]
    print(
        f"the judge called it lost a median {median(lag):.0f} own moves before the own "
        f"score fell (more than 3 before in {sum(n > 3 for n in lag)} of {len(decisive)})"
    )
    print(f"  own score at the decisive move: median {median(f.own_score for f in decisive):+.2f}")
    slides = [f for f in decisive if f.slide_ply is not None]
    if slides:
        length = [(f.own_turn_ply - f.slide_ply) // 2 + 1 for f in slides]
        own = [f.own_score_at_slide for f in slides]
        print(
            f"slides from level (>= {LEVEL}) to the own fall: {len(slides)}, a median "
            f"{median(length):.0f} own moves; own score at their start: median {median(own):+.2f}"
        )
    worst = [f for f in decisive if f.worst_loss is not None]
    print(
        f"the worst own move of each slide lost a median {median(f.worst_loss for f in worst):.0f}"
        f" cp (>= {-LOST} cp in {sum(f.worst_loss >= -LOST for f in worst)} of {len(worst)}); "
        f"the judge's best move there a capture or check in "
        f"{sum(bool(f.judge_best_tactical) for f in worst)}"
    )
    for name in budgets:
        found = sum(f.picked is not None and f.picked[name] >= f.worst_before - 50 for f in worst)
        print(f"  the own search at {name} nodes finds a move losing < 50 cp there: {found}")


if __name__ == "__main__":
    raise SystemExit(main())
