"""What a tournament-search feature does to the moves picked at a fixed time a move.

Games tell strength best, but a self-play match needs hundreds of games to see 20 Elo.
This is the quicker look: the same positions (one from each of the first N games of
the master games file, at a random ply from 16 to 70, the mover not in check) searched
for ``--movetime`` seconds by each variant of the search, each move then judged by
Stockfish at a fixed depth: its loss is the judge's score of the best move less its
score of the move picked (centipawns, capped at 1000). The mean loss comes with its
95% interval, and each variant's difference from the first, position by position.

Variants: ``default`` (the search's default switches), ``default+NAME`` (with one
switch of ``EngineOptions`` on), ``all`` (every later switch on as well), ``all-NAME``
(that with one off). Run with nothing else on the machine::

    python benchmarks/search_move_loss.py default all all-razoring --out runs/move-loss
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from pathlib import Path

import chess
import chess.engine
import chess.pgn
from stockfish_builds import judge_command

REPO = Path(__file__).resolve().parents[1]
#: The first 350 games of The Week in Chess 920, as shipped (reference/README.md): the
#: 300 positions of the default run come from them.
GAMES = REPO / "reference" / "games" / "twic0920-sample.pgn"
CAP = 1000


def sample_positions(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    fens: list[str] = []
    with GAMES.open(encoding="utf-8", errors="replace") as handle:
        while len(fens) < count:
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            moves = list(game.mainline_moves())
            if len(moves) < 20:
                continue
            ply = rng.randint(16, min(70, len(moves) - 1))
            board = game.board()
            for move in moves[:ply]:
                board.push(move)
            if board.is_check() or board.legal_moves.count() < 2:
                continue
            fens.append(board.fen())
    return fens


def options_for(variant: str):  # -> EngineOptions
    from treestrap.search.tournament import EngineOptions

    default = EngineOptions()
    later = [name for name, on in EngineOptions._field_defaults.items() if on is False]
    every = default._replace(**{name: True for name in later})
    if variant == "default":
        return default
    if variant == "all":
        return every
    if variant.startswith("default+") and variant[8:] in EngineOptions._fields:
        return default._replace(**{variant[8:]: True})
    if variant.startswith("all-") and variant[4:] in EngineOptions._fields:
        return every._replace(**{variant[4:]: False})
    raise SystemExit(f"unknown variant {variant!r}")


def play(variant: str, fens: list[str], movetime: float, preset: str) -> list[str]:
    from treestrap.core.notation import parse_fen
    from treestrap.engine.engine import Engine
    from treestrap.evaluation.presets import preset_model
    from treestrap.search.timeman import SearchLimits

    engine = Engine(preset_model(preset).evaluator(), hash_mb=16, options=options_for(variant))
    engine.go(parse_fen(fens[0]), SearchLimits(depth=3))  # compiled before the clock runs
    picked = []
    for fen in fens:
        engine.new_game()
        picked.append(engine.go(parse_fen(fen), SearchLimits(movetime=movetime)).best_move)
    return picked


def _centipawns(score: chess.engine.PovScore, board: chess.Board) -> int:
    return score.pov(board.turn).score(mate_score=10_000)


def judge(fens: list[str], picks: dict[str, list[str]], depth: int, cache: Path) -> dict:
    known = json.loads(cache.read_text()) if cache.exists() else {}
    with chess.engine.SimpleEngine.popen_uci(judge_command()) as sf:
        sf.configure({"Hash": 64, "Threads": 1})
        for i, fen in enumerate(fens):
            entry = known.setdefault(fen, {"moves": {}})
            board = chess.Board(fen)
            if "best" not in entry:
                info = sf.analyse(board, chess.engine.Limit(depth=depth))
                entry["best"] = _centipawns(info["score"], board)
                entry["best_move"] = info["pv"][0].uci()
            for moves in picks.values():
                move = moves[i]
                if move in entry["moves"]:
                    continue
                if move == entry["best_move"]:
                    entry["moves"][move] = entry["best"]
                    continue
                board.push_uci(move)
                info = sf.analyse(board, chess.engine.Limit(depth=depth - 1))
                entry["moves"][move] = -_centipawns(info["score"], board)
                board.pop()
            if i % 50 == 49:
                cache.write_text(json.dumps(known))
    cache.write_text(json.dumps(known))
    return known


def _mean_interval(values: list[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return mean, half


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("variants", nargs="+")
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--movetime", type=float, default=0.2)
    ap.add_argument("--depth", type=int, default=14, help="the judge's depth (default 14)")
    ap.add_argument("--preset", default="zero")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    for variant in args.variants:
        options_for(variant)  # a bad name fails before any search
    args.out.mkdir(parents=True, exist_ok=True)
    fens = sample_positions(args.positions, args.seed)
    picks_file = args.out / f"picks-{args.preset}-{args.movetime}.json"
    picks = json.loads(picks_file.read_text()) if picks_file.exists() else {}
    for variant in args.variants:
        if variant not in picks or len(picks[variant]) != len(fens):
            print(f"searching: {variant}", file=sys.stderr, flush=True)
            picks[variant] = play(variant, fens, args.movetime, args.preset)
            picks_file.write_text(json.dumps(picks))
    chosen = {v: picks[v] for v in args.variants}
    known = judge(fens, chosen, args.depth, args.out / f"judge-d{args.depth}.json")
    losses = {
        v: [
            min(CAP, max(0, known[f]["best"] - known[f]["moves"][m]))
            for f, m in zip(fens, ms, strict=True)
        ]
        for v, ms in chosen.items()
    }
    first = args.variants[0]
    print(
        f"{len(fens)} positions, {args.movetime} s a move, {args.preset}, judge depth {args.depth}"
    )
    print(f"| variant | mean loss (cp, 95%) | judge's move | loss > 100 | vs {first} (cp, 95%) |")
    print("|---|---|---|---|---|")
    for v, loss in losses.items():
        mean, half = _mean_interval(loss)
        same = sum(m == known[f]["best_move"] for f, m in zip(fens, chosen[v], strict=True)) / len(
            fens
        )
        big = sum(x > 100 for x in loss)
        diff, dhalf = _mean_interval([a - b for a, b in zip(loss, losses[first], strict=True)])
        print(
            f"| {v} | {mean:.1f} ±{half:.1f} | {100 * same:.1f}% | {big} | "
            f"{diff:+.1f} ±{dhalf:.1f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
