"""Reading a chess training search back from its transposition table (Veness et al.
2009, Algorithm 2, DeltaFromTransTbl): the family's walk (:mod:`treestrap.search.walk`)
with chess's kernels. Every position whose table entry has depth >= d is recorded with
its bounds; each node is flagged ``NOISY`` unless it is quiet (``search/quiet.py``).

With ``quiescence`` values a node is recorded with Q(s), its quiescence value, and the
gradient of H at its principal quiescence leaf, signed for the side to move at ``s``
(:mod:`treestrap.search.quiescence` says why); a node whose quiescence value is not
H's (a mate or a draw inside the quiescence search) is flagged ``TERMINAL``. With
``exact_leaves`` every such node gets its exact quiescence value and principal leaf
(a network's replay set stores the leaf's inputs, to be valued later by a network
that has moved on, so a node whose value lies inside its bounds is not
left out as it is for the linear rules, whose error there is 0 at once).
"""

from __future__ import annotations

from treestrap.core.position import Position
from treestrap.evaluation.model import Evaluator
from treestrap.search import chess_kernels
from treestrap.search.context import SearchContext
from treestrap.search.tree import SearchTree
from treestrap.search.tt import TranspositionTable
from treestrap.search.walk import walk_table


def walk_tt(
    pos: Position,
    ev: Evaluator,
    tt: TranspositionTable,
    tree: SearchTree,
    ctx: SearchContext,
    min_depth: int,
    quiescence_ctx: SearchContext | None = None,
    exact_leaves: bool = False,
) -> int:
    """Record the entries of depth >= ``min_depth`` reachable from ``pos`` into
    ``tree`` (reset first); returns the number of nodes recorded. With
    ``quiescence_ctx`` (scratch space of its own) nodes carry quiescence values (module
    docstring; ``exact_leaves``: every node's exact value and leaf)."""
    if quiescence_ctx is None:
        return walk_table(chess_kernels, pos, ev, tt, tree, ctx, min_depth)
    # The search that filled the table evaluated most of the positions the walk's
    # quiescence searches reach, with this evaluator: they read its values back.
    qctx = quiescence_ctx._replace(eval_keys=ctx.eval_keys, eval_values=ctx.eval_values)
    return walk_table(chess_kernels, pos, ev, tt, tree, ctx, min_depth, (qctx, exact_leaves))
