"""How close evaluations come to a distillation's labels, on its held-out positions.

For the last 5% of a ``treestrap distill label`` directory (the rows ``distill fit``
holds out), prints each evaluator's error against the teacher's search scores: the
root mean square in centipawns (scores clipped as the labels are), in win
probability, and the median absolute difference. The teacher's own static evaluation
and its depth-1 search are the yardsticks a network file is read against.

    python benchmarks/distill_error.py LABELS_DIR [NET.npz ...] [--positions 3000]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from treestrap.core.notation import parse_fen
from treestrap.distill import fit as distill_fit
from treestrap.distill import labels as distill_labels
from treestrap.engine.engine import Engine
from treestrap.evaluation.weight_files import load_weights
from treestrap.search.timeman import SearchLimits


def report(name: str, white_cp: np.ndarray, target: np.ndarray) -> None:
    white = np.clip(white_cp, -distill_labels.SCORE_CLIP, distill_labels.SCORE_CLIP)
    d = white - target
    dp = distill_fit.white_probability(white) - distill_fit.white_probability(target)
    print(
        f"{name:34s} rms {np.sqrt(np.mean(d * d)):6.1f} cp   rms {np.sqrt(np.mean(dp * dp)):.4f}"
        f" in probability   median |d| {np.median(np.abs(d)):6.1f} cp"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("labels", metavar="LABELS_DIR")
    ap.add_argument("networks", nargs="*", metavar="NET.npz")
    ap.add_argument("--positions", type=int, default=3000, help="held-out positions read")
    args = ap.parse_args()

    labels = distill_labels.load_labels(args.labels)
    n = len(labels.white_cp)
    cut = n - max(1, int(n * 0.05))
    target = labels.white_cp[cut : cut + args.positions]
    epds = distill_labels.positions_of(args.labels, labels.index[cut : cut + len(target)])
    positions = [parse_fen(e + " 0 1") for e in epds]
    side = np.array([1.0 if e.split()[1] == "w" else -1.0 for e in epds])
    settings = distill_labels.label_settings(args.labels)
    teacher_name = str(settings.get("teacher", "learned"))
    teacher = distill_labels.named_model(teacher_name)
    print(
        f"{len(target)} held-out positions of {n}; labels: {teacher_name} searched to depth "
        f"{settings.get('depth')}"
    )
    report(f"{teacher_name} static", side * [teacher.evaluate(p) for p in positions], target)
    engine = Engine(teacher.evaluator(), hash_mb=16)
    depth1 = [engine.go(p, SearchLimits(depth=1)).score for p in positions]
    report(f"{teacher_name} depth 1", side * np.array(depth1), target)
    for path in args.networks:
        model = load_weights(path)
        report(Path(path).name, side * [model.evaluate(p) for p in positions], target)


if __name__ == "__main__":
    main()
