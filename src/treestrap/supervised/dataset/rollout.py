"""Rollout completion (Serban 2014, section 6.6): a game that did not end on the board
(a resignation, an agreed draw, a loss on time, an unfinished game) is played on by
Stockfish on both sides until the rules end it, and the result of that rollout becomes
the game's label.

Label choice. Every position of a completed game, its original ones and the appended
ones, is labelled with the rollout's result, as Serban did ("the outcome of the game
was taken to be the result from the simulation"). The dataset also keeps each game's
PGN result, so the variant without rollouts (his Table 6.5, and the other half of his
Figure 6.2) is the same dataset loaded with ``rollout=False``: appended positions
dropped, every position labelled with its PGN result.

A rollout that has not ended after ``max_plies`` plies is abandoned and the game kept
as it was, with its PGN result and no appended positions (Serban's safety hatch).
"""

from __future__ import annotations

import chess
import chess.engine

from treestrap.supervised.dataset.labels import label_of_outcome


def finished_on_board(board: chess.Board) -> bool:
    """Whether the rules ended the game here: mate, stalemate, a dead position, or a
    draw either side could claim (threefold repetition, fifty moves)."""
    return board.is_game_over(claim_draw=True)


def roll_out(
    board: chess.Board,
    engine: chess.engine.SimpleEngine,
    depth: int,
    max_plies: int,
    game: object,
) -> tuple[list[chess.Move], int | None]:
    """The moves Stockfish plays from ``board`` to the end of the game and the class of
    the result, or ``(moves, None)`` if it did not end within ``max_plies``.

    ``board`` is left as it was. Draws are claimed as soon as they can be, as a player
    would: the engine alone does not know the game should stop there.
    """
    board = board.copy()
    moves: list[chess.Move] = []
    limit = chess.engine.Limit(depth=depth)
    while not finished_on_board(board):
        if len(moves) >= max_plies:
            return moves, None
        move = engine.play(board, limit, game=game).move
        if move is None:  # cannot happen in a position with legal moves
            return moves, None
        board.push(move)
        moves.append(move)
    outcome = board.outcome(claim_draw=True)
    assert outcome is not None
    return moves, label_of_outcome(outcome)
