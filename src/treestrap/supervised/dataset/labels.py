"""The three classes of Serban's outcome prediction and how a game result maps to one.

The class is the game's result from White's side, not the side to move's: a position's
label says who won the game it came from (Serban 2014, section 6.1). Class 0 is a white
win, 1 a draw, 2 a black win, so the order reads from White's best to worst.
"""

from __future__ import annotations

import chess

WHITE_WINS, DRAW, BLACK_WINS = 0, 1, 2
CLASS_NAMES = ("white_wins", "draw", "black_wins")
CLASS_NB = 3

#: PGN result strings with a label. "*" (unknown, unfinished) has none.
RESULT_LABELS = {"1-0": WHITE_WINS, "1/2-1/2": DRAW, "0-1": BLACK_WINS}
#: Every termination marker PGN allows at the end of the movetext.
RESULT_TOKENS = frozenset([*RESULT_LABELS, "*"])


def label_of_result(result: str | None) -> int | None:
    """The class of a PGN result string, or ``None`` for "*", "?" or garbage."""
    return RESULT_LABELS.get((result or "").strip())


def label_of_outcome(outcome: chess.Outcome) -> int:
    """The class of a game that ended on the board (mate or a draw rule)."""
    if outcome.winner is None:
        return DRAW
    return WHITE_WINS if outcome.winner == chess.WHITE else BLACK_WINS


def result_of_label(label: int) -> str:
    """The PGN result string of a class."""
    return ("1-0", "1/2-1/2", "0-1")[label]
