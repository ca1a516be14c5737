"""The alpha-beta search used while learning (Veness et al. 2009, section 5).

Deliberately generic: a transposition table (two bounds, see :mod:`tt`), killer moves,
the history heuristic, a one-ply extension for moves that give check, and a quiescence
search over all captures and promotions (all evasions when in check) with no pruning
that depends on the evaluation weights. Every enhancement can be switched off in
:class:`TrainingOptions` (the tests compare the bare search with full-tree minimax).

Contract of :func:`alphabeta`: negamax, fail-soft. It returns ``v`` such that
``v <= alpha`` means the true depth-``depth`` value is at most ``v``, ``v >= beta`` that
it is at least ``v``, and otherwise ``v`` is exact. Values are for the side to move,
mate scores count plies from the root. Draws by repetition (one earlier occurrence),
the fifty-move rule and insufficient material score 0 below the root.
"""

from __future__ import annotations

from typing import NamedTuple

from treestrap.core.jit import njit
from treestrap.core.makemove import make_move, unmake_move
from treestrap.core.movegen import generate_captures, generate_moves
from treestrap.core.position import ST_HALFMOVE, Position, current_key, in_check
from treestrap.core.status import is_insufficient_material, is_repetition
from treestrap.evaluation.model import Evaluator
from treestrap.search.context import (
    NODES,
    QNODES,
    SELDEPTH,
    STOPPED,
    SearchContext,
    cached_static_value,
    count_node,
    new_context,
    reset_context,
    searched_nodes,
    update_pv,
)
from treestrap.search.ordering import pick_next, score_moves, update_quiet_cutoff
from treestrap.search.tt import (
    DEFAULT_TT_BITS,
    TranspositionTable,
    clear_tt,
    new_tt,
    tt_cutoff,
    tt_probe,
    tt_store_result,
)
from treestrap.search.value import (
    INFINITE,
    MAX_PLY,
    mated_in,
    static_value,
)


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


@njit(inline="always")
def _out_of_nodes(ctx: SearchContext, opts: TrainingOptions) -> bool:
    if ctx.stats[STOPPED]:
        return True
    if opts.max_nodes > 0 and searched_nodes(ctx) >= opts.max_nodes:
        ctx.stats[STOPPED] = 1
        return True
    return False


@njit
def alphabeta(
    pos: Position,
    ev: Evaluator,
    ctx: SearchContext,
    tt: TranspositionTable,
    opts: TrainingOptions,
    depth: int,
    ply: int,
    alpha: float,
    beta: float,
) -> float:
    """Fail-soft negamax alpha-beta to ``depth`` plies; ``depth <= 0`` is the
    quiescence search (stand pat or capture/promote; every evasion when in check).

    One self-recursive function on purpose: numba's cache cannot load a recursive
    kernel that calls another recursive kernel (see :mod:`treestrap.core.jit`).
    """
    ctx.pv_len[ply] = 0
    if _out_of_nodes(ctx, opts):
        return 0.0
    quiescence = depth <= 0
    count_node(ctx, ply, quiescence)
    if ply > 0 and (is_repetition(pos) or is_insufficient_material(pos)):
        return 0.0
    if ply >= MAX_PLY:
        return static_value(pos, ev)

    moves = ctx.moves[ply]
    key = current_key(pos)
    tt_move = 0
    best = -INFINITE
    if quiescence:
        if in_check(pos):
            n = generate_moves(pos, moves)
            if n == 0:
                return mated_in(ply)
            if pos.st[ST_HALFMOVE] >= 100:
                return 0.0
        else:
            if pos.st[ST_HALFMOVE] >= 100:
                return 0.0
            best = cached_static_value(pos, ev, ctx, key)  # stand pat
            if best >= beta:
                return best
            if best > alpha:
                alpha = best
            n = generate_captures(pos, moves)
    else:
        if opts.use_tt:
            slot = tt_probe(tt, key)
            if slot >= 0:
                tt_move = tt.move[slot]
                # Only a result of exactly this depth may cut off: then every stored
                # bound is a bound on the depth-d value itself, which is what
                # TreeStrap(alpha-beta) learns from (a deeper result is not).
                if ply > 0 and tt.depth[slot] == depth:
                    cut, bound = tt_cutoff(tt, slot, ply, alpha, beta)
                    if cut:
                        return bound
        n = generate_moves(pos, moves)
        if n == 0:
            return mated_in(ply) if in_check(pos) else 0.0
        if ply > 0 and pos.st[ST_HALFMOVE] >= 100:
            return 0.0

    score_moves(pos, ctx, ply, n, tt_move)
    alpha_orig = alpha
    best_move = 0
    for i in range(n):
        m = pick_next(ctx, ply, i, n)
        make_move(pos, m)
        child_depth = depth - 1
        if not quiescence and opts.check_extension and in_check(pos):
            child_depth += 1
        if opts.prune or quiescence:
            v = -alphabeta(pos, ev, ctx, tt, opts, child_depth, ply + 1, -beta, -alpha)
        else:
            v = -alphabeta(pos, ev, ctx, tt, opts, child_depth, ply + 1, -INFINITE, INFINITE)
        unmake_move(pos)
        if ctx.stats[STOPPED]:
            return 0.0
        if v > best:
            best = v
            best_move = m
            update_pv(ctx, ply, m)
            alpha = max(alpha, v)
            if (opts.prune or quiescence) and v >= beta:
                if not quiescence and not (m & 0xC000):  # quiet: killer and history credit
                    update_quiet_cutoff(pos, ctx, ply, m, depth, opts.killers, opts.history)
                break

    if opts.use_tt and not quiescence:
        tt_store_result(tt, key, depth, ply, best, alpha_orig, beta, best_move)
    return best


class SearchResult(NamedTuple):
    """What a search found, for the side to move at the root."""

    value: float
    best_move: int
    pv: list[int]
    depth: int
    nodes: int
    qnodes: int
    seldepth: int
    stopped: bool


def result_from_context(
    ctx: SearchContext, value: float, depth: int, stopped: bool
) -> SearchResult:
    """The root's result as a finished search left it in ``ctx``."""
    n = int(ctx.pv_len[0])
    pv = [int(m) for m in ctx.pv[0, :n]]
    return SearchResult(
        value=float(value),
        best_move=pv[0] if pv else 0,
        pv=pv,
        depth=depth,
        nodes=int(ctx.stats[NODES]),
        qnodes=int(ctx.stats[QNODES]),
        seldepth=int(ctx.stats[SELDEPTH]),
        stopped=stopped,
    )


class TrainingSearch:
    """The training alpha-beta with its own scratch space and transposition table.

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
        self.options = options or TrainingOptions()
        self.ctx = new_context()
        self.tt = new_tt(tt_bits)

    def _run(
        self, pos: Position, ev: Evaluator, opts: TrainingOptions, depth: int, fresh: bool
    ) -> float:
        """One full-window search of ``depth`` plies; with ``fresh`` the context is reset
        and the table cleared first. The PV is left in ``ctx.pv[0, :ctx.pv_len[0]]``.

        Plain Python on purpose: a compiled caller of the recursive kernel would not
        load from numba's cache."""
        if fresh:
            reset_context(self.ctx)
            clear_tt(self.tt)
        return float(alphabeta(pos, ev, self.ctx, self.tt, opts, depth, 0, -INFINITE, INFINITE))

    def _result(self, value: float, depth: int, stopped: bool) -> SearchResult:
        return result_from_context(self.ctx, value, depth, stopped)

    def search(self, pos: Position, ev: Evaluator, depth: int) -> SearchResult:
        """A fixed-depth search from a cleared table (the paper's training search)."""
        if not 1 <= depth < MAX_PLY:
            raise ValueError(f"search depth must be in 1..{MAX_PLY - 1}, got {depth}")
        value = self._run(pos, ev, self.options, depth, True)
        return self._result(value, depth, bool(self.ctx.stats[STOPPED]))

    def search_nodes(
        self, pos: Position, ev: Evaluator, max_nodes: int, max_depth: int = MAX_PLY - 1
    ) -> SearchResult:
        """Iterative deepening until ``max_nodes`` (main + quiescence) are spent; the
        result of the deepest completed iteration (depth 1 always completes)."""
        if max_nodes < 1:
            raise ValueError(f"node budget must be positive, got {max_nodes}")
        result = None
        for depth in range(1, max_depth + 1):
            opts = self.options._replace(max_nodes=0 if depth == 1 else max_nodes)
            value = self._run(pos, ev, opts, depth, depth == 1)
            if self.ctx.stats[STOPPED]:
                break
            result = self._result(value, depth, False)
            if searched_nodes(self.ctx) >= max_nodes:
                break
        assert result is not None
        return result
