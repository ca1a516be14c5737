"""Ending games early from the engines' own scores (pure functions, no engines here).

Resign: over the last ``resign_moves`` moves of *each* side, the side ahead reported
at least ``+resign_score`` and the other side at most ``-resign_score``, each from its
own point of view. Both engines must agree, so one deluded evaluation cannot end a
game it is losing. Draw: from move ``draw_after`` on, both sides reported
``|score| <= draw_score`` on each of their last ``draw_moves`` moves.

A score is centipawns for the side that moved, or ``None`` when the engine reported
none (which breaks any run of agreeing scores). Mates are reported as huge scores,
beyond every threshold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import chess

#: One engine move: who moved and what that engine said of the position.
ScoredMove = tuple[chess.Color, float | None]


@dataclass(frozen=True)
class Adjudication:
    """Thresholds in centipawns; ``None`` turns a rule off."""

    resign_score: float | None = None
    resign_moves: int = 3
    draw_score: float | None = None
    draw_moves: int = 8
    draw_after: int = 40  # full moves into the game (opening moves included)

    def __post_init__(self) -> None:
        if self.resign_moves < 1 or self.draw_moves < 1:
            raise ValueError("resign and draw rules need at least one move")
        if self.draw_after < 0:
            raise ValueError("draw_after must be >= 0")
        for score in (self.resign_score, self.draw_score):
            if score is not None and score < 0:
                raise ValueError("adjudication scores must be >= 0 centipawns")


def _last_moves(history: Sequence[ScoredMove], moves: int) -> list[tuple[chess.Color, float]]:
    """The last ``moves`` moves of each side, or nothing if some lack a score."""
    window = [(side, score) for side, score in history[-2 * moves :] if score is not None]
    return window if len(window) == 2 * moves else []


def resign_winner(history: Sequence[ScoredMove], rule: Adjudication) -> chess.Color | None:
    """The side both engines agree is winning, if the resign rule applies."""
    if rule.resign_score is None:
        return None
    window = _last_moves(history, rule.resign_moves)
    threshold = rule.resign_score
    for winner in (chess.WHITE, chess.BLACK):
        if window and all(
            score >= threshold if side == winner else score <= -threshold for side, score in window
        ):
            return winner
    return None


def is_dead_draw(history: Sequence[ScoredMove], plies_played: int, rule: Adjudication) -> bool:
    """Whether the draw rule applies after ``plies_played`` plies of the game."""
    if rule.draw_score is None or plies_played < 2 * rule.draw_after:
        return False
    window = _last_moves(history, rule.draw_moves)
    return bool(window) and all(abs(score) <= rule.draw_score for _, score in window)


def adjudicate(
    history: Sequence[ScoredMove], plies_played: int, rule: Adjudication
) -> tuple[str, str] | None:
    """``(result, termination)`` if a rule ends the game now, else None."""
    winner = resign_winner(history, rule)
    if winner is not None:
        return ("1-0" if winner == chess.WHITE else "0-1"), "adjudicated: resign"
    if is_dead_draw(history, plies_played, rule):
        return "1/2-1/2", "adjudicated: draw"
    return None
