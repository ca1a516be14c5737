"""The tournament search: how strong is a weight set when it plays?

Meep's "tournament mode" (Veness et al. 2009, section 5): an enhanced alpha-beta that
uses knowledge the training search must not (null-move pruning, late move
reductions). One self-recursive kernel, :func:`pvs`, does principal variation search
with check extension, mate distance pruning, draws by repetition and the fifty-move
rule, and (for ``depth <= 0``) a quiescence search with delta pruning and a lazy
stand pat (:func:`_stand_pat`). Iterative deepening, aspiration windows and time are
Python's (:mod:`treestrap.engine`), and so is MultiPV: the root skips the moves listed
in ``ctx.root_skip`` (the first moves of the better lines), and stores nothing in the
table then, since its value is not the position's; it searches ``ctx.root_first`` first
when set (the move the line had in the last iteration).

Nodes: every call of :func:`pvs` counts one (main or quiescence), so the root of each
iteration and aspiration re-search, the position after a null move, and a child that a
re-search enters again each count once more. Stockfish counts one node per move made;
``stats[REVISITS]`` counts the calls its rule leaves out, so ``nodes - revisits`` is the
count by that rule (``benchmarks/engine_vs_stockfish.py`` prints both).

Scores are side-to-move floats in the units of :mod:`treestrap.search.value`. A "null
window" is ``(alpha, alpha + NULL_WINDOW)``: scores are floats, and any positive width
keeps the search exact; this one is a hundredth of a centipawn.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from treestrap.core.bitboard import EMPTY
from treestrap.core.jit import njit
from treestrap.core.makemove import make_move, make_null_move, unmake_move, unmake_null_move
from treestrap.core.move import move_to
from treestrap.core.movegen import generate_captures, generate_moves
from treestrap.core.piece import BISHOP, KNIGHT, NO_PIECE, PAWN, QUEEN, ROOK
from treestrap.core.position import ST_HALFMOVE, ST_SIDE, Position, current_key, in_check
from treestrap.core.status import is_insufficient_material, is_repetition
from treestrap.evaluation.model import (
    Evaluator,
    lazy_estimate,
)
from treestrap.search.context import (
    SearchContext,
    cached_static_value,
    cached_value_after_estimate,
    static_value,
)
from treestrap.search.exchange import EXCHANGE_VALUE, exchange_at_least
from treestrap.search.ordering import is_killer, pick_next, score_moves, update_quiet_cutoff
from treestrap.search.quiet_history import credit_quiet_cutoff, history_reduction
from treestrap.search.scratch import (
    REVISITS,
    STOPPED,
    count_node,
    count_revisit,
    searched_nodes,
    update_pv,
)
from treestrap.search.tt import (
    TranspositionTable,
    tt_checked_cutoff,
    tt_probe,
    tt_store_result,
)
from treestrap.search.value import INFINITE, MAX_PLY, mate_in, mated_in

NULL_WINDOW = 0.01
#: Null-move depth reduction: the usual R = 2, 3 from depth 7 on.
NULL_MOVE_MIN_DEPTH = 3
#: Late move reductions start after this many moves at this depth.
LMR_MIN_DEPTH = 3
LMR_MIN_MOVES = 3
#: Delta pruning: a capture that cannot lift the score to alpha even with this margin
#: over the victim's classical value is skipped in quiescence.
DELTA_MARGIN = 200.0
#: Lazy evaluation margin: the rest of a `learned` score beyond its material and
#: piece-square part exceeds 365 in 1% of the positions of twic0920, 510 in 0.1%.
LAZY_MARGIN = 400.0
#: Reverse futility pruning: a non-PV node this close to the horizon whose static value
#: beats beta by this margin per ply of depth left returns it without a search.
FUTILITY_DEPTH = 6
FUTILITY_MARGIN = 100.0
#: Futility pruning of quiet moves: at depth <= 2, a quiet move that gives no check is
#: skipped when the static value plus this margin per ply stays at or below alpha.
QUIET_FUTILITY_MARGIN = 150.0
#: Late move pruning: at depth <= 3, quiet moves after the first 4 + depth^2 searched
#: are skipped in non-PV nodes (with good ordering they almost never raise alpha).
LATE_MOVE_DEPTH = 3
LATE_MOVE_COUNT = 4
#: Internal iterative reduction: a node this deep with no table move is searched one
#: ply shallower (its move order is a guess; the next visit will have a table move).
IIR_DEPTH = 4
#: Razoring: a non-PV node this close to the horizon whose static value lies this far
#: (per ply of depth left) below alpha is searched by quiescence alone when that fails
#: low too.
RAZOR_DEPTH = 3
RAZOR_MARGIN = 250.0
#: Static exchange pruning in non-PV nodes at depth <= SEE_DEPTH: a capture that loses
#: more than SEE_CAPTURE a ply of depth, or a quiet move that loses more than SEE_QUIET
#: times depth squared, is skipped unless it gives check.
SEE_DEPTH = 7
SEE_CAPTURE = 100
SEE_QUIET = 25
#: Scores beyond this are mates or clipped wins: no margin applies to them.
DECISIVE_SCORE = 9000.0
#: How often (in nodes) the stop flag is read.
POLL_MASK = 1023


class EngineOptions(NamedTuple):
    null_move: bool = True
    lmr: bool = True
    delta_pruning: bool = True
    #: Stop after this many nodes (main + quiescence); 0 = no limit.
    max_nodes: int = 0
    #: Lazy evaluation: a quiescence node whose material estimate lies this far
    #: outside the window stands pat on the estimate (0 = off).
    lazy_margin: float = LAZY_MARGIN
    #: Quiescence skips captures that lose material by static exchange evaluation.
    exchange_pruning: bool = True
    #: Reverse futility and quiet-move futility pruning near the horizon.
    futility: bool = True
    #: Late move pruning of quiet moves near the horizon.
    late_move_pruning: bool = True
    # The switches below come from stronger engines and are off by default: measured
    # against the set above they did not gain (docs/reports/search-features.md).
    #: Quiet-move history with a malus for the moves tried before a cut-off
    #: (:mod:`treestrap.search.quiet_history`); off: the training search's plain history.
    history_malus: bool = False
    #: Late move reductions one ply smaller or larger by a move's history, and one
    #: larger where the side to move is not improving.
    lmr_history: bool = False
    #: "Improving" (the static value above the one two plies up) loosens reverse
    #: futility and sets how many quiet moves late move pruning keeps.
    improving: bool = False
    #: Null-move reduction growing with depth and with the margin over beta.
    adaptive_null_move: bool = False
    #: Internal iterative reduction (IIR_DEPTH).
    iir: bool = False
    #: Static exchange pruning of captures and quiet moves (SEE_DEPTH).
    see_pruning: bool = False
    #: Razoring (RAZOR_DEPTH).
    razoring: bool = False


#: Late move reductions by depth and move number: about ln(depth) ln(moves) / 2, so
#: reductions grow slowly with both (row and column 0 unused).
LMR_TABLE = np.zeros((64, 64), dtype=np.int64)
for _d in range(1, 64):
    for _m in range(1, 64):
        LMR_TABLE[_d, _m] = int(0.5 + np.log(_d) * np.log(_m) / 2.0)


@njit(inline="always")
def _has_pieces(pos: Position) -> bool:
    """Whether the side to move has a piece other than pawns and king (zugzwang guard
    for null moves)."""
    o = pos.st[ST_SIDE] * 6
    bb = pos.bb
    return (bb[o + KNIGHT] | bb[o + BISHOP] | bb[o + ROOK] | bb[o + QUEEN]) != EMPTY


@njit(inline="always")
def _stand_pat(
    pos: Position,
    ev: Evaluator,
    ctx: SearchContext,
    key: np.uint64,
    margin: float,
    alpha: float,
    beta: float,
) -> float:
    """The stand-pat value of a quiescence node, or with a lazy ``margin`` a bound on it
    where the material estimate shows that the rest of the evaluation (mobility,
    threats, pawns, king safety; within a few hundred points) cannot bring it into the
    window: estimate - margin for a cut-off, estimate + margin for a fail low."""
    if margin > 0.0:
        rough, reused = lazy_estimate(pos, ev)  # NaN: the model offers no estimate
        if rough == rough:
            if rough - margin >= beta:
                return rough - margin
            return cached_value_after_estimate(pos, ev, ctx, key, reused)
    return cached_static_value(pos, ev, ctx, key)


@njit(inline="always")
def _skipped_at_root(ctx: SearchContext, m: int) -> bool:
    """Whether the root move ``m`` is one the caller asked to leave out."""
    for j in range(ctx.root_skip.shape[0]):
        skip = ctx.root_skip[j]
        if skip == 0:
            return False
        if skip == m:
            return True
    return False


@njit
def pvs(
    pos: Position,
    ev: Evaluator,
    ctx: SearchContext,
    tt: TranspositionTable,
    opts: EngineOptions,
    stop: np.ndarray,
    depth: int,
    ply: int,
    alpha: float,
    beta: float,
    can_null: bool,
) -> float:
    """Principal variation search; ``depth <= 0`` is quiescence. Fail-soft.

    Recursive calls pass ``np.bool_(...)``, not a literal ``True``: a literal would be
    cast at the call, and numba's cache cannot load that (see treestrap.core.jit)."""
    ctx.pv_len[ply] = 0
    total = searched_nodes(ctx)
    if (total & POLL_MASK) == 0 and stop[0]:
        ctx.stats[STOPPED] = 1
    if opts.max_nodes > 0 and total >= opts.max_nodes:
        ctx.stats[STOPPED] = 1
    if ctx.stats[STOPPED]:
        return 0.0
    quiescence = depth <= 0
    count_node(ctx, ply, quiescence)
    if ply > 0:
        if is_repetition(pos) or is_insufficient_material(pos):
            return 0.0
        # Mate distance pruning: no line from here beats a mate already found nearer.
        alpha = max(alpha, mated_in(ply))
        beta = min(beta, mate_in(ply + 1))
        if alpha >= beta:
            return alpha
    else:
        ctx.stats[REVISITS] += 1  # the root: entered by no move
    if ply >= MAX_PLY:
        return static_value(pos, ev)
    pv_node = beta - alpha > NULL_WINDOW
    checked = in_check(pos)
    key = current_key(pos)
    moves = ctx.moves[ply]
    tt_move = 0
    best = -INFINITE

    slot = tt_probe(tt, key)
    if slot >= 0:
        tt_move = tt.move[slot]  # it only orders the moves generated: any value is harmless
        if not pv_node and ply > 0 and tt.depth[slot] >= max(depth, 0):
            # Checked whole: other search threads may be writing the slot.
            cut, bound = tt_checked_cutoff(tt, key, max(depth, 0), ply, alpha, beta)
            if cut:
                return bound
    if ply == 0 and ctx.root_first[0] != 0:
        tt_move = ctx.root_first[0]
    if opts.iir and not quiescence and ply > 0 and depth >= IIR_DEPTH and tt_move == 0:
        depth -= 1

    stand = 0.0
    improving = False
    if quiescence:
        if checked:
            n = generate_moves(pos, moves)
            if n == 0:
                return mated_in(ply)
        else:
            stand = _stand_pat(pos, ev, ctx, key, opts.lazy_margin, alpha, beta)
            if stand >= beta:
                return stand
            if stand > alpha:
                alpha = stand
            best = stand
            n = generate_captures(pos, moves)
        if pos.st[ST_HALFMOVE] >= 100:
            return 0.0
    else:
        prunes = opts.futility or opts.null_move or opts.razoring
        if not checked and (opts.improving or (not pv_node and prunes)):
            stand = cached_static_value(pos, ev, ctx, key)
        if opts.improving:
            ctx.static_values[ply] = -INFINITE if checked else stand
            improving = not checked and ply >= 2 and stand > ctx.static_values[ply - 2]
        if (
            opts.futility
            and not pv_node
            and not checked
            and depth <= FUTILITY_DEPTH
            and abs(beta) < DECISIVE_SCORE
            and stand - FUTILITY_MARGIN * (depth - 1 if improving else depth) >= beta
        ):
            return stand
        if (
            opts.razoring
            and not pv_node
            and not checked
            and depth <= RAZOR_DEPTH
            and abs(alpha) < DECISIVE_SCORE
            and stand + RAZOR_MARGIN * depth <= alpha
        ):
            # The same node again by quiescence alone: one node more for us, none for
            # Stockfish's count.
            entered = searched_nodes(ctx)
            v = pvs(
                pos,
                ev,
                ctx,
                tt,
                opts,
                stop,
                np.int64(0),
                ply,
                alpha,
                alpha + NULL_WINDOW,
                np.bool_(False),
            )
            count_revisit(ctx, entered)
            if ctx.stats[STOPPED]:
                return 0.0
            if v <= alpha:
                return v
        if (
            opts.null_move
            and can_null
            and not pv_node
            and not checked
            and depth >= NULL_MOVE_MIN_DEPTH
            and abs(beta) < DECISIVE_SCORE
            and _has_pieces(pos)
            and stand >= beta
        ):
            if opts.adaptive_null_move:
                r = 3 + depth // 4 + min(3, int((stand - beta) / 200.0))
            else:
                r = 3 if depth >= 7 else 2
            make_null_move(pos)
            entered = searched_nodes(ctx)
            v = -pvs(
                pos,
                ev,
                ctx,
                tt,
                opts,
                stop,
                depth - 1 - r,
                ply + 1,
                -beta,
                -beta + NULL_WINDOW,
                np.bool_(False),
            )
            count_revisit(ctx, entered)  # a null move is no move to Stockfish's count
            unmake_null_move(pos)
            if ctx.stats[STOPPED]:
                return 0.0
            if v >= beta:
                return beta if v >= 9000.0 else v
        n = generate_moves(pos, moves)
        if n == 0:
            return mated_in(ply) if checked else 0.0
        if ply > 0 and pos.st[ST_HALFMOVE] >= 100:
            return 0.0

    score_moves(pos, ctx, ply, n, tt_move)
    alpha_orig = alpha
    best_move = 0
    searched = 0
    null_ok = np.bool_(True)  # the children may try a null move
    # Near the horizon of a non-PV node, quiet moves that give no check may be skipped.
    prune_quiet = not quiescence and not pv_node and not checked and abs(alpha) < DECISIVE_SCORE
    futile = (
        prune_quiet
        and opts.futility
        and depth <= 2
        and stand + QUIET_FUTILITY_MARGIN * depth <= alpha
    )
    late = LATE_MOVE_COUNT + depth * depth
    if opts.improving:
        late = (3 + depth * depth) // (1 if improving else 2)
    if not (prune_quiet and opts.late_move_pruning and depth <= LATE_MOVE_DEPTH):
        late = n + 1
    # MultiPV: the root searches only the moves of the lines not yet found.
    skipping = ply == 0 and ctx.root_skip[0] != 0
    for i in range(n):
        m = pick_next(ctx, ply, i, n)
        if skipping and _skipped_at_root(ctx, m):
            continue
        if quiescence and not checked and not (m & 0x8000):
            if opts.delta_pruning:
                victim = pos.board[move_to(m)]
                gain = EXCHANGE_VALUE[PAWN if victim == NO_PIECE else victim % 6]
                if stand + gain + DELTA_MARGIN <= alpha:
                    continue
            if opts.exchange_pruning and not exchange_at_least(pos, m, 0):
                continue
        quiet = (m & 0xC000) == 0
        losing = False
        if opts.see_pruning and prune_quiet and searched > 0 and depth <= SEE_DEPTH:
            threshold = -SEE_QUIET * depth * depth if quiet else -SEE_CAPTURE * depth
            losing = not exchange_at_least(pos, m, threshold)
        history_r = 0
        if opts.lmr_history and quiet and not quiescence:
            history_r = history_reduction(pos, ctx, m)
        make_move(pos, m)
        gives_check = in_check(pos)
        if quiet and not gives_check and searched > 0 and (futile or searched >= late):
            unmake_move(pos)
            continue
        if losing and not gives_check:
            unmake_move(pos)
            continue
        new_depth = depth - 1
        if not quiescence and gives_check:
            new_depth += 1  # check extension
        if quiescence or searched == 0:
            v = -pvs(pos, ev, ctx, tt, opts, stop, new_depth, ply + 1, -beta, -alpha, null_ok)
        else:
            # A null window around alpha shows the move is no better (at reduced depth
            # for a late quiet move); one that is better is searched again at full
            # depth, then with the full window.
            r = 0
            if (
                opts.lmr
                and depth >= LMR_MIN_DEPTH
                and searched >= LMR_MIN_MOVES
                and quiet
                and not checked
                and not gives_check
                and not is_killer(ctx, ply, m)
            ):
                r = LMR_TABLE[min(depth, 63), min(searched, 63)] - (1 if pv_node else 0)
                if opts.lmr_history:
                    r += (1 if opts.improving and not improving else 0) - history_r
                    r = max(0, min(r, new_depth - 1))
                else:
                    r = max(1, min(r, new_depth - 1))
            scout = -alpha - NULL_WINDOW
            v = -pvs(pos, ev, ctx, tt, opts, stop, new_depth - r, ply + 1, scout, -alpha, null_ok)
            # A re-search enters the same child again: one node more for us, none for
            # Stockfish, which makes the move once for all its searches of it.
            if v > alpha and r > 0:
                entered = searched_nodes(ctx)
                v = -pvs(pos, ev, ctx, tt, opts, stop, new_depth, ply + 1, scout, -alpha, null_ok)
                count_revisit(ctx, entered)
            if v > alpha and v < beta:
                entered = searched_nodes(ctx)
                v = -pvs(pos, ev, ctx, tt, opts, stop, new_depth, ply + 1, -beta, -alpha, null_ok)
                count_revisit(ctx, entered)
        unmake_move(pos)
        if ctx.stats[STOPPED]:
            return 0.0
        searched += 1
        if v > best:
            best = v
            best_move = m
            update_pv(ctx, ply, m)
            alpha = max(alpha, v)
            if v >= beta:
                if quiet and not quiescence:
                    if opts.history_malus:
                        credit_quiet_cutoff(pos, ctx, ply, i, depth)
                    else:
                        update_quiet_cutoff(pos, ctx, ply, m, depth, True, True)
                break

    if quiescence and checked and searched == 0:
        return mated_in(ply)  # unreachable: evasions exist, every one is searched
    if best == -INFINITE:
        best = alpha_orig  # all captures delta-pruned: fail low at the bound
    if not skipping:  # a root with moves left out is not the position's true value
        tt_store_result(tt, key, max(depth, 0), ply, best, alpha_orig, beta, best_move)
    return best
