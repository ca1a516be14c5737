"""Throughput of a training run split into actors and a learner (treestrap.distributed).

For ``treestrap train --preset quick`` (or ``--preset NAME``) it runs, in this one
invocation and on the same machine: the one-process loop (what ``--actors 1`` runs),
then each ``--actors`` count on each ``--backend``, every run from the same seed into a
fresh directory. For each it prints games per hour, nodes per second, the speed-up over
the one-process run, the learner's share of the wall time, and the bytes that crossed
between learner and actors: per update (one search's sparse weight change), per game
(a game with its updates), and per weight vector sent. The last line estimates how many
actors one learner could serve: an actor's seconds per game over the learner's.

Examples (from the repository root)::

    python benchmarks/actors.py --games 40 --actors 1,2 --backend local,ray
    python benchmarks/actors.py --games 2 --max-plies 20 --depth 1   # a smoke check

Ray runs start a local cluster with one CPU per actor unless ``--address`` names one.
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
from pathlib import Path

from treestrap.distributed.learner import LearnerStats, train_distributed
from treestrap.training.config import TrainConfig, apply_preset
from treestrap.training.run import train


@dataclasses.dataclass
class Figures:
    label: str
    games: int
    nodes: int
    seconds: float
    stats: LearnerStats | None = None

    def line(self, baseline: Figures | None) -> str:
        text = (
            f"{self.label}: {self.games} games in {self.seconds:.1f} s, "
            f"{self.games / self.seconds * 3600:.0f} games/h, "
            f"{self.nodes / self.seconds:.0f} nodes/s"
        )
        if baseline is not None:
            speedup = (self.games / self.seconds) / (baseline.games / baseline.seconds)
            text += f", {speedup:.2f}x the one-process run"
        stats = self.stats
        if stats is not None and stats.games:
            text += (
                f", learner {100 * stats.learner_share:.2f}% of the time "
                f"({1000 * stats.learner_seconds / stats.games:.1f} ms/game), "
                f"{stats.update_bytes / max(stats.updates, 1):.0f} bytes/update "
                f"({stats.updates / stats.games:.1f} updates/game), "
                f"{stats.game_bytes / stats.games:.0f} bytes/game to the learner, "
                f"{stats.job_bytes / max(stats.weight_sends, 1):.0f} bytes per weight send "
                f"({stats.weight_sends} sends), {stats.restarts} restarts"
            )
        return text


def config_for(args: argparse.Namespace) -> TrainConfig:
    config = apply_preset(TrainConfig(seed=args.seed), args.preset)
    # After the preset, which may name its own game count (strong-net's 700).
    changes = {"algorithm": args.algorithm, "games": args.games}
    if args.depth is not None:
        changes["depth"] = args.depth
    if args.max_plies is not None:
        changes["max_plies"] = args.max_plies
    return dataclasses.replace(config, **changes)


def one_process(config: TrainConfig, run: Path) -> Figures:
    nodes = 0

    def on_game(summary, state) -> None:  # type: ignore[no-untyped-def]
        nonlocal nodes
        nodes += summary.nodes

    start = time.perf_counter()
    state = train(config, run, on_game=on_game)
    return Figures("one process", state.games, nodes, time.perf_counter() - start)


def distributed(
    config: TrainConfig, run: Path, actors: int, backend: str, address: str | None
) -> Figures:
    stats = LearnerStats()
    start = time.perf_counter()
    state = train_distributed(
        config, str(run), actors=actors, backend=backend, address=address, stats=stats
    )
    seconds = time.perf_counter() - start
    return Figures(f"{backend} actors={actors}", state.games, stats.nodes, seconds, stats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--preset", default="quick")
    parser.add_argument("--algorithm", default="treestrap-ab")
    parser.add_argument("--depth", type=int, help="override the preset's depth")
    parser.add_argument("--max-plies", type=int, help="override the preset's game length")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--actors", default="1,2", help="comma-separated actor counts")
    parser.add_argument("--backend", default="local", help="local, ray or local,ray")
    parser.add_argument("--address", help="a Ray cluster to join (default: a local one)")
    args = parser.parse_args()
    config = config_for(args)
    counts = [int(n) for n in args.actors.split(",")]
    backends = args.backend.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        # Compile (or load from the cache) before anything is timed.
        train(dataclasses.replace(config, games=1, max_plies=4), root / "warm-up")
        baseline = one_process(config, root / "one")
        print(baseline.line(None), flush=True)
        results: list[Figures] = []
        for backend in backends:
            if backend == "ray":
                from treestrap.distributed.ray_support import ray_session

                with ray_session(args.address, num_cpus=max(counts)):
                    for n in counts:
                        results.append(
                            distributed(config, root / f"ray-{n}", n, "ray", args.address)
                        )
                        print(results[-1].line(baseline), flush=True)
            else:
                for n in counts:
                    results.append(distributed(config, root / f"local-{n}", n, "local", None))
                    print(results[-1].line(baseline), flush=True)
    for figures in results:
        stats = figures.stats
        if stats is None or not stats.games or not stats.learner_seconds:
            continue
        actor_seconds = figures.seconds * int(figures.label.split("=")[1]) / stats.games
        per_game = stats.learner_seconds / stats.games
        print(
            f"{figures.label}: an actor takes {actor_seconds:.2f} s per game, the learner "
            f"{1000 * per_game:.1f} ms: one learner could serve about "
            f"{actor_seconds / per_game:.0f} actors before it is the bottleneck"
        )


if __name__ == "__main__":
    main()
