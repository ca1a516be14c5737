"""TreeStrap (Veness et al. 2009, sections 3-4, Algorithms 1-2).

TreeStrap(minimax): every node of the full search tree (remaining depth >= d) moves
towards its own minimax value. TreeStrap(alpha-beta): every transposition-table entry
of depth >= d reachable from the root (DeltaFromTransTbl) moves one-sidedly towards
the bound it violates; with no cut-offs every bound is exact and the two coincide.
One summed step per search, as in Algorithm 1.
"""

from __future__ import annotations

import numpy as np

from treestrap.learn.base import Algorithm, Step
from treestrap.learn.targets import tree_delta


class TreeStrapAlphaBeta(Algorithm):
    name = "treestrap-ab"
    needs_tree = True

    def observe(self, step: Step) -> None:
        assert step.tree is not None
        size = self.model.weights.shape[0]
        delta_theta, deltas = tree_delta(
            step.tree,
            size,
            self.hyper.step_size,
            self.hyper.min_depth,
            self.hyper.normalise_step,
            self.hyper.objective,
            self.hyper.quiet_only,
            self.hyper.target_clip,
        )
        self.apply(delta_theta)
        if deltas.size:
            self.stats.abs_delta.append(float(np.mean(np.abs(deltas))))


class TreeStrapMinimax(TreeStrapAlphaBeta):
    name = "treestrap-mm"
