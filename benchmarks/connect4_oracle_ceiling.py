"""How far can an evaluation of a given shape go on Connect Four when its labels are
perfect? Fits each shape to the exact solver's scores of random positions and writes
the fitted weight files, so ``treestrap measure --game connect4`` can rate them on the
reference positions as it rates any player.

These files are diagnostics, never players of a run: their labels come from the solver
(an oracle), which a learned player may not consult. What they tell: if an evaluation
fitted to exact scores picks a best move no more often than one learned from self-play,
the learning's labels are not what limits it; the evaluation's shape and data are.

Steps (each result kept in ``OUT``, so a second call reuses what the first made):

1. ``positions.txt``: ``N`` random positions (10 to 34 random plies; the game not over,
   the mover unable to win at once), each with its exact score
   (:mod:`treestrap.connect4.solver`: ``22 - the winner's discs``, for the mover),
   solved by ``--workers`` processes.
2. For each size in ``--sizes``, fits on the first that many positions (each also
   mirrored): ``linear-N.npz``, the linear features (:mod:`treestrap.connect4.features`)
   by ridge least squares, and with ``--mlp H1,H2`` ``mlp-N.npz``, a tanh network over
   the cells (:mod:`treestrap.connect4.inputs`) by Adam on the squared error. The target
   keeps a win above every draw and loss and a quicker win above a slower one:
   ``sign(s) * (1 + |s| / 21) / 2`` logits times :data:`TARGET_LOGITS`.
   With ``--ntuple T,L`` also an n-tuple evaluation: ``T`` random walks of ``L`` cells,
   each cell empty, empty and playable now, the mover's or the opponent's, one weight
   per pattern of each tuple (a sparse linear model, fitted by Adam); it has no weight
   file, so only step 4 rates it.
3. ``--depth D`` counts, for each written file, how its depth-``D`` move on the
   reference positions splits by the position's result: best (the solver's largest
   score), keeping the result only, or losing it.
4. Always, from the reference file alone: what knowing each move's exact result (win,
   draw or loss) but not how soon it comes is worth: the best-move share of a player
   who keeps the result and breaks ties centre first, and the mean share when it breaks
   them at random.
5. Always: each shape's "one-ply" share of best moves on the reference positions: a
   move that wins at once, else the move whose position is worst for the opponent by
   the fitted value, never one that lets the opponent win at once. It rates every
   shape the same way, the n-tuples included.

    python benchmarks/connect4_oracle_ceiling.py --out runs/c4-oracle --positions 30000 \\
        --sizes 3000,10000,30000 --mlp 256,32 --depth 4
    treestrap measure --game connect4 runs/c4-oracle/linear-30000.npz \\
        runs/c4-oracle/mlp-30000.npz --depths 2,4,6 --games 0
"""

from __future__ import annotations

import argparse
import collections
import math
import multiprocessing
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

#: The target's scale in logits (a won position with the quickest win: this many).
TARGET_LOGITS = 3.0
#: Ridge penalty of the linear fit (per feature; the features are counts and 0/1).
RIDGE = 10.0
CHUNK = 250


def _random_solved(args: tuple[int, int, int]) -> list[tuple[str, int]]:
    """``count`` random positions from seed ``seed``, each with its exact score."""
    from treestrap.connect4.board import (
        NOT_TERMINAL,
        ST_PLY,
        make_move,
        new_position,
        terminal_value,
    )
    from treestrap.connect4.solver import Solver, can_win_now

    seed, count, table_bits = args
    rng = np.random.default_rng(seed)
    solver = Solver(table_bits)
    found: list[tuple[str, int]] = []
    while len(found) < count:
        pos, moves = new_position(), []
        for _ in range(int(rng.integers(10, 35))):
            col = int(rng.choice([c for c in range(7) if pos.heights[c] < 6]))
            make_move(pos, col)
            moves.append(str(col + 1))
            if terminal_value(pos) != NOT_TERMINAL:
                break
        else:
            ply = int(pos.st[ST_PLY])
            if not can_win_now(pos.discs[ply & 1], pos.discs[0] | pos.discs[1]):
                found.append(("".join(moves), int(solver.solve(pos))))
    return found


def solved_positions(out: Path, n: int, workers: int, seed: int, table_bits: int) -> list:
    """``n`` solved positions from ``out/positions.txt``, solving (and appending, a
    chunk at a time) whatever it lacks."""
    path = out / "positions.txt"
    rows = [line.split() for line in path.read_text().splitlines()] if path.exists() else []
    have = len(rows) // CHUNK
    jobs = [(seed * 1_000_003 + k, CHUNK, table_bits) for k in range(have, math.ceil(n / CHUNK))]
    if jobs:
        start = time.perf_counter()
        print(f"solving {len(jobs) * CHUNK} positions with {workers} workers", flush=True)
        with multiprocessing.Pool(workers) as pool, open(path, "a") as fh:
            for done, chunk in enumerate(pool.imap(_random_solved, jobs), start=1):
                fh.writelines(f"{moves} {score}\n" for moves, score in chunk)
                fh.flush()
                rate = done * CHUNK / (time.perf_counter() - start)
                print(f"  {(have + done) * CHUNK} solved ({rate:.1f}/s)", flush=True)
        rows = [line.split() for line in path.read_text().splitlines()]
    return [(moves, int(score)) for moves, score in rows[:n]]


def _mirror(moves: str) -> str:
    return "".join(str(8 - int(c)) for c in moves)


def _targets(scores: np.ndarray) -> np.ndarray:
    return TARGET_LOGITS * np.sign(scores) * (1.0 + np.abs(scores) / 21.0) / 2.0


def fit_linear(rows: list[tuple[str, int]], path: Path) -> None:
    from treestrap.connect4.board import parse_moves
    from treestrap.connect4.features import SIZE, dense_features
    from treestrap.distill.connect4_fit import POINTS_PER_LOGIT
    from treestrap.games.connect4_model import Connect4Model

    moves = [m for m, _ in rows] + [_mirror(m) for m, _ in rows]
    x = np.stack([dense_features(parse_moves(m)) for m in moves])
    y = _targets(np.array([s for _, s in rows] * 2, dtype=np.float64))
    beta = np.linalg.solve(x.T @ x + RIDGE * np.eye(SIZE), x.T @ y)
    rms = float(np.sqrt(np.mean((x @ beta - y) ** 2)))
    meta = {"preset": "oracle-diagnostic", "positions": len(rows), "fit_rms_logits": rms}
    Connect4Model(beta * POINTS_PER_LOGIT, meta).save(path)
    print(f"{path.name}: {len(rows)} positions, training RMS {rms:.3f} logits", flush=True)


def fit_mlp(rows: list[tuple[str, int]], hidden: list[int], path: Path, epochs: int) -> None:
    import torch

    from treestrap.connect4.board import parse_moves
    from treestrap.connect4.inputs import INPUT_NB, dense_inputs
    from treestrap.evaluation.torch_network import (
        network_parameters_of,
        random_network_parameters,
        torch_network,
    )
    from treestrap.games.connect4_network import Connect4NetworkModel

    moves = [m for m, _ in rows] + [_mirror(m) for m, _ in rows]
    x = np.zeros((len(moves), INPUT_NB))
    for i, m in enumerate(moves):
        dense_inputs(parse_moves(m), x[i])
    # The network's output is for the first player: flip the mover's score when the
    # second player is to move (an odd number of discs).
    first = np.array([1.0 if len(m) % 2 == 0 else -1.0 for m in moves])
    y = torch.tensor(_targets(first * np.array([s for _, s in rows] * 2, dtype=np.float64)))
    sizes = [*hidden, 1]
    torch.manual_seed(0)
    start = random_network_parameters(sizes, 0, 1.0, n_inputs=INPUT_NB)
    net = torch_network(sizes, start, INPUT_NB)
    xt, opt = torch.tensor(x), torch.optim.Adam(net.parameters(), lr=1e-3)
    for epoch in range(1, epochs + 1):
        total = 0.0
        for batch in torch.randperm(len(xt)).split(256):
            opt.zero_grad()
            loss = ((net(xt[batch])[:, 0] - y[batch]) ** 2).mean()
            loss.backward()
            opt.step()
            total += loss.item() * len(batch)
        if epoch % 10 == 0 or epoch == epochs:
            print(f"  {path.name} epoch {epoch}: training RMS {math.sqrt(total / len(xt)):.3f}")
    meta = {"preset": "oracle-diagnostic", "positions": len(rows), "epochs": epochs}
    Connect4NetworkModel(sizes, network_parameters_of(net), meta).save(path)
    print(f"{path.name}: {len(rows)} positions, {epochs} epochs", flush=True)


def ntuple_walks(count: int, length: int, seed: int) -> np.ndarray:
    """``count`` random walks of ``length`` distinct cells (``col * 6 + row``), each step
    to one of the 8 neighbours."""
    rng = np.random.default_rng(seed)
    steps = [(dc, dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1) if (dc, dr) != (0, 0)]
    walks = []
    while len(walks) < count:
        cells = [(int(rng.integers(7)), int(rng.integers(6)))]
        for _ in range(50 * length):
            if len(cells) == length:
                break
            dc, dr = steps[int(rng.integers(8))]
            nxt = (cells[-1][0] + dc, cells[-1][1] + dr)
            if 0 <= nxt[0] < 7 and 0 <= nxt[1] < 6 and nxt not in cells:
                cells.append(nxt)
        if len(cells) == length:
            walks.append([c * 6 + r for c, r in cells])
    return np.array(walks)


def cell_states(pos: Any) -> np.ndarray:
    """Each cell for the mover: 0 empty, 1 empty and playable now, 2 own, 3 the other's."""
    from treestrap.connect4.board import ST_PLY

    ply = int(pos.st[ST_PLY])
    own, other = int(pos.discs[ply & 1]), int(pos.discs[1 - (ply & 1)])
    states = np.zeros(42, dtype=np.int64)
    for col in range(7):
        for row in range(6):
            bit = 1 << (col * 7 + row)
            empty = 1 if row == int(pos.heights[col]) else 0
            states[col * 6 + row] = 2 if own & bit else 3 if other & bit else empty
    return states


class NTuple:
    """A sparse linear value over the patterns of random cell tuples."""

    def __init__(self, count: int, length: int, seed: int) -> None:
        import torch

        self.walks = ntuple_walks(count, length, seed)
        self.powers = 4 ** np.arange(length)
        self.offsets = np.arange(count) * 4**length
        self.table = torch.nn.EmbeddingBag(count * 4**length, 1, mode="sum")
        torch.nn.init.zeros_(self.table.weight)

    def indices(self, pos: Any) -> np.ndarray:
        return (cell_states(pos)[self.walks] * self.powers).sum(1) + self.offsets

    def fit(self, rows: list[tuple[str, int]], epochs: int) -> float:
        import torch

        from treestrap.connect4.board import parse_moves

        moves = [m for m, _ in rows] + [_mirror(m) for m, _ in rows]
        idx = torch.tensor(np.stack([self.indices(parse_moves(m)) for m in moves]))
        y = torch.tensor(_targets(np.array([s for _, s in rows] * 2, dtype=np.float64)))
        opt, total = torch.optim.Adam(self.table.parameters(), lr=0.01), 0.0
        for _ in range(epochs):
            total = 0.0
            for batch in torch.randperm(len(idx)).split(256):
                opt.zero_grad()
                loss = ((self.table(idx[batch])[:, 0] - y[batch].float()) ** 2).mean()
                loss.backward()
                opt.step()
                total += loss.item() * len(batch)
        return math.sqrt(total / len(idx))

    def value(self, pos: Any) -> float:
        import torch

        with torch.no_grad():
            return float(self.table(torch.tensor(self.indices(pos))[None])[0, 0])


def one_ply_share(value: Callable[[Any], float], reference: str) -> float:
    """The share of reference positions where the one-ply choice (module docstring)
    is a best move."""
    from treestrap.connect4.board import (
        NOT_TERMINAL,
        ST_PLY,
        make_move,
        parse_moves,
        terminal_value,
        unmake_move,
    )
    from treestrap.connect4.solver import can_win_now
    from treestrap.play.connect4.reference import load_reference

    refs = load_reference(reference)
    hits = 0
    for ref in refs:
        pos, choice = parse_moves(ref.moves), (-math.inf, -1)
        for col in (3, 2, 4, 1, 5, 0, 6):
            if pos.heights[col] >= 6:
                continue
            make_move(pos, col)
            ply = int(pos.st[ST_PLY])
            if terminal_value(pos) != NOT_TERMINAL:
                score = math.inf
            elif can_win_now(pos.discs[ply & 1], pos.discs[0] | pos.discs[1]):
                score = -1e30
            else:
                score = -value(pos)
            unmake_move(pos)
            choice = max(choice, (score, col), key=lambda pair: pair[0])
        hits += ref.is_best(choice[1])
    return hits / len(refs)


def result_only_shares(reference: str) -> tuple[float, float, float]:
    """(centre-first, random-tie expectation, single result-keeping move) shares of a
    player that knows each move's result but not its distance."""
    from treestrap.play.connect4.reference import load_reference

    refs = load_reference(reference)
    centre = expected = single = 0.0
    for ref in refs:
        keeping = [
            c for c in (3, 2, 4, 1, 5, 0, 6) if ref.scores[c] > -1000 and ref.keeps_result(c)
        ]
        centre += ref.is_best(keeping[0])
        expected += sum(ref.is_best(c) for c in keeping) / len(keeping)
        single += len(keeping) == 1
    n = len(refs)
    return centre / n, expected / n, single / n


def breakdown(path: Path, depth: int, reference: str) -> collections.Counter:
    """``(result, kind)`` counts of the file's depth-``depth`` moves on the reference
    positions: kind is best, keeps (the result, not the best score) or loses."""
    from treestrap.connect4.board import parse_moves
    from treestrap.connect4.search import Connect4Search
    from treestrap.games.connect4_model import load_connect4_model
    from treestrap.play.connect4.reference import load_reference

    ev = load_connect4_model(path).evaluator()
    counts: collections.Counter = collections.Counter()
    for ref in load_reference(reference):
        col = Connect4Search(tt_bits=16).search(parse_moves(ref.moves), ev, depth=depth).best_move
        result = "win" if ref.best > 0 else "loss" if ref.best < 0 else "draw"
        kind = "best" if ref.is_best(col) else "keeps" if ref.keeps_result(col) else "loses"
        counts[result, kind] += 1
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--positions", type=int, default=30000)
    ap.add_argument("--sizes", default="", help="fit sizes (default: --positions)")
    ap.add_argument("--mlp", default="", help="hidden widths of a cell network, e.g. 256,32")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--ntuple", default="", help="T,L: T random tuples of L cells")
    ap.add_argument("--depth", type=int, default=0, help="split the moves at this depth")
    ap.add_argument("--reference", default="reference/connect4/solved-1000.txt")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--table-bits", type=int, default=22)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows = solved_positions(args.out, args.positions, args.workers, args.seed, args.table_bits)
    scores = np.array([s for _, s in rows])
    print(
        f"{len(rows)} positions: won {np.mean(scores > 0):.1%}, drawn {np.mean(scores == 0):.1%}"
        f", lost {np.mean(scores < 0):.1%} for the mover"
    )
    files = []
    for size in [int(s) for s in (args.sizes or str(args.positions)).split(",")]:
        files.append(args.out / f"linear-{size}.npz")
        if not files[-1].exists():
            fit_linear(rows[:size], files[-1])
        if args.mlp:
            files.append(args.out / f"mlp-{size}.npz")
            if not files[-1].exists():
                hidden = [int(h) for h in args.mlp.split(",")]
                fit_mlp(rows[:size], hidden, files[-1], args.epochs)
    from treestrap.games.connect4_model import load_connect4_model

    centre, expected, single = result_only_shares(args.reference)
    print(
        f"\nknowing each move's result, not its distance: {centre:.1%} best moves with "
        f"centre-first ties, {expected:.1%} with random ties ({single:.1%} of the positions "
        "have one result-keeping move)"
    )
    print("\none-ply share of best moves on the reference positions:")
    for path in files:
        model = load_connect4_model(path)
        print(f"  {path.name:18s} {one_ply_share(model.evaluate, args.reference):.1%}", flush=True)
    if args.ntuple:
        count, length = (int(v) for v in args.ntuple.split(","))
        for size in [int(s) for s in (args.sizes or str(args.positions)).split(",")]:
            shape = NTuple(count, length, args.seed)
            rms = shape.fit(rows[:size], args.epochs)
            share = one_ply_share(shape.value, args.reference)
            name = f"ntuple-{count}x{length}-{size}"
            print(f"  {name:18s} {share:.1%} (training RMS {rms:.3f} logits)", flush=True)
    if args.depth:
        print(f"\nmoves at depth {args.depth} by the position's result (best / keeps / loses):")
        for path in files:
            counts = breakdown(path, args.depth, args.reference)
            cells = [
                f"{r} {counts[r, 'best']}/{counts[r, 'keeps']}/{counts[r, 'loses']}"
                for r in ("win", "draw", "loss")
            ]
            print(f"  {path.name:18s} " + "   ".join(cells))


if __name__ == "__main__":
    main()
