"""TD-Root(lambda) (Samuel's checkers player, in Veness et al. 2009, section 2):
H(s_t) moves towards the search value at the next time step, V(s_{t+1}), and with
lambda towards the lambda-return of later search values ending in the outcome."""

from __future__ import annotations

from treestrap.learn.base import Step
from treestrap.learn.td import TemporalDifference


class TDRoot(TemporalDifference):
    name = "td-root"

    def next_value(self, step: Step) -> float:
        return step.root_value
