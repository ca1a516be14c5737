"""The learning player: its model, its update rule and the searches it learns from
(the training alpha-beta, with the table walk for TreeStrap(alpha-beta), or Serban's
full-tree minimax)."""

from __future__ import annotations

from treestrap.core.makemove import make_move
from treestrap.core.position import ST_SIDE, Position, copy_position
from treestrap.evaluation.model import evaluate_gradient
from treestrap.evaluation.weights import LinearModel
from treestrap.learn.base import MINIMAX, Algorithm, Hyper, Step
from treestrap.learn.registry import default_step_size, make_algorithm
from treestrap.search.minimax import MinimaxLimits, MinimaxSearch
from treestrap.search.training import SearchResult, TrainingSearch
from treestrap.search.tree import new_tree
from treestrap.search.tt_walk import walk_tt
from treestrap.training.config import TrainConfig, frozen_indices


class Learner:
    """The learning player: its model, algorithm and searches."""

    def __init__(self, config: TrainConfig, model: LinearModel) -> None:
        self.config = config
        self.model = model
        step = config.step_size or default_step_size(
            config.algorithm, config.squash, config.optimizer, config.normalise_step
        )
        hyper = Hyper(
            step_size=step,
            lam=config.lam,
            min_depth=config.min_depth,
            squash=config.squash,
            predicted_only=config.predicted_only,
            use_outcome=config.use_outcome,
            frozen=frozen_indices(model.feature_set.names, config.freeze),
            optimizer=config.optimizer,
            normalise=config.normalise_step,
            objective=config.objective,
            step_decay=config.step_decay,
            quiet_only=config.quiet_only,
        )
        self.algorithm: Algorithm = make_algorithm(config.algorithm, model, hyper)
        self.ev = model.evaluator()
        self.alphabeta = TrainingSearch(tt_bits=config.tt_bits)
        limits = MinimaxLimits(
            max_nodes=config.minimax_nodes,
            max_qnodes_per_leaf=config.minimax_qnodes,
            mark_noisy=config.quiet_only,
        )
        capacity = config.minimax_nodes * (config.minimax_qnodes + 1) + 1
        self.minimax = (
            MinimaxSearch(capacity=min(capacity, 2_000_000), limits=limits)
            if self.algorithm.search_kind == MINIMAX
            else None
        )
        self.walk_tree = new_tree(1 << 16) if self.algorithm.needs_tree else None
        self.nps = 200_000.0  # updated from measurements; sets clock-derived budgets

    def search(self, pos: Position, node_budget: int | None) -> tuple[SearchResult, Step]:
        cfg = self.config
        if self.minimax is not None:
            result = self.minimax.search_budget(pos, self.ev)
            tree = self.minimax.tree
        else:
            if cfg.depth is not None:
                result = self.alphabeta.search(pos, self.ev, cfg.depth)
            else:
                result = self.alphabeta.search_nodes(pos, self.ev, max(node_budget or 0, 1000))
            tree = None
            if self.walk_tree is not None:
                walk_tt(
                    pos,
                    self.ev,
                    self.alphabeta.tt,
                    self.walk_tree,
                    self.alphabeta.ctx,
                    cfg.min_depth,
                )
                tree = self.walk_tree
        h, n = evaluate_gradient(pos, self.ev)
        step = Step(
            color=int(pos.st[ST_SIDE]),
            root_value=result.value,
            root_static=float(h),
            root_idx=self.ev.idx[:n].copy(),
            root_val=self.ev.val[:n].copy(),
            tree=tree,
            predicted_reply=result.pv[1] if len(result.pv) > 1 else 0,
        )
        if self.algorithm.needs_leaf:
            leaf = copy_position(pos)
            for m in result.pv:
                make_move(leaf, m)
            lh, ln = evaluate_gradient(leaf, self.ev)
            sign = 1.0 if len(result.pv) % 2 == 0 else -1.0
            step.leaf_value = sign * float(lh)
            step.leaf_idx = self.ev.idx[:ln].copy()
            step.leaf_val = sign * self.ev.val[:ln].copy()
        return result, step
