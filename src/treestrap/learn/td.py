"""TD(lambda) on game positions: H(s_t) moves towards the lambda-return of the later
positions' heuristic values, H(s_{t+1}), ..., ending in the game outcome.
Updates at the end of each game, for each colour the learner played, from its view."""

from __future__ import annotations

from treestrap.learn.base import Algorithm, Step
from treestrap.learn.targets import sparse_step
from treestrap.learn.temporal import lambda_returns, outcome_value, squash, squash_slope


class TemporalDifference(Algorithm):
    name = "td"

    def next_value(self, step: Step) -> float:
        """q_t: the value the previous step learns towards (TD: the heuristic)."""
        return step.root_static

    def end_game(self, steps: list[Step], outcome: float) -> None:
        h = self.hyper
        size = self.model.weights.shape[0]
        for color in (0, 1):
            mine = [s for s in steps if s.color == color]
            if not mine:
                continue
            z = outcome if color == 0 else -outcome
            final = (
                outcome_value(z, h.squash)
                if h.use_outcome
                else squash(self.next_value(mine[-1]), h.squash)
            )
            nexts = [squash(self.next_value(s), h.squash) for s in mine[1:]] + [final]
            returns = lambda_returns(nexts, final, h.lam)
            total = None
            for s, g in zip(mine, returns, strict=True):
                p = squash(s.root_static, h.squash)
                delta = (g - p) * squash_slope(s.root_static, h.squash)
                step = sparse_step(s.root_idx, s.root_val, delta, size, h.step_size)
                total = step if total is None else total + step
                self.stats.abs_delta.append(abs(g - p))
            assert total is not None
            self.apply(total)
