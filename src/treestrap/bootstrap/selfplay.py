"""Self-play games that write their own training data as they are played.

The run's best player plays both sides at a fixed node budget a move, from a line of
the book and a few random plies (both drawn from the run's seed and the game's
number). Every position it searches becomes a record of
:mod:`treestrap.distill.position_file` with the search's score, once the game's result
is known, unless the position is of no use to a static evaluation: the side to move
in check, the best move a capture or promotion (the value lies in the exchange a
search plays out, not in the position), or the game already decided (a score beyond
:data:`DECIDED`). A game whose score stays decided for :data:`DECIDED_PLIES` plies
ends there, scored for the side ahead.

Games are played in chunks of a fixed size; a chunk goes to disk as one file, written
under a temporary name and renamed when complete, so a kill loses at most the chunk
being played and a resumed run plays it again (the same games: node budgets make the
searches deterministic).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from treestrap.bootstrap.chunks import ChunkSummary, GamePlayer, play_chunk_file
from treestrap.bootstrap.recorded_game import Recorder, play_recorded_game
from treestrap.core.makemove import make_move
from treestrap.core.move import is_capture, is_promotion
from treestrap.core.notation import legal_moves, parse_uci_move, position_from_board
from treestrap.core.position import ST_PLY, ST_SIDE, Position, in_check
from treestrap.distill.position_file import RECORD, RECORD_NAME, pack_position
from treestrap.engine.engine import Engine
from treestrap.evaluation.weight_files import load_weights
from treestrap.games.chess_game import CHESS_GAME
from treestrap.play.contract_game import ContractTable
from treestrap.play.loop import FIRST_WINS, SECOND_WINS, Ending, Turn
from treestrap.play.openings import Opening, built_in_book
from treestrap.search.timeman import SearchLimits

#: A score (cp, side to move) from which a game counts as decided.
DECIDED = 1500
#: Plies of decided scores in a row that end a game.
DECIDED_PLIES = 6
#: Records are kept from this ply on (the book's moves are no one's choice).
FIRST_RECORDED_PLY = 8


@dataclass(frozen=True)
class SelfPlaySettings:
    """How a round's self-play games are played."""

    nodes: int = 5000
    games: int = 1000
    chunk: int = 50
    random_plies: int = 4
    max_plies: int = 300
    seed: int = 0
    hash_mb: int = 16

    def chunks(self) -> int:
        return -(-self.games // self.chunk)


def _opening(settings: SelfPlaySettings, number: int, book: list[Opening]) -> Position:
    """Game ``number``'s start: a book line and random plies, drawn from (seed, number)."""
    rng = np.random.default_rng([settings.seed, number])
    pos = position_from_board(book[int(rng.integers(len(book)))].board())
    for _ in range(settings.random_plies):
        moves = legal_moves(pos)
        if not moves:
            break
        make_move(pos, moves[int(rng.integers(len(moves)))])
    return pos


class _Recorder(Recorder):
    """The run's player, searching at a node budget and keeping the positions of use."""

    def __init__(self, engine: Engine, settings: SelfPlaySettings) -> None:
        super().__init__()
        self.engine = engine
        self.limits = SearchLimits(nodes=settings.nodes)
        self.decided_run = 0

    def turn(self, table: ContractTable) -> Turn:
        pos = table.pos
        outcome = self.engine.go(pos, self.limits)
        self.nodes += outcome.nodes
        move = parse_uci_move(pos, outcome.best_move)
        score = outcome.score
        self.decided_run = self.decided_run + 1 if abs(score) >= DECIDED else 0
        if self.decided_run >= DECIDED_PLIES:
            ahead_white = (score > 0) == (int(pos.st[ST_SIDE]) == 0)
            return Turn(ending=Ending(FIRST_WINS if ahead_white else SECOND_WINS, "decided"))
        quiet = not (in_check(pos) or is_capture(move) or is_promotion(move))
        ply = table.plies()
        if quiet and ply >= FIRST_RECORDED_PLY and abs(score) < DECIDED:
            self.keep(pack_position(pos, score, 0, ply), int(pos.st[ST_SIDE]))
        return Turn(move)


def play_game(
    engine: Engine, settings: SelfPlaySettings, number: int, book: list[Opening]
) -> tuple[np.ndarray, str, int, int]:
    """One game: its records (results filled in), its result for white (``FIRST_WINS``, ...),
    its plies and the nodes searched."""
    pos = _opening(settings, number, book)
    engine.new_game()
    recorder = _Recorder(engine, settings)
    start = int(pos.st[ST_PLY])
    return play_recorded_game(CHESS_GAME, pos, start, recorder, RECORD, settings.max_plies)


def play_chunk(
    model_path: Path, settings: SelfPlaySettings, data_dir: Path, index: int
) -> ChunkSummary:
    """Play chunk ``index`` (games ``index * chunk + 1`` on) with the player of
    ``model_path`` and write its file; a chunk already on disk is read, not played."""

    def make_player() -> GamePlayer:
        engine = Engine(load_weights(model_path).evaluator(), hash_mb=settings.hash_mb)
        book = built_in_book()
        return lambda number: play_game(engine, settings, number, book)

    return play_chunk_file(data_dir, index, model_path, settings, RECORD_NAME, make_player)
