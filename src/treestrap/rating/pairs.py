"""Game pairs of a two-player match, and their pentanomial and trinomial counts.

A pair is one opening played twice with the colours reversed. Its score for the player
under test is 0, 1/2, 1, 3/2 or 2, counted in fishtest's order ``[LL, LD/DL, DD/WL,
WD/DW, WW]``; single games count as ``[L, D, W]``.

Finding the pairs in finished results (:func:`pair_results`):

* by round: ``treestrap tournament`` gives both games of an opening the same round (the
  opening's number, in ``results.sqlite`` and the PGN Round tag), so two games between
  the players that share a round, colours reversed, are a pair;
* in order: where no round holds such two games (cutechess numbers every game its own
  round), the games between the two are paired as they are stored: first with second,
  third with fourth, each pair needing reversed colours.

Games that fit no pair (a round with one game, or three) are left out of the
pentanomial count and reported as unpaired.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from treestrap.rating.results import RoundResult

#: A game's points for the player under test, by result and whether it had White.
_POINTS = {
    ("1-0", True): 1.0,
    ("1-0", False): 0.0,
    ("0-1", True): 0.0,
    ("0-1", False): 1.0,
    ("1/2-1/2", True): 0.5,
    ("1/2-1/2", False): 0.5,
}


def points(result: str, player_is_white: bool) -> float | None:
    """The player's points from one game; None for an unfinished one."""
    return _POINTS.get((result, player_is_white))


def pentanomial(pair_scores: Iterable[float]) -> list[int]:
    """``[LL, LD, DD/WL, WD, WW]`` counts of pair scores (0 to 2 in halves)."""
    counts = [0] * 5
    for score in pair_scores:
        counts[round(2 * score)] += 1
    return counts


def trinomial(game_scores: Iterable[float]) -> list[int]:
    """``[L, D, W]`` counts of game scores (0, 1/2 or 1)."""
    counts = [0] * 3
    for score in game_scores:
        counts[round(2 * score)] += 1
    return counts


@dataclass(frozen=True)
class Pairing:
    """The games between a player and its opponent, paired."""

    pair_scores: list[float]  # the player's points in each pair, in order
    game_scores: list[float]  # its points in every finished game between the two
    unpaired: int  # games in no pair
    by_round: bool  # paired by round (else in stored order)

    @property
    def pentanomial(self) -> list[int]:
        return pentanomial(self.pair_scores)

    @property
    def trinomial(self) -> list[int]:
        return trinomial(self.game_scores)

    def describe(self) -> str:
        how = "by round" if self.by_round else "in stored order"
        extra = f", {self.unpaired} games unpaired" if self.unpaired else ""
        return f"{len(self.pair_scores)} pairs ({how}{extra})"


def pair_results(games: Sequence[RoundResult], player: str, opponent: str) -> Pairing:
    """The pairs of ``player``'s finished games against ``opponent`` (see the module
    docstring for how they are found)."""
    if player == opponent:
        raise ValueError("player and opponent must differ")
    between: list[tuple[str, bool, float]] = []  # (round, player had White, points)
    for white, black, result, round_ in games:
        if {white, black} != {player, opponent}:
            continue
        score = points(result, white == player)
        if score is not None:
            between.append((round_, white == player, score))
    by_round = _pairs_by_round(between)
    if by_round:
        pair_scores = by_round
    else:
        pair_scores = [
            first[2] + second[2]
            for first, second in zip(between[0::2], between[1::2], strict=False)
            if first[1] != second[1]
        ]
    return Pairing(
        pair_scores,
        [score for _, _, score in between],
        len(between) - 2 * len(pair_scores),
        bool(by_round),
    )


def _pairs_by_round(between: list[tuple[str, bool, float]]) -> list[float]:
    """Scores of the rounds that hold exactly two games, colours reversed, in the order
    the rounds first appear."""
    rounds: dict[str, list[tuple[bool, float]]] = {}
    for round_, white, score in between:
        rounds.setdefault(round_, []).append((white, score))
    return [
        games[0][1] + games[1][1]
        for round_, games in rounds.items()
        if round_ not in ("", "?", "-") and len(games) == 2 and games[0][0] != games[1][0]
    ]
