"""A Connect Four player measured against perfect play (issue #29).

Two measures, both exact because the game is solved:

* over scored reference positions: the share where the player's move is a best move
  (the highest score), and the share where it keeps the game-theoretic result (a win
  stays a win, a draw a draw; from a lost position every move keeps it), each with a
  95% Wilson interval; for a search player also the share of the won and lost
  positions whose static value (its evaluation, no search) has the result's sign
  (drawn positions have no sign to match and are left out);
* games against the exact solver and weakened ones (a random move with probability
  ``p``), from seeded random openings, each played with both colours: wins, draws and
  losses, the score; of the games whose opening perfect play wins or draws for the
  player's colour, the share it won or drew as perfect play would (``held``); of the
  games perfect play loses, the share it still drew or won (``turned``: never against
  ``p = 0``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tqdm import tqdm

from treestrap.connect4.board import Position, parse_moves
from treestrap.games.connect4_players import PerfectPlayer
from treestrap.games.contract import MovePlayer
from treestrap.play.connect4.game import FIRST_WINS, SECOND_WINS, play_connect4_game
from treestrap.play.connect4.reference import ReferencePosition
from treestrap.rating.elo import Z95

#: The weakened solvers' chances of a random move, the default opponents.
DEFAULT_P = (0.0, 0.1, 0.25, 0.5)
#: Random plies before a measured game: as few discs as the reference positions hold,
#: where the solver answers in about a second (near the empty board it takes minutes).
DEFAULT_OPENING_PLIES = 8


@dataclass(frozen=True)
class Share:
    """``hits`` of ``total``, with a 95% Wilson score interval."""

    hits: int
    total: int

    @property
    def value(self) -> float:
        return self.hits / self.total if self.total else 0.0

    def interval(self) -> tuple[float, float]:
        n = self.total
        if n == 0:
            return (0.0, 1.0)
        p, z2 = self.value, Z95 * Z95
        centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
        # at none or all hits the bound on that side is exact (rounding aside)
        low = 0.0 if self.hits == 0 else max(0.0, centre - half)
        return (low, 1.0 if self.hits == n else min(1.0, centre + half))

    def describe(self) -> str:
        lo, hi = self.interval()
        return f"{100 * self.value:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"

    def to_dict(self) -> dict[str, Any]:
        lo, hi = self.interval()
        return {"hits": self.hits, "total": self.total, "share": self.value, "low": lo, "high": hi}


def position_agreement(
    player: MovePlayer, positions: Sequence[ReferencePosition], bar: Any = None
) -> tuple[Share, Share]:
    """(best-move share, result-kept share) of ``player`` over ``positions``."""
    best = kept = 0
    for ref in positions:
        player.new_game(0)  # each position on its own: nothing kept from the last
        col = player.choose(parse_moves(ref.moves))
        if not ref.scores[col] > -1000:
            raise ValueError(f"{player.name} chose full column {col + 1} in {ref.moves}")
        best += ref.is_best(col)
        kept += ref.keeps_result(col)
        if bar is not None:
            bar.update(1)
    return Share(best, len(positions)), Share(kept, len(positions))


def static_sign_agreement(
    static_value: Callable[[Position], float], positions: Sequence[ReferencePosition]
) -> Share:
    """The share of the won and lost ``positions`` whose static value for the side to
    move has the sign of the position's result (a value of 0 matches neither)."""
    decisive = [ref for ref in positions if ref.best != 0]
    hits = 0
    for ref in decisive:
        value = static_value(parse_moves(ref.moves))
        hits += (value > 0) == (ref.best > 0) and value != 0
    return Share(hits, len(decisive))


@dataclass
class GamesAgainst:
    """The measured player's games against one opponent."""

    opponent: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    first: list[int] = field(default_factory=lambda: [0, 0, 0])  # W, D, L moving first
    fair: int = 0  # games whose opening perfect play wins or draws for the player
    held: int = 0  # ... of them, those scoring at least that result
    turned: int = 0  # games perfect play loses that the player won or drew

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    @property
    def held_share(self) -> float:
        return self.held / self.fair if self.fair else 0.0

    @property
    def turned_share(self) -> float:
        lost = self.games - self.fair
        return self.turned / lost if lost else 0.0

    def wdl(self) -> str:
        return f"+{self.wins} ={self.draws} -{self.losses}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "opponent": self.opponent,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": self.score,
            "first_player_wdl": list(self.first),
            "won_or_drawn_openings": self.fair,
            "held": self.held,
            "held_share": self.held_share,
            "turned": self.turned,
            "turned_share": self.turned_share,
        }


def opening_results(openings: Sequence[str], solver: Any) -> list[int]:
    """The game-theoretic result of each opening for the first player: 1, 0 or -1."""
    results = []
    for opening in openings:
        score = solver.solve(parse_moves(opening))
        sign = (score > 0) - (score < 0)
        results.append(sign if len(opening) % 2 == 0 else -sign)
    return results


def games_against(
    player: MovePlayer,
    opponent: MovePlayer,
    openings: Sequence[str],
    values: Sequence[int],
    seed: int,
    bar: Any = None,
) -> GamesAgainst:
    """Each opening twice, ``player`` first then second; ``values`` are the openings'
    results for the first player (:func:`opening_results`)."""
    tally = GamesAgainst(opponent.name)
    for k, (opening, value) in enumerate(zip(openings, values, strict=True)):
        for as_first in (True, False):
            first, second = (player, opponent) if as_first else (opponent, player)
            game = play_connect4_game(first, second, opening, seed * 1_000_003 + 2 * k + as_first)
            won = game.result == (FIRST_WINS if as_first else SECOND_WINS)
            lost = game.result == (SECOND_WINS if as_first else FIRST_WINS)
            outcome = 0 if won else 2 if lost else 1
            tally.wins += won
            tally.losses += lost
            tally.draws += not (won or lost)
            if as_first:
                tally.first[outcome] += 1
            deserved = value if as_first else -value  # 1, 0 or -1 for the player
            mine = 1 - outcome
            tally.fair += deserved >= 0
            tally.held += deserved >= 0 and mine >= deserved
            tally.turned += deserved < 0 and mine > deserved
            if bar is not None:
                bar.update(1)
    return tally


@dataclass
class PlayerMeasure:
    """One player (a model at one depth) measured both ways."""

    name: str
    spec: str
    depth: int | None
    best: Share
    kept: Share
    games: list[GamesAgainst]
    #: the static value's sign against the result (search players only)
    static_sign: Share | None = None
    #: a timed player's seconds a move, and the mean depth its moves on the positions reached
    seconds: float | None = None
    mean_depth: float | None = None
    #: a proving timed player's share of the positions whose move a proof settled
    proven: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.name,
            "spec": self.spec,
            "depth": self.depth,
            "seconds": self.seconds,
            "mean_depth": self.mean_depth,
            "proven": self.proven,
            "best_move": self.best.to_dict(),
            "keeps_result": self.kept.to_dict(),
            "static_sign": None if self.static_sign is None else self.static_sign.to_dict(),
            "games": [g.to_dict() for g in self.games],
        }


def measure_player(
    player: MovePlayer,
    spec: str,
    depth: int | None,
    positions: Sequence[ReferencePosition],
    openings: Sequence[str],
    values: Sequence[int],
    ps: Sequence[float],
    solver: Any,
    seed: int,
    progress: bool = False,
    known_sign: Share | None = None,
) -> PlayerMeasure:
    """Both measures of one player; opponents are perfect players sharing ``solver``.
    ``known_sign``: the static-sign share of the same evaluation measured before (at
    another depth or time), not worked out again."""
    total = len(positions) + 2 * len(openings) * len(ps)
    static_value = getattr(player, "static_value", None)
    seconds = getattr(player, "seconds", None)
    with tqdm(total=total, unit="step", desc=player.name, disable=not progress) as bar:
        best, kept = position_agreement(player, positions, bar)
        sign = known_sign
        if sign is None and static_value is not None:
            sign = static_sign_agreement(static_value, positions)
        reached = list(getattr(player, "timed_depths", []))
        mean_depth = sum(reached) / len(reached) if seconds is not None and reached else None
        proven = None
        if seconds is not None and reached and getattr(player, "proof", None) is not None:
            proven = player.proven / len(reached)  # type: ignore[attr-defined]
        games = [
            games_against(
                player, PerfectPlayer(f"perfect-p{p:g}", p, solver), openings, values, seed, bar
            )
            for p in ps
        ]
    return PlayerMeasure(
        player.name, spec, depth, best, kept, games, sign, seconds, mean_depth, proven
    )
