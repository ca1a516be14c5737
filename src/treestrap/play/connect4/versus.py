"""Games from a start position (by default the empty board) against the perfect player,
and where the measured player first threw a won game away (issue #29's goal: the first
player wins with perfect play, so a learned first player should beat the perfect second
player).

The perfect player takes its moves from :class:`.solved.SolvedPositions` (exact scores
by default: the quickest win, the longest loss; ties broken by a seeded random choice),
so a persistent cache makes every position near the empty board cost a solve once.
After a game, every move of the measured player is checked with the same cache: the
game-theoretic result (win, draw, loss) before it and after it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from treestrap.connect4.board import ST_PLY, make_move, parse_moves, unmake_move
from treestrap.games.contract import MovePlayer
from treestrap.play.connect4.game import FIRST_WINS, SECOND_WINS, play_connect4_game
from treestrap.play.connect4.solved import DRAW, LOSE, WIN, SolvedPositions

RESULT_WORDS = {WIN: "win", DRAW: "draw", LOSE: "loss"}


class CachedPerfectPlayer:
    """The perfect player over a :class:`SolvedPositions`: a best move, ties broken by
    a random choice seeded per game (``exact=False``: the best result only)."""

    def __init__(self, solved: SolvedPositions, name: str = "perfect", exact: bool = True):
        self.name = name
        self.solved = solved
        self.exact = exact
        self.rng = random.Random(0)

    def new_game(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, pos: Any) -> int:
        best = self.solved.best_moves(pos, exact=self.exact)
        self.solved.save()
        return self.rng.choice(best)


@dataclass(frozen=True)
class MoveCheck:
    """One move of the measured player: ``ply`` counts discs after it (the game's
    first disc is ply 1); results are the mover's, before and after the move."""

    ply: int
    column: int  # 1-7
    before: int  # WIN, DRAW or LOSE
    after: int


@dataclass
class VersusGame:
    """A finished game of ``player`` against the perfect player, checked move by move."""

    player: str
    player_first: bool
    start: str
    moves: str
    result: str  # FIRST_WINS, SECOND_WINS or DRAWN
    checks: list[MoveCheck] = field(default_factory=list)

    @property
    def score(self) -> float:
        """1, 1/2 or 0 for the measured player."""
        won = FIRST_WINS if self.player_first else SECOND_WINS
        lost = SECOND_WINS if self.player_first else FIRST_WINS
        return 1.0 if self.result == won else 0.0 if self.result == lost else 0.5

    @property
    def start_result(self) -> int | None:
        """The measured player's result with perfect play at its first move."""
        return self.checks[0].before if self.checks else None

    @property
    def lost_win_ply(self) -> int | None:
        """The ply of the first move that turned a won game into a draw or a loss."""
        return next((c.ply for c in self.checks if c.before == WIN and c.after != WIN), None)

    @property
    def first_drop_ply(self) -> int | None:
        """The ply of the first move that lowered the result (a win or a draw given up)."""
        return next((c.ply for c in self.checks if c.after < c.before), None)

    def describe(self) -> str:
        side = "first" if self.player_first else "second"
        start = f" from {self.start}" if self.start else ""
        text = f"{self.player} ({side}{start}): {self.moves} {self.result}"
        if self.lost_win_ply is not None:
            return f"{text}; threw the win away at ply {self.lost_win_ply}"
        drop = self.first_drop_ply
        if drop is not None:
            check = next(c for c in self.checks if c.ply == drop)
            words = RESULT_WORDS[check.before], RESULT_WORDS[check.after]
            return f"{text}; {words[0]} turned {words[1]} at ply {drop}"
        held = RESULT_WORDS.get(self.start_result or 0, "draw")
        return f"{text}; kept the perfect-play result ({held})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "player_first": self.player_first,
            "start": self.start,
            "moves": self.moves,
            "result": self.result,
            "score": self.score,
            "start_result": self.start_result,
            "lost_win_ply": self.lost_win_ply,
            "first_drop_ply": self.first_drop_ply,
            "checks": [[c.ply, c.column, c.before, c.after] for c in self.checks],
        }


def check_moves(moves: str, start_plies: int, mover_parity: int, solved: Any) -> list[MoveCheck]:
    """The result before and after every move of the player moving at plies of
    ``mover_parity`` (0: the first player), from ply ``start_plies`` of ``moves``."""
    pos = parse_moves(moves[:start_plies])
    checks = []
    for text in moves[start_plies:]:
        ply = int(pos.st[ST_PLY])
        column = int(text)
        if ply % 2 == mover_parity:
            make_move(pos, column - 1)
            after = -solved.result(pos)
            unmake_move(pos)
            # a move that keeps a win needs no look at the position before it (the
            # empty board's would be a long solve)
            before = WIN if after == WIN else solved.result(pos)
            make_move(pos, column - 1)
            checks.append(MoveCheck(ply + 1, column, before, after))
        else:
            make_move(pos, column - 1)
    return checks


def play_versus_perfect(
    player: MovePlayer,
    perfect: CachedPerfectPlayer,
    start: str = "",
    player_first: bool = True,
    seed: int = 0,
) -> VersusGame:
    """One game from ``start`` (columns 1-7, the first player's disc first; the side to
    move next is whoever's turn it is); ``player_first``: the measured player is the
    first player."""
    first, second = (player, perfect) if player_first else (perfect, player)
    game = play_connect4_game(first, second, start, seed)
    checks = check_moves(game.moves, len(start), 0 if player_first else 1, perfect.solved)
    perfect.solved.save()
    return VersusGame(player.name, player_first, start, game.moves, game.result, checks)


def summary_lines(games: list[VersusGame]) -> list[str]:
    """One line per player and side: wins, draws, losses, and the plies where the win
    was thrown away (``-`` for a game that kept it or never had it)."""
    groups: dict[tuple[str, bool], list[VersusGame]] = {}
    for game in games:
        groups.setdefault((game.player, game.player_first), []).append(game)
    lines = []
    for (player, first), group in groups.items():
        wins = sum(g.score == 1.0 for g in group)
        draws = sum(g.score == 0.5 for g in group)
        plies = " ".join(str(g.lost_win_ply or "-") for g in group)
        side = "first" if first else "second"
        lines.append(
            f"{player} ({side}): +{wins} ={draws} -{len(group) - wins - draws}; "
            f"win thrown away at plies: {plies}"
        )
    return lines
