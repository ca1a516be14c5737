"""Does a network run generalise? The divergence of two network files (a run's start
and a later checkpoint) from held-out samples of the start's own searches.

    python benchmarks/held_out_divergence.py RUN/checkpoints/game-000000.npz RUN/weights.npz

Held-out positions come from seeded random games (not from the run); each is searched
to depth 2 by the start network, and its table walk gives samples with quiescence
leaves exactly as a training run adds them. Per sample the error is 0 inside its
bounds, else the KL divergence of ``sigmoid(z)`` from the violated bound (soft
cross-entropy less the bound's entropy: the run's ``replay_loss`` keeps that entropy,
so it jumps at a bound and does not fall as the fit improves). A network that learned
something general has a smaller mean on these samples than its start.
"""

from __future__ import annotations

import argparse
import random

import numpy as np
import torch

from treestrap.core.makemove import make_move
from treestrap.core.notation import format_fen, legal_moves, parse_fen
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.torch_network import torch_network
from treestrap.evaluation.weight_files import load_weights
from treestrap.learn.objectives_network import bounded_targets, objective_loss
from treestrap.learn.replay import ReplaySet, hybrid_tree_samples
from treestrap.search.context import new_context
from treestrap.search.training import TrainingSearch
from treestrap.search.tree import new_tree
from treestrap.search.tt_walk import walk_tt

START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def random_positions(n: int, seed: int) -> list[str]:
    """Positions after 10 to 50 random plies of games that have not ended."""
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < n:
        pos = parse_fen(START_FEN)
        for _ in range(rng.randint(10, 50)):
            moves = legal_moves(pos)
            if not moves:
                break
            make_move(pos, rng.choice(moves))
        if legal_moves(pos):
            out.append(format_fen(pos))
    return out


def samples(model: NetworkModel, fens: list[str]) -> ReplaySet:
    replay = ReplaySet(200_000)
    ev = model.evaluator()
    for fen in fens:
        search = TrainingSearch(tt_bits=14)
        search.search(parse_fen(fen), ev, 2)
        tree = new_tree(1 << 14, features_per_node=40)
        walk_tt(parse_fen(fen), ev, search.tt, tree, search.ctx, 1, new_context(), True)
        replay.add(*hybrid_tree_samples(tree, 500, leaves=True))
    return replay


def divergence(model: NetworkModel, replay: ReplaySet) -> float:
    n = replay.size
    x = torch.from_numpy(replay.inputs[:n].astype(np.float64))
    with torch.no_grad():
        scores = torch_network(model.sizes, model.weights)(x)
    z = (scores[:, 0] - scores[:, 2]).numpy() + replay.offset[:n]
    target, active = bounded_targets(z, replay.lower[:n], replay.upper[:n])
    v = np.clip(target, 1e-12, 1 - 1e-12)
    entropy = -(v * np.log(v) + (1 - v) * np.log1p(-v))
    return float(np.where(active, objective_loss("soft-ce", z, target) - entropy, 0.0).mean())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("start", help="the run's starting network file")
    ap.add_argument("trained", nargs="+", help="later network files of the run")
    ap.add_argument("--positions", type=int, default=100)
    ap.add_argument("--seed", type=int, default=99)
    args = ap.parse_args()
    torch.set_num_threads(1)
    start = load_weights(args.start)
    if not isinstance(start, NetworkModel):
        ap.error(f"{args.start} is not a network file")
    replay = samples(start, random_positions(args.positions, args.seed))
    print(f"{replay.size} held-out samples from {args.positions} positions")
    print(f"  {args.start}: {divergence(start, replay):.6f}")
    for path in args.trained:
        model = load_weights(path)
        assert isinstance(model, NetworkModel), path
        print(f"  {path}: {divergence(model, replay):.6f}")


if __name__ == "__main__":
    main()
