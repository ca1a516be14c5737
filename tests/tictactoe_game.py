"""Tic-tac-toe, registered by the test suite alone: the proof that a game is one
registration. Its facts, its contract over the kernels of :mod:`tictactoe_kernels`,
its records and openings. Its models and weight files are the game-neutral kernel
models (:mod:`treestrap.games.kernel_models`), its players the kernel players
(:mod:`treestrap.play.kernel_players`: ``random``, ``perfect``, ``PATH.npz[:depth=N]``);
nothing under ``src/`` names it. Moves are cells, written 1-9 row by row from the top
left.
"""

from __future__ import annotations

import random
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np
import tictactoe_kernels as kernels
from tictactoe_kernels import CELLS, INPUT_NB, Position

from treestrap.games.contract import Game, SearchPlan, TournamentPlay
from treestrap.games.facts import GameFacts, RefusedOption
from treestrap.games.kernel_models import KernelModelKind
from treestrap.games.learning_sources import plain_learning_search
from treestrap.games.line_record import LineRecord
from treestrap.games.move_pgn import move_pgn
from treestrap.games.network_inputs import ReplayInputs
from treestrap.play.kernel_players import FORMS, KernelPlayers

NAME = "tictactoe"
_SELF_PLAY = "tic-tac-toe learns by self-play"
TICTACTOE_FACTS = GameFacts(
    name=NAME,
    title="Tic-tac-toe",
    contract="tictactoe_game:TICTACTOE_GAME",
    train_defaults={"game": NAME, "feature_set": NAME, "freeze": []},
    refused_options=(
        RefusedOption("opponent", "self", "--opponent", _SELF_PLAY),
        RefusedOption("ladder", False, "--ladder", _SELF_PLAY),
        RefusedOption("openings", None, "--openings", "its games start from random openings"),
        RefusedOption("clock", None, "--clock", "give --depth or --nodes"),
        RefusedOption("node_value", "static", "--node-value", "it has no quiescence search"),
        RefusedOption("linear_part", None, "--linear-part", "hybrids are chess networks"),
    ),
    # Its errors are mostly won games (9999) against weights near 1, so the paper's
    # steps barely move them: each factor is a power of ten that learned, without
    # diverging, from 20 games at depth 2 (ten times treestrap-mm's diverged).
    step_factors={
        "td": 100.0,
        "td-root": 1e6,
        "td-leaf": 100.0,
        "rootstrap-mm": 1000.0,
        "rootstrap-ab": 1000.0,
        "treestrap-mm": 10.0,
        "treestrap-ab": 1000.0,
    },
    network_inputs=NAME,
    network_activations=("tanh",),
    hybrids=False,
    games_file="games.txt",
    record_end="\n",
)


# --- models (linear weights over the features, a tanh network over the cells) --------

MODELS = KernelModelKind(NAME, tuple(kernels.FEATURE_NAMES), INPUT_NB, kernels.make_evaluator)


#: What a side to move makes of a position, as the features count it.
HAND_SET = [4, 3, 2, -4, -3, -2, 10, 500, -10, -200, 0]


# --- searches, records, openings ------------------------------------------------------


def learning_search(plan: SearchPlan) -> Any:
    """The search family compiled with tic-tac-toe's kernels, as ``plan`` asks."""
    return plain_learning_search(kernels, kernels.new_record, plan)


def _terminal(pos: Position, buffer: np.ndarray) -> tuple[float | None, str]:
    t = kernels.terminal_value(pos)
    if t == kernels.NOT_TERMINAL:
        return None, ""
    return float(t), "three in a row" if t == kernels.LOSS else "full board"


def _move_text(pos: Position, move: int) -> str:
    return str(int(move) + 1)


def _parse_move(pos: Position, text: str) -> int:
    if not (len(text) == 1 and text in "123456789" and not _taken(pos) >> (int(text) - 1) & 1):
        raise ValueError(f"{text!r} is not an empty cell (1-9)")
    return int(text) - 1


def _taken(pos: Position) -> int:
    return int(pos.marks[0] | pos.marks[1])


def _input_row(pos: Position) -> np.ndarray:
    row, idx = np.zeros(INPUT_NB), np.zeros(INPUT_NB, dtype=np.int32)
    row[idx[: kernels.active_inputs(pos, idx)]] = 1.0
    return row


#: Cell ``i`` of a board is cell ``MIRROR[i]`` of its mirror image, left to right.
MIRROR = np.array([3 * (c // 3) + 2 - c % 3 for c in range(CELLS)])
_MIRROR_INPUTS = np.array([*MIRROR, *(CELLS + MIRROR), INPUT_NB - 1])


def training_opening(seed: int, number: int) -> list[int]:
    """One or two random cells (no game ends in fewer than five plies)."""
    rng = np.random.default_rng([seed, number])
    return [int(c) for c in rng.permutation(CELLS)[: int(rng.integers(1, 3))]]


def tournament_openings(count: int, plies: int, seed: int) -> list[list[int]]:
    rng = random.Random(f"{NAME}-openings/{seed}/{plies}")
    return [rng.sample(range(CELLS), plies) for _ in range(count)]


_RULES = Game(
    name=NAME,
    start_position=kernels.new_position,
    copy_position=kernels.copy_position,
    new_move_buffer=lambda: np.zeros(CELLS, dtype=np.int64),
    legal_moves=kernels.legal_moves,
    make_move=kernels.make_move,
    unmake_move=kernels.unmake_move,
    terminal=_terminal,
    side_to_move=kernels.side_to_move,
    key=kernels.position_key,
    evaluate=kernels.evaluate,
    evaluate_gradient=kernels.evaluate_gradient,
    move_text=_move_text,
    parse_move=_parse_move,
    no_move=kernels.NO_MOVE,
    learning_search=learning_search,
    feature_names=lambda feature_set: kernels.FEATURE_NAMES,
    random_model=MODELS.random_linear,
    hand_set_model=lambda feature_set: MODELS.linear(HAND_SET),
    random_network=MODELS.random_network,
    load_model=MODELS.load,
    network_inputs=ReplayInputs(
        INPUT_NB, INPUT_NB - 1, lambda rows: rows[:, _MIRROR_INPUTS], False
    ),
    network_input_row=_input_row,
    start_record=lambda opening: LineRecord(
        kernels.new_position(), opening, _move_text, kernels.make_move
    ),
    opening=training_opening,
)
PLAYERS = KernelPlayers(_RULES, kernels, "tic-tac-toe")
TICTACTOE_GAME = replace(
    _RULES,
    tournament_play=TournamentPlay(
        PLAYERS.parse_all,
        PLAYERS.make,
        tournament_openings,
        partial(move_pgn, "Tic-tac-toe"),
        PLAYERS.weights_player,
        FORMS,
        opening_plies=2,
        max_opening_plies=4,
    ),
)
