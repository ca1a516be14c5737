"""TD-Leaf(lambda) (Baxter, Tridgell, Weaver): the principal leaf of each search moves
towards the next search's value, with lambda-returns, updated at the end of the game:

    delta_theta = eta * sum_t grad J(l_t) * sum_{j >= t} lambda^(j - t) d_j,
    d_t = J(l_{t+1}) - J(l_t),   the last d towards the game outcome,

with KnightCap's options: values squashed by tanh (one pawn = 0.25), the outcome as
+1 / 0 / -1, and positive differences zeroed unless the opponent played the reply the
search predicted (the learner should not learn from the opponent's blunders).
"""

from __future__ import annotations

import numpy as np

from treestrap.learn.base import Algorithm, Step
from treestrap.learn.targets import sparse_step
from treestrap.learn.temporal import discounted_sums, outcome_value, squash, squash_slope


class TDLeaf(Algorithm):
    name = "td-leaf"
    needs_leaf = True

    def end_game(self, steps: list[Step], outcome: float) -> None:
        h = self.hyper
        size = self.model.weights.shape[0]
        for color in (0, 1):
            mine = [s for s in steps if s.color == color and s.leaf_idx is not None]
            if not mine:
                continue
            z = outcome if color == 0 else -outcome
            j = np.array([squash(s.leaf_value, h.squash) for s in mine])
            final = outcome_value(z, h.squash) if h.use_outcome else j[-1]
            d = np.append(j[1:], final) - j
            if h.predicted_only:
                for t, s in enumerate(mine[:-1]):
                    if d[t] > 0 and s.actual_reply != s.predicted_reply:
                        d[t] = 0.0
            sums = discounted_sums(d, h.lam)
            total = np.zeros(size)
            for s, g in zip(mine, sums, strict=True):
                slope = squash_slope(s.leaf_value, h.squash)
                assert s.leaf_idx is not None and s.leaf_val is not None
                total += sparse_step(s.leaf_idx, s.leaf_val, g * slope, size, h.step_size)
                self.stats.abs_delta.append(abs(g))
            self.apply(total)
