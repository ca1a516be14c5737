"""RootStrap (Veness et al. 2009, section 3): after each search, move H(s_t) towards
the search value of the root, V(s_t). With minimax or alpha-beta search (their root
values are the same; alpha-beta gets deeper in the same time)."""

from __future__ import annotations

import numpy as np

from treestrap.learn.base import Algorithm, Step
from treestrap.learn.targets import objective_deltas, sparse_step
from treestrap.search.value import VALUE_CLIP


class RootStrap(Algorithm):
    name = "rootstrap-ab"

    def observe(self, step: Step) -> None:
        target = min(max(step.root_value, -VALUE_CLIP), VALUE_CLIP)
        delta = float(
            objective_deltas(np.float64(step.root_static), np.float64(target), self.hyper.objective)
        )
        size = self.model.weights.shape[0]
        self.apply(sparse_step(step.root_idx, step.root_val, delta, size, self.hyper.step_size))
        self.stats.abs_delta.append(abs(delta))


class RootStrapMinimax(RootStrap):
    name = "rootstrap-mm"
