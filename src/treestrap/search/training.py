"""The chess alpha-beta used while learning (Veness et al. 2009, section 5): the
family's training alpha-beta (:mod:`treestrap.search.alphabeta`) compiled with chess's
kernels (:mod:`treestrap.search.chess_kernels`).

Deliberately generic: a transposition table (two bounds, see :mod:`tt`), killer moves,
the history heuristic, a one-ply extension for moves that give check, and a quiescence
search over all captures and promotions (all evasions when in check) with no pruning
that depends on the evaluation weights. Every enhancement can be switched off in
:class:`TrainingOptions` (the tests compare the bare search with full-tree minimax).
Draws by repetition (one earlier occurrence), the fifty-move rule and insufficient
material score 0 below the root.
"""

from __future__ import annotations

from typing import NamedTuple

from treestrap.search import alphabeta as family
from treestrap.search import chess_kernels
from treestrap.search.alphabeta import AlphaBetaSearch
from treestrap.search.family import instantiate
from treestrap.search.tt import DEFAULT_TT_BITS


class TrainingOptions(NamedTuple):
    """Switches and limits of the training search (all on by default)."""

    use_tt: bool = True
    check_extension: bool = True
    killers: bool = True
    history: bool = True
    #: False searches every child with a full window and never cuts off: every node
    #: then gets its exact minimax value (used to check TreeStrap(ab) against (mm)).
    prune: bool = True
    #: Stop once this many nodes (main + quiescence) are searched; 0 = no limit.
    max_nodes: int = 0
    #: True lets a table entry of a deeper search cut a node off (a playing search's
    #: rule); False, the training rule, only one of exactly the node's depth.
    deeper_cutoffs: bool = False


#: ``alphabeta(pos, ev, ctx, tt, opts, depth, ply, alpha, beta)``: the compiled kernel.
alphabeta = instantiate(family.alphabeta, chess_kernels)


class TrainingSearch(AlphaBetaSearch):
    """The chess training alpha-beta with its own scratch space and transposition table.

    >>> from treestrap.core.notation import parse_fen
    >>> from treestrap.evaluation.presets import hand_set_model
    >>> ts = TrainingSearch()
    >>> mate_in_one = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"
    >>> result = ts.search(parse_fen(mate_in_one), hand_set_model().evaluator(), depth=2)
    >>> from treestrap.core.move import move_to_uci
    >>> result.value, [move_to_uci(m) for m in result.pv]
    (9998.0, ['a1a8'])
    """

    def __init__(self, options: TrainingOptions | None = None, tt_bits: int = DEFAULT_TT_BITS):
        super().__init__(chess_kernels, options or TrainingOptions(), tt_bits)
