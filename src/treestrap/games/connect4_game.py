"""Connect Four as a :class:`~treestrap.games.contract.Game`: the compiled game of
:mod:`treestrap.connect4`, its searches for learning, seeded random openings, and its
tournaments of in-process players (:mod:`treestrap.games.connect4_tournament`).

Self-play at a fixed depth is deterministic, so every training game starts from a short
random opening drawn from (seed, game number): 2 to 4 plies, each one a move after which
the game goes on and the opponent cannot win at once.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from treestrap.connect4 import search_kernels
from treestrap.connect4.bits import WIDTH
from treestrap.connect4.board import (
    DRAW,
    LOSS,
    MAX_MOVES,
    NOT_TERMINAL,
    RANK_WINS,
    ST_PLY,
    Position,
    copy_position,
    legal_moves,
    make_move,
    move_ranks,
    new_position,
    position_key,
    side_to_move,
    terminal_value,
    unmake_move,
)
from treestrap.connect4.evaluator import evaluate, evaluate_gradient, new_connect4_tree
from treestrap.connect4.features import feature_names
from treestrap.connect4.inputs import INPUT_NB, dense_inputs
from treestrap.connect4.search_kernels import NO_MOVE
from treestrap.games.connect4_facts import CONNECT4_FACTS
from treestrap.games.connect4_model import (
    hand_written_connect4_model,
    load_connect4_model,
    random_connect4_model,
)
from treestrap.games.connect4_network import random_connect4_network
from treestrap.games.connect4_tournament import CONNECT4_TOURNAMENT
from treestrap.games.contract import Game, LearningSearch, SearchPlan
from treestrap.games.learning_sources import plain_learning_search
from treestrap.games.line_record import LineRecord
from treestrap.games.network_inputs import CONNECT4_INPUTS

#: Plies of a random opening: at least, at most.
OPENING_PLIES = (2, 4)


def connect4_learning_search(plan: SearchPlan) -> LearningSearch:
    """The Connect Four search of ``plan``: the family's, for a game without captures."""
    return plain_learning_search(search_kernels, new_connect4_tree, plan)


def _terminal(pos: Position, buffer: np.ndarray) -> tuple[float | None, str]:
    t = terminal_value(pos)
    if t == LOSS:
        return -1.0, "four in a row"
    if t == DRAW:
        return 0.0, "full board"
    return None, ""


def _safe_moves(pos: Position) -> list[int]:
    """The moves after which the game goes on and the opponent cannot win at once."""
    safe = []
    buf = np.zeros(MAX_MOVES, dtype=np.int64)
    ranks = np.zeros(WIDTH, dtype=np.int64)
    for m in buf[: legal_moves(pos, buf)].tolist():
        make_move(pos, m)
        if terminal_value(pos) == NOT_TERMINAL:
            move_ranks(pos, ranks)
            if not (ranks == RANK_WINS).any():
                safe.append(m)
        unmake_move(pos)
    return safe


def random_opening(seed: int, number: int) -> list[int]:
    """Game ``number``'s opening moves (columns 0-6), drawn from (seed, number)."""
    rng = np.random.default_rng([seed, number])
    pos = new_position()
    for _ in range(int(rng.integers(OPENING_PLIES[0], OPENING_PLIES[1] + 1))):
        moves = _safe_moves(pos)
        if not moves:
            break
        make_move(pos, moves[int(rng.integers(len(moves)))])
    return [int(m) for m in pos.moves[: int(pos.st[ST_PLY])]]


def _move_text(pos: Position, move: int) -> str:
    return str(int(move) + 1)


def _parse_move(pos: Position, text: str) -> int:
    """Column ``text`` (1-7) as a move (0-6), if it is legal here."""
    buf = np.zeros(MAX_MOVES, dtype=np.int64)
    legal = {int(m) for m in buf[: legal_moves(pos, buf)]}
    if not (text.isdigit() and int(text) - 1 in legal):
        raise ValueError(f"{text!r} is not a legal column here")
    return int(text) - 1


def _input_row(pos: Position) -> np.ndarray:
    row = np.zeros(INPUT_NB)
    dense_inputs(pos, row)
    return row


def _random_model(feature_set: str, seed: int, scale: float) -> Any:
    """Random linear weights, or random n-tuple tables for an ``ntuple:TxL`` start."""
    if feature_set.startswith("ntuple"):
        from treestrap.games.connect4_ntuple import parse_ntuple_spec, random_connect4_ntuple

        return random_connect4_ntuple(*parse_ntuple_spec(feature_set), seed, scale)
    return random_connect4_model(seed, scale)


CONNECT4_GAME = Game(
    name=CONNECT4_FACTS.name,
    start_position=new_position,
    copy_position=copy_position,
    new_move_buffer=lambda: np.zeros(MAX_MOVES, dtype=np.int64),
    legal_moves=legal_moves,
    make_move=make_move,
    unmake_move=unmake_move,
    terminal=_terminal,
    side_to_move=side_to_move,
    key=position_key,
    evaluate=evaluate,
    evaluate_gradient=evaluate_gradient,
    move_text=_move_text,
    parse_move=_parse_move,
    no_move=NO_MOVE,
    learning_search=connect4_learning_search,
    feature_names=lambda feature_set: feature_names(),
    random_model=_random_model,
    hand_set_model=lambda feature_set: hand_written_connect4_model(),
    random_network=lambda sizes, activation, seed, scale: random_connect4_network(
        sizes, seed, scale
    ),
    load_model=load_connect4_model,
    network_inputs=CONNECT4_INPUTS,
    network_input_row=_input_row,
    start_record=lambda opening: LineRecord(new_position(), opening, _move_text, make_move),
    opening=random_opening,
    tournament_play=CONNECT4_TOURNAMENT,
)
