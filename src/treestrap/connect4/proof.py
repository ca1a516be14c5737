"""A timed player's proof: the exact score of its position and a move that keeps it,
found within a node budget by the player's own exact search, or nothing.

A best move is a column of the highest exact score (the quickest win, the longest
loss); a heuristic search over a learned evaluation finds one in most positions but
cannot tell a quick win from a slow one where both lie beyond its horizon. A proof
settles it where its nodes allow: null windows on the exact score by the exact
search (:func:`treestrap.connect4.solver.negamax`, its own table, kept through the
game and cleared with it), then one null window a column, the player's own choice
first, until a column keeps that score.

This is the player's own search: it starts from an empty table each game, runs within
the player's clock and reads no solved position, book or measurement's table. (The
measurements' oracle is a separate instance of the same search without a limit.)
Learned evaluations were tried as its move order and cost nodes against the order by
threats (``docs/reports/connect4-proof.md``), so the evaluation's part is the move to
try first and the move played where the proof does not finish.
"""

from __future__ import annotations

from typing import NamedTuple

from treestrap.connect4.bits import CENTRE_ORDER
from treestrap.connect4.board import (
    ST_PLY,
    Position,
    can_play,
    make_move,
    new_position,
    play_moves,
    unmake_move,
)
from treestrap.connect4.solver import BudgetSpent, Solver

#: A position of the reference file, quick to prove.
_WARM_UP = "7577445752275465721432"


class ProvenMove(NamedTuple):
    score: int  # the exact score for the side to move (the reference data's units)
    move: int  # a column that keeps it
    nodes: int


#: The table's size: 2**17 entries (1 MiB) stays in the CPU's cache, which made proofs
#: from an empty table a quarter quicker than the oracle's 2**20 for more nodes.
TABLE_BITS = 17


class Proof:
    """Proofs over one table of ``2**table_bits`` entries of 8 bytes."""

    def __init__(self, table_bits: int = TABLE_BITS) -> None:
        self.search = Solver(table_bits)
        #: nodes the last :meth:`best_move` searched, proven or not
        self.last_nodes = 0
        # compile (or load) the kernel now, not inside a player's first timed move (a
        # position of 22 discs: a few thousand nodes)
        self.search.solve(play_moves(new_position(), _WARM_UP))
        self.search.clear()

    def clear(self) -> None:
        self.search.clear()

    def best_move(self, pos: Position, max_nodes: int, first: int = -1) -> ProvenMove | None:
        """A best move of ``pos`` (a game not over) and its score, or ``None`` once
        ``max_nodes`` nodes are spent. Columns are tried ``first`` then centre first.
        ``pos`` is left as it was."""
        if max_nodes < 1:
            return None
        start = self.search.nodes
        self.search.limit_nodes(max_nodes)
        ply = int(pos.st[ST_PLY])
        try:
            score = self.search.solve(pos)
            columns = [first] if first >= 0 else []
            columns += [int(c) for c in CENTRE_ORDER if c != first]
            for col in columns:
                if not can_play(pos, col):
                    continue
                make_move(pos, col)
                try:
                    # the column keeps the score if the opponent's is at most -score
                    keeps = self.search.bound(pos, -score) <= -score
                finally:
                    unmake_move(pos)
                if keeps:
                    return ProvenMove(score, col, self.search.nodes - start)
        except BudgetSpent:
            return None
        finally:
            self.last_nodes = self.search.nodes - start
            self.search.limit_nodes(None)
            assert int(pos.st[ST_PLY]) == ply
        raise AssertionError("no column keeps the proven score")
