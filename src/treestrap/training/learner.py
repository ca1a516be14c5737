"""The learning player: its model, its update rule and the searches it learns from
(the training alpha-beta, with the table walk for TreeStrap(alpha-beta), or Serban's
full-tree minimax). :class:`Learner` learns a linear model; :class:`NetworkLearner` a
network, by Serban's Algorithm 7 (replay mini-batches from minimax trees, or from the
table walk's bounds with a one-sided loss)."""

from __future__ import annotations

from typing import Any

import numpy as np

from treestrap.core.makemove import make_move
from treestrap.core.position import ST_SIDE, Position, copy_position
from treestrap.evaluation.model import evaluate, evaluate_gradient
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.weights import LinearModel
from treestrap.learn.base import ALPHABETA, MINIMAX, Algorithm, Hyper, Step, UpdateStats
from treestrap.learn.names import NETWORK_ALGORITHM, NETWORK_OBJECTIVES
from treestrap.learn.optimizer import Optimizer
from treestrap.learn.registry import default_step_size, make_algorithm
from treestrap.learn.replay import (
    ReplayHyper,
    ReplayTrainer,
    ReplayTrainerState,
    network_parameters_of,
    torch_network,
)
from treestrap.search.context import new_context
from treestrap.search.minimax import MinimaxLimits, MinimaxSearch
from treestrap.search.training import SearchResult, TrainingSearch
from treestrap.search.tree import new_tree
from treestrap.search.tt_walk import walk_tt
from treestrap.search.value import VALUE_CLIP
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
            target_clip=config.target_clip,
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
        #: scratch of the quiescence searches that give nodes their Q(s) values
        self.quiescence_ctx = new_context() if config.node_value == "quiescence" else None
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
                    self.quiescence_ctx,
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


#: Algorithm 7's default step (learning rate of the mini-batch SGD), as Serban's
#: supervised starting points were trained with; ``--step-size`` replaces it.
NETWORK_STEP_SIZE = 0.01


class ReplayAlgorithm:
    """The update rule of a network run (Serban's Algorithm 7), with the interface
    the game loop uses: after each search the tree's first K nodes join the replay set
    and mini-batch steps move the network (:class:`~treestrap.learn.replay.ReplayTrainer`,
    which also writes the parameters into the searches' evaluator). With
    ``treestrap-ab`` the tree is the table walk's, its nodes carry bounds and the loss
    is one-sided."""

    needs_tree = True
    needs_leaf = False

    def __init__(self, trainer: ReplayTrainer, seed: int, name: str = NETWORK_ALGORITHM) -> None:
        self.name = name
        self.search_kind = ALPHABETA if name == "treestrap-ab" else MINIMAX
        self.trainer = trainer
        self.seed = seed
        self.stats = UpdateStats()
        #: the replay set and the momentum, saved with the run as an optimizer's state
        self.optimizer: Optimizer = ReplayTrainerState(trainer)
        self.losses: list[float] = []

    def start_game(self, number: int) -> None:
        # Mini-batches drawn from (seed, game number), the replay set and momentum
        # restored with the run: a resumed run goes on as it would have.
        self.trainer.rng = np.random.default_rng([self.seed, number])
        self.losses = []

    def observe(self, step: Step) -> None:
        assert step.tree is not None
        self.losses.append(self.trainer.learn_from_tree(step.tree))
        target = float(np.clip(step.root_value, -VALUE_CLIP, VALUE_CLIP))
        self.stats.abs_delta.append(abs(target - step.root_static))
        self.stats.updates += 1

    def end_game(self, steps: list[Step], outcome: float) -> None:
        """Nothing at the end of a game: Algorithm 7 learns from every search."""

    def game_metrics(self) -> dict[str, Any]:
        """What a game's metrics line adds: the mean mini-batch loss and the replay size."""
        loss = float(np.mean(self.losses)) if self.losses else None
        return {"replay_loss": loss, "replay_positions": self.trainer.replay.size}


class NetworkLearner:
    """The learning player of a network run: a network (float64 torch for learning,
    compiled for searching, kept equal), Algorithm 7, and the search it learns from:
    the full-tree minimax (iterative deepening within ``minimax_nodes``, at most
    ``depth`` plies when a depth is set) or, for ``treestrap-ab``, the training
    alpha-beta (``depth``, or a node budget) and its table walk (nodes of depth >=
    ``min_depth`` with their bounds)."""

    def __init__(self, config: TrainConfig, model: NetworkModel) -> None:
        self.config = config
        self.sizes = list(model.sizes)
        self.metadata = dict(model.metadata)
        self.ev = model.evaluator()
        self.net = torch_network(self.sizes, model.weights)
        hyper = ReplayHyper(
            capacity=config.replay_size,
            batch=config.batch_size,
            nodes=config.tree_nodes,
            steps=config.replay_steps,
            objective=NETWORK_OBJECTIVES[config.objective],
            lr=config.step_size or NETWORK_STEP_SIZE,
            momentum=config.momentum,
            seed=config.seed,
        )
        trainer = ReplayTrainer(self.net, self.ev, network_parameters_of, hyper)
        self.algorithm = ReplayAlgorithm(trainer, config.seed, config.algorithm)
        self.minimax: MinimaxSearch | None = None
        if self.algorithm.search_kind == MINIMAX:
            limits = MinimaxLimits(
                max_nodes=config.minimax_nodes, max_qnodes_per_leaf=config.minimax_qnodes
            )
            capacity = config.minimax_nodes * (config.minimax_qnodes + 1) + 1
            self.minimax = MinimaxSearch(capacity=min(capacity, 2_000_000), limits=limits)
        else:
            self.alphabeta = TrainingSearch(tt_bits=config.tt_bits)
            # A network's nodes record at most 33 input pairs (32 pieces, side to move).
            self.walk_tree = new_tree(1 << 16, features_per_node=40)
        self.nps = 200_000.0  # updated from measurements; sets clock-derived budgets

    def model(self) -> NetworkModel:
        """The network as it stands (a weight file's model)."""
        return NetworkModel(self.sizes, network_parameters_of(self.net), dict(self.metadata))

    def search(self, pos: Position, node_budget: int | None) -> tuple[SearchResult, Step]:
        cfg = self.config
        if self.minimax is not None:
            # The node budget of a clock is not used: the minimax tree's own budget
            # (minimax_nodes) bounds the search, as for treestrap-mm's linear runs.
            result = self.minimax.search_budget(pos, self.ev, cfg.depth or 32)
            tree = self.minimax.tree
        else:
            if cfg.depth is not None:
                result = self.alphabeta.search(pos, self.ev, cfg.depth)
            else:
                result = self.alphabeta.search_nodes(pos, self.ev, max(node_budget or 0, 1000))
            ab = self.alphabeta
            walk_tt(pos, self.ev, ab.tt, self.walk_tree, ab.ctx, cfg.min_depth)
            tree = self.walk_tree
        empty = np.zeros(0)
        step = Step(
            color=int(pos.st[ST_SIDE]),
            root_value=result.value,
            root_static=float(evaluate(pos, self.ev)),
            root_idx=empty.astype(np.int64),
            root_val=empty,
            tree=tree,
            predicted_reply=result.pv[1] if len(result.pv) > 1 else 0,
        )
        return result, step
