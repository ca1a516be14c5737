"""What a timed Connect Four player's proof (``treestrap.connect4.proof``) costs and
how to share a move's time between it and the deepening, on the early positions of
``connect4/solved-1000.txt`` (where the best moves are missed).

``--part roots``: each position's exact score and a best move by a proof without a
node limit, from an empty table: milliseconds by the number of discs, and the share a
proof finishes within a move's time after the deepening's share.

``--part misses``: the player (``ntuple:time=S``) over the positions: by the number of
discs, the positions, the moves a proof settled and the best moves missed.

``--part shares``: the player (``ntuple:time=S`` by default) at each deepening share
(``DEEPENING_SHARE`` of ``treestrap.games.connect4_players``): best moves missed and
moves a proof settled.

``--part windows``: where an exact score's nodes go, from an empty table: the two null
windows that settle it (the score is at least ``s``, at most ``s``) against the windows
whose bounds lie further from it, which a better first guess could save.

``--part needs``: the positions where the deepening alone (``proof=0``, the whole time)
misses a best move, and what an exact proof of each needs from an empty table: how many
a proof would settle within the move's time if it were 1, 2, 3, 5 or 10 times as fast.

Examples (from the repository root)::

    python benchmarks/connect4_proof.py --part roots
    python benchmarks/connect4_proof.py --part roots --discs 8 --table-bits 20
    python benchmarks/connect4_proof.py --part roots --moves 444447
    python benchmarks/connect4_proof.py --part misses --discs 8-42
    python benchmarks/connect4_proof.py --part shares --shares 0.03,0.1,0.2,0.3,0.6
    python benchmarks/connect4_proof.py --part needs --discs 8-12
    python benchmarks/connect4_proof.py --part windows --discs 8-9

Prints tables; nothing is checked (the tests do that). Times a move, so run it on a
quiet machine.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from treestrap.connect4.bits import CELLS
from treestrap.connect4.board import parse_moves
from treestrap.connect4.proof import TABLE_BITS, Proof
from treestrap.games import connect4_players
from treestrap.games.connect4_players import make_player, parse_connect4_player
from treestrap.play.connect4.reference import ReferencePosition, load_reference

REFERENCE = Path(__file__).resolve().parents[1] / "reference" / "connect4" / "solved-1000.txt"


def roots(positions: list[ReferencePosition], seconds: float, table_bits: int) -> None:
    proof = Proof(table_bits)
    within = seconds * (1 - connect4_players.DEEPENING_SHARE)
    by_discs: dict[int, list[float]] = {}
    for ref in positions:
        proof.clear()
        started = time.perf_counter()
        found = proof.best_move(parse_moves(ref.moves), max_nodes=2**62)
        took = time.perf_counter() - started
        assert found is not None and found.score == ref.best and ref.is_best(found.move)
        by_discs.setdefault(len(ref.moves), []).append(took)
    print(f"| discs | positions | mean ms | median ms | 90% ms | most ms | within {within:g} s |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for discs, took in sorted(by_discs.items()):
        t = np.array(took) * 1000
        share = float(np.mean(t < within * 1000))
        print(
            f"| {discs} | {len(t)} | {t.mean():.0f} | {np.median(t):.0f} | "
            f"{np.percentile(t, 90):.0f} | {t.max():.0f} | {100 * share:.0f}% |"
        )


def shares(positions: list[ReferencePosition], spec: str, values: list[float]) -> None:
    print("| deepening share | best moves missed | moves a proof settled |")
    print("|---:|---:|---:|")
    for share in values:
        connect4_players.DEEPENING_SHARE = share
        player = make_player(parse_connect4_player(spec))
        missed = 0
        for ref in positions:
            player.new_game(0)
            missed += not ref.is_best(player.choose(parse_moves(ref.moves)))
        proven = player.proven  # type: ignore[attr-defined]
        print(f"| {share:g} | {missed} of {len(positions)} | {proven} |")


def misses(positions: list[ReferencePosition], spec: str) -> None:
    player = make_player(parse_connect4_player(spec))
    rows: dict[int, list[int]] = {}
    for ref in positions:
        player.new_game(0)
        before = player.proven  # type: ignore[attr-defined]
        move = player.choose(parse_moves(ref.moves))
        row = rows.setdefault(len(ref.moves), [0, 0, 0, 0])
        row[0] += 1
        row[1] += player.proven > before  # type: ignore[attr-defined]
        row[2] += not ref.is_best(move)
        row[3] += not ref.keeps_result(move)
    print("| discs | positions | a proof settled | best moves missed | results lost |")
    print("|---:|---:|---:|---:|---:|")
    for discs, (n, proven, missed, lost) in sorted(rows.items()):
        print(f"| {discs} | {n} | {proven} | {missed} | {lost} |")
    total = [sum(r[i] for r in rows.values()) for i in range(4)]
    print(f"| all | {total[0]} | {total[1]} | {total[2]} | {total[3]} |")


def needs(positions: list[ReferencePosition], spec: str, seconds: float) -> None:
    player = make_player(parse_connect4_player(f"{spec}:proof=0"))
    missed = []
    for ref in positions:
        player.new_game(0)
        if not ref.is_best(player.choose(parse_moves(ref.moves))):
            missed.append(ref)
    proof = Proof()
    took = []
    for ref in missed:
        proof.clear()
        started = time.perf_counter()
        proof.best_move(parse_moves(ref.moves), max_nodes=2**62)
        took.append(time.perf_counter() - started)
    t = np.sort(np.array(took)) * 1000
    print(f"the deepening alone at {seconds:g} s missed {len(missed)} of {len(positions)}")
    print(f"proof ms of those: median {np.median(t):.0f}, 90% {np.percentile(t, 90):.0f}")
    print("| a proof this much faster | misses it would settle within the move | left |")
    print("|---:|---:|---:|")
    for speed in (1, 2, 3, 5, 10):
        settled = int(np.sum(t < seconds * 1000 * speed))
        print(f"| {speed}x | {settled} | {len(missed) - settled} |")


def windows(positions: list[ReferencePosition], table_bits: int) -> None:
    solver = Proof(table_bits).search
    bounds: list[tuple[int, int, int]] = []  # (low, high, nodes) after each window
    mark = [0]

    def on_bound(low: int, high: int) -> None:
        bounds.append((low, high, solver.nodes - mark[0]))
        mark[0] = solver.nodes

    settling = further = count = 0
    for ref in positions:
        solver.clear()
        bounds.clear()
        mark[0] = solver.nodes
        score = solver.solve(parse_moves(ref.moves), on_bound=on_bound)
        assert score == ref.best
        last_low = -((CELLS - len(ref.moves)) // 2)  # the bounds before the first window
        for low, high, nodes in bounds:
            # a window settles the score when the bound it moved lands on it
            moved = low if low != last_low else high
            if moved == score:
                settling += nodes
            else:
                further += nodes
            last_low = low
        count += len(bounds)
    total = settling + further
    print(f"{len(positions)} positions, {count / len(positions):.1f} windows each")
    print("| windows | million nodes | share |")
    print("|---|---:|---:|")
    print(f"| the two that settle the score | {settling / 1e6:,.0f} | {settling / total:.0%} |")
    print(f"| those whose bound lies further | {further / 1e6:,.0f} | {further / total:.0%} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parts = ("roots", "misses", "shares", "needs", "windows")
    parser.add_argument("--part", choices=parts, required=True)
    parser.add_argument("--positions", default=str(REFERENCE))
    parser.add_argument("--discs", default="8-11", help="positions with this many discs")
    parser.add_argument("--seconds", type=float, default=0.1, help="a move's time")
    parser.add_argument("--player", default="ntuple", help="the player spec, without time=")
    parser.add_argument("--shares", default="0.03,0.1,0.2,0.3,0.6")
    parser.add_argument("--table-bits", type=int, default=TABLE_BITS, help="roots: table size")
    parser.add_argument("--moves", default="", help="roots: this position instead (columns 1-7)")
    args = parser.parse_args()
    low, _, high = args.discs.partition("-")
    lo, hi = int(low), int(high or low)
    positions = [r for r in load_reference(args.positions) if lo <= len(r.moves) <= hi]
    if args.moves:
        proof = Proof(args.table_bits)
        started = time.perf_counter()
        found = proof.best_move(parse_moves(args.moves), max_nodes=2**62)
        print(f"{args.moves}: {found} in {time.perf_counter() - started:.2f} s")
        return
    if args.part == "roots":
        roots(positions, args.seconds, args.table_bits)
    elif args.part == "misses":
        misses(positions, f"{args.player}:time={args.seconds:g}")
    elif args.part == "windows":
        windows(positions, args.table_bits)
    elif args.part == "needs":
        needs(positions, f"{args.player}:time={args.seconds:g}", args.seconds)
    else:
        values = [float(s) for s in args.shares.split(",")]
        shares(positions, f"{args.player}:time={args.seconds:g}", values)


if __name__ == "__main__":
    main()
