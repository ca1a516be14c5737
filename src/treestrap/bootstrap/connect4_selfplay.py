"""Connect Four self-play games that write their own training data as they are played.

The run's best player (a weight file, searched by the training alpha-beta at a fixed
depth) plays both sides from game ``number``'s opening: the game's own seeded opening
(``Game.opening``, 2 to 4 plies) and a few more random plies drawn from the seed and the
number, each one after which the game goes on and the opponent cannot win at once.
Every position it searches becomes a ``connect4-20`` record
(:mod:`treestrap.distill.connect4_records`) with the search's score and, once the game
ends, its result. When the search proves the result (a win or a loss within its
horizon: a score beyond :data:`~treestrap.search.value.MATE_BOUND`), that position is
the game's last record and the game ends there with the proven result: the player's
own search settled it, and what follows adds nothing a static evaluation needs.

The player never consults the exact solver or anything made from it: it is the weight
file and its search, nothing else. Games are played in chunks (one position file each,
written under a temporary name and renamed when complete); fixed-depth searches from
seeded openings are deterministic, so a chunk played again is the same chunk.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from treestrap.bootstrap.chunks import ChunkSummary, GamePlayer, play_chunk_file
from treestrap.bootstrap.connect4_budgets import Connect4SelfPlay
from treestrap.bootstrap.recorded_game import Recorder, play_recorded_game
from treestrap.connect4.board import (
    MAX_MOVES,
    NOT_TERMINAL,
    ST_PLY,
    Position,
    copy_position,
    legal_moves,
    make_move,
    new_position,
    side_to_move,
    terminal_value,
    unmake_move,
)
from treestrap.connect4.search import Connect4Search
from treestrap.distill.connect4_records import CONNECT4_RECORD, CONNECT4_RECORD_NAME, pack_connect4
from treestrap.games.connect4_facts import CONNECT4_FACTS
from treestrap.games.connect4_model import load_connect4_model
from treestrap.games.connect4_tournament import can_win_now
from treestrap.games.registry import get_game
from treestrap.play.contract_game import ContractTable
from treestrap.play.loop import FIRST_WINS, SECOND_WINS, Ending, Turn
from treestrap.search.value import MATE_BOUND


def _safe_moves(pos: Position) -> list[int]:
    """The moves after which the game goes on and the opponent cannot win at once."""
    buf = np.zeros(MAX_MOVES, dtype=np.int64)
    safe = []
    for move in buf[: legal_moves(pos, buf)].tolist():
        make_move(pos, move)
        if terminal_value(pos) == NOT_TERMINAL and not can_win_now(pos):
            safe.append(int(move))
        unmake_move(pos)
    return sorted(safe)


def opening_position(settings: Connect4SelfPlay, number: int) -> Position:
    """Game ``number``'s start: the game's opening, then ``extra_plies`` random safe
    plies, all drawn from (seed, number)."""
    opening = get_game(CONNECT4_FACTS.name).opening
    assert opening is not None  # Connect Four's runs draw their own openings
    pos = new_position()
    for move in opening(settings.seed, number):
        make_move(pos, move)
    rng = np.random.default_rng([settings.seed, number, 1])
    for _ in range(settings.extra_plies):
        moves = _safe_moves(pos)
        if not moves:
            break
        make_move(pos, moves[int(rng.integers(len(moves)))])
    return pos


class _Recorder(Recorder):
    """The run's player, searching at a fixed depth and keeping every position; a
    result its search proves ends the game there."""

    def __init__(self, evaluator: object, search: Connect4Search, depth: int) -> None:
        super().__init__()
        self.evaluator = evaluator
        self.search = search
        self.depth = depth

    def turn(self, table: ContractTable) -> Turn:
        pos = table.pos
        result = self.search.search(copy_position(pos), self.evaluator, self.depth)
        self.nodes += int(result.nodes)
        score = float(result.value)
        side = side_to_move(pos)
        self.keep(pack_connect4(pos, score, 0, int(pos.st[ST_PLY])), side)
        if abs(score) >= MATE_BOUND:  # proven by the player's own search: the result
            first_wins = (score > 0) == (side == 0)
            return Turn(ending=Ending(FIRST_WINS if first_wins else SECOND_WINS, "proven"))
        return Turn(int(result.best_move))


def play_game(
    evaluator: object, search: Connect4Search, settings: Connect4SelfPlay, number: int
) -> tuple[np.ndarray, str, int, int]:
    """One game: its records (results filled in), its result for the first player
    (``FIRST_WINS``, ...), its plies and the nodes searched."""
    pos = opening_position(settings, number)
    recorder = _Recorder(evaluator, search, settings.depth)
    start = int(pos.st[ST_PLY])
    return play_recorded_game(get_game(CONNECT4_FACTS.name), pos, start, recorder, CONNECT4_RECORD)


def play_connect4_chunk(
    model_path: Path, settings: Connect4SelfPlay, data_dir: Path, index: int
) -> ChunkSummary:
    """Play chunk ``index`` (games ``index * chunk + 1`` on) with the weight file
    ``model_path`` and write its file; a chunk already on disk is read, not played."""

    def make_player() -> GamePlayer:
        evaluator = load_connect4_model(model_path).evaluator()
        search = Connect4Search(tt_bits=settings.tt_bits)
        return lambda number: play_game(evaluator, search, settings, number)

    return play_chunk_file(data_dir, index, model_path, settings, CONNECT4_RECORD_NAME, make_player)
