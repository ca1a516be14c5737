"""Nodes per second of the searches with network evaluators, against linear meep.

What it measures, in one run, on the positions of ``treestrap bench``
(:data:`treestrap.engine.bench.BENCH_FENS`):

* the training alpha-beta (``TrainingSearch().search(pos, ev, depth)``, a cleared
  table each time) and the tournament search (``Engine.go`` to a fixed depth, as
  ``treestrap bench`` does), nodes (main + quiescence) per second summed over the
  positions, best of ``--repeats``;
* for these evaluators: the linear meep model with the ``learned`` weights (the peer
  every ratio is taken against) and with the hand-set ones, logistic regression on the
  bitboard inputs run as a network, and an MLP with ``--hidden`` tanh units (default
  20, Serban's size) or the network file of ``--mlp`` (a hybrid too: network plus linear
  meep), once with the first-layer accumulator kept incrementally and once recomputed
  at every evaluation.

The networks' weights score about the hand-set material with seeded noise (speed per
node does not depend on the values, but random weights make quiescence trees explode),
or come from the network file given with ``--mlp``. Each evaluator searches
its own tree, so node counts differ; nodes per second are what compare. Everything is
compiled (or loaded from the cache) before it is timed. The aims are printed beside
the result: MLP(20) with the accumulator at least half the speed of linear meep, and a
network that is to replace the ``learned`` weights (issue 26) at least 0.6 times their
speed in the tournament search.

Run from the repository root with the project's virtual environment active::

    python benchmarks/network_nps.py            # a minute or two
    python benchmarks/network_nps.py --quick    # shallow searches, one repeat
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from treestrap.core.notation import parse_fen
from treestrap.engine.bench import BENCH_FENS
from treestrap.engine.engine import Engine
from treestrap.evaluation.model import Evaluator
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.outcome import CENTIPAWNS_PER_LOGIT
from treestrap.evaluation.presets import hand_set_bitboard, hand_set_model, learned_model
from treestrap.evaluation.weight_files import load_weights
from treestrap.search.timeman import SearchLimits
from treestrap.search.training import TrainingSearch

#: Pre-activation of a hidden unit per centipawn of material: a pawn is 0.1, so tanh
#: stays near its linear range in ordinary positions.
HIDDEN_PER_CENTIPAWN = 1e-3
#: Relative spread of the random part of the weights.
NOISE = 0.1


def materialistic_network(sizes: list[int], seed: int, activation: str = "tanh") -> NetworkModel:
    """A logistic regression (``[1]``) or one-hidden-layer MLP (``[h, 1]``) that scores
    about the hand-set material (so searches build trees of ordinary size, which random
    weights do not: quiescence explodes without material values), with seeded noise."""
    rng = np.random.default_rng(seed)
    material = hand_set_bitboard()
    if sizes == [1]:
        w0 = material / CENTIPAWNS_PER_LOGIT
        w0 = w0 + rng.normal(0.0, NOISE * 0.5, w0.shape)
        return NetworkModel(sizes, np.concatenate([w0, [0.0]]))
    (hidden,) = sizes[:-1]
    w0 = np.outer(material * HIDDEN_PER_CENTIPAWN, np.ones(hidden))
    w0 += rng.normal(0.0, NOISE * 0.1 * HIDDEN_PER_CENTIPAWN * 100, w0.shape)
    # One pawn of material should read as 100 centipawns: logit 100 / C.
    v = (100.0 / CENTIPAWNS_PER_LOGIT) / (hidden * 100 * HIDDEN_PER_CENTIPAWN)
    top = v * (1.0 + rng.normal(0.0, NOISE, hidden))
    params = np.concatenate([w0.reshape(-1), np.zeros(hidden), top, [0.0]])
    return NetworkModel(sizes, params, activation=activation)


def training_nps(ev: Evaluator, depth: int, fens: tuple[str, ...]) -> tuple[int, float]:
    search = TrainingSearch()
    nodes, seconds = 0, 0.0
    for fen in fens:
        pos = parse_fen(fen)
        start = time.perf_counter()
        result = search.search(pos, ev, depth)
        seconds += time.perf_counter() - start
        nodes += result.nodes + result.qnodes
    return nodes, seconds


def tournament_nps(ev: Evaluator, depth: int, fens: tuple[str, ...]) -> tuple[int, float]:
    engine = Engine(ev, hash_mb=16)
    nodes, seconds = 0, 0.0
    for fen in fens:
        engine.new_game()
        pos = parse_fen(fen)
        start = time.perf_counter()
        outcome = engine.go(pos, SearchLimits(depth=depth))
        seconds += time.perf_counter() - start
        nodes += outcome.nodes
    return nodes, seconds


def best_rate(
    run: Callable[[Evaluator, int, tuple[str, ...]], tuple[int, float]],
    ev: Evaluator,
    depth: int,
    repeats: int,
) -> tuple[float, int]:
    """(best nodes per second, nodes) over ``repeats`` runs."""
    best, nodes = 0.0, 0
    for _ in range(repeats):
        nodes, seconds = run(ev, depth, BENCH_FENS)
        best = max(best, nodes / seconds)
    return best, nodes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--training-depth", type=int, default=5)
    ap.add_argument("--tournament-depth", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--hidden", type=int, default=20, help="hidden units of the MLP")
    ap.add_argument("--activation", default="tanh", help="of the MLP's hidden units: tanh or crelu")
    ap.add_argument("--mlp", metavar="NET.npz", help="a network file instead of random weights")
    ap.add_argument("--quick", action="store_true", help="depths 3 and 5, one repeat")
    args = ap.parse_args()
    if args.quick:
        args.training_depth, args.tournament_depth, args.repeats = 3, 5, 1

    mlp = (
        load_weights(args.mlp)
        if args.mlp
        else materialistic_network([args.hidden, 1], seed=1, activation=args.activation)
    )
    if not isinstance(mlp, NetworkModel):
        ap.error(f"{args.mlp} is not a network file")
    evaluators = {
        "linear meep (learned)": learned_model().evaluator(),
        "linear meep (hand-set)": hand_set_model().evaluator(),
        "logreg (bitboard network)": materialistic_network([1], seed=2).evaluator(),
        f"{mlp.describe()} incremental": mlp.evaluator(),
        f"{mlp.describe()} full recompute": mlp.evaluator(incremental=False),
    }
    for ev in evaluators.values():  # compile or load everything before timing
        training_nps(ev, 1, BENCH_FENS[:1])
        tournament_nps(ev, 1, BENCH_FENS[:1])

    searches = [
        ("training search", training_nps, args.training_depth),
        ("tournament search", tournament_nps, args.tournament_depth),
    ]
    print(f"{len(BENCH_FENS)} positions, best of {args.repeats}")
    for label, run, depth in searches:
        print(f"{label}, depth {depth}:")
        peer = 0.0
        for name, ev in evaluators.items():
            rate, nodes = best_rate(run, ev, depth, args.repeats)
            peer = peer or rate
            print(f"  {name:40s} {rate:10.0f} nps {nodes:10d} nodes  {rate / peer:5.2f} x learned")
    print("aims: the MLP with the accumulator at >= 0.50 x linear meep; a network to")
    print("replace the learned weights at >= 0.60 x learned in the tournament search")


if __name__ == "__main__":
    main()
