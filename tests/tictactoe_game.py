"""Tic-tac-toe, registered by the test suite alone: the proof that a game is one
registration. Its facts, its contract over the kernels of :mod:`tictactoe_kernels`,
its models (linear weights and a tanh network) and weight files, its records,
openings and in-process players; nothing under ``src/`` names it.

Moves are cells, written 1-9 row by row from the top left. Players:
``random``, ``perfect`` (exact minimax, a seeded choice among the best moves) and
``PATH.npz[:depth=N]`` (an alpha-beta over a weight file), each optionally as
``NAME=SPEC``.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

import numpy as np
import tictactoe_kernels as kernels
from tictactoe_kernels import CELLS, INPUT_NB, SIZE, Position

from treestrap.evaluation.torch_network import random_network_parameters, torch_network
from treestrap.evaluation.weight_file_format import (
    FORMAT,
    VERSION,
    WeightFileError,
    read_weight_file,
    write_weight_file,
)
from treestrap.games.contract import Game, SearchPlan, TournamentPlay
from treestrap.games.facts import GameFacts, RefusedOption
from treestrap.games.learning_sources import plain_learning_search
from treestrap.games.line_record import LineRecord
from treestrap.games.move_pgn import move_pgn
from treestrap.games.network_inputs import ReplayInputs
from treestrap.play.contract_game import RandomMovePlayer
from treestrap.search.alphabeta import AlphaBetaSearch
from treestrap.search.plain_kernels import PlainSearchOptions

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


# --- models and their weight files ---------------------------------------------------


@dataclass
class LinearModel:
    """Weights over the features of :data:`tictactoe_kernels.FEATURE_NAMES`."""

    weights: np.ndarray
    metadata: dict[str, Any] = field(default_factory=dict)
    is_network: ClassVar[bool] = False
    spec: ClassVar[str] = "linear"
    feature_set_name: ClassVar[str] = NAME

    def feature_names(self) -> list[str]:
        return kernels.FEATURE_NAMES

    def evaluator(self) -> kernels.Evaluator:
        return kernels.make_evaluator(self.weights)  # shared: the rules learn in place

    def save(self, path: Any) -> None:
        _save(self, {"model": "linear", "feature_set": NAME}, path)


@dataclass
class NetworkModel:
    """A tanh network of layer ``sizes`` (the last 1) over the 19 inputs."""

    sizes: list[int]
    weights: np.ndarray
    metadata: dict[str, Any] = field(default_factory=dict)
    is_network: ClassVar[bool] = True
    activation: ClassVar[str] = "tanh"
    feature_set_name: ClassVar[str] = NAME

    @property
    def spec(self) -> str:
        return "mlp:" + ",".join(map(str, self.sizes[:-1])) if self.sizes[1:] else "logreg"

    def describe(self) -> str:
        return self.spec

    def evaluator(self) -> kernels.Evaluator:
        return kernels.make_evaluator(self.weights.copy(), self.sizes)  # the rule writes it

    def torch_twin(self) -> Any:
        return torch_network(self.sizes, self.weights, INPUT_NB)

    @staticmethod
    def write_evaluator(ev: kernels.Evaluator, params: np.ndarray) -> None:
        ev.weights[:] = params

    def save(self, path: Any) -> None:
        _save(self, {"model": "network", "sizes": self.sizes}, path)


def _save(model: Any, kind: dict[str, Any], path: Any) -> None:
    shape = [int(model.weights.size)]
    meta = {"format": FORMAT, "version": VERSION, "game": NAME, **kind, "shape": shape}
    write_weight_file(Path(path), model.weights, {**meta, "metadata": model.metadata})


def load_model(path: Any) -> LinearModel | NetworkModel:
    """A tic-tac-toe weight file, linear or a network; ``WeightFileError`` otherwise."""
    meta, weights = read_weight_file(Path(path))
    metadata = meta.get("metadata", {})
    if meta.get("game") != NAME or not isinstance(metadata, dict):
        raise WeightFileError(f"{path}: not a tic-tac-toe weight file")
    sizes = meta.get("sizes", [])
    expected = SIZE if meta.get("model") == "linear" else _parameter_count(sizes)
    if expected < 0:
        raise WeightFileError(f"{path}: no tic-tac-toe model {meta.get('model')!r} of {sizes!r}")
    if weights.shape != (expected,) or not np.all(np.isfinite(weights)):
        raise WeightFileError(f"{path}: {weights.shape} weights, not {expected} finite ones")
    if meta.get("model") == "linear":
        return LinearModel(weights, metadata)
    return NetworkModel(sizes, weights, metadata)


def _parameter_count(sizes: Any) -> int:
    """The parameters of a network of layer ``sizes``; -1 for sizes no network has."""
    if not (isinstance(sizes, list) and sizes[-1:] == [1] and all(type(s) is int for s in sizes)):
        return -1
    fan_in = [INPUT_NB, *sizes[:-1]]
    return sum(a * b + b for a, b in zip(fan_in, sizes, strict=True))


def random_model(feature_set: str, seed: int, scale: float) -> LinearModel:
    rng = np.random.default_rng(seed)
    return LinearModel(rng.uniform(-scale, scale, SIZE), {"preset": "random", "seed": seed})


#: What a side to move makes of a position, as the features count it.
HAND_SET = [4, 3, 2, -4, -3, -2, 10, 500, -10, -200, 0]


def random_network(sizes: list[int], activation: str, seed: int, scale: float) -> NetworkModel:
    params = random_network_parameters(sizes, seed, scale, n_inputs=INPUT_NB)
    return NetworkModel(list(sizes), params, {"preset": "random", "seed": seed})


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


# --- players ------------------------------------------------------------------------


_SPEC = re.compile(r"(?:(?P<name>[\w.-]+)=)?(?P<base>[^:=]+?)(?::depth=(?P<depth>[1-9]))?")


class PlayerSpec(NamedTuple):
    name: str
    kind: str  # "random", "perfect" or a weight file's path
    depth: int = 2


def parse_player(text: str) -> PlayerSpec:
    """``[NAME=]random``, ``[NAME=]perfect`` or ``[NAME=]PATH.npz[:depth=N]``."""
    found = _SPEC.fullmatch(text)
    kind = found["base"] if found else ""
    if found and kind in ("random", "perfect") and found["depth"] is None:
        return PlayerSpec(found["name"] or kind, kind)
    if not (found and kind.endswith(".npz")):
        raise ValueError(f"unknown tic-tac-toe player {text!r} ({PLAYER_FORMS})")
    if not Path(kind).is_file():
        raise ValueError(f"weight file not found: {kind}")
    load_model(kind)  # a foreign file fails before any game
    depth = int(found["depth"] or 2)
    return PlayerSpec(found["name"] or f"{Path(kind).stem}-d{depth}", kind, depth)


def parse_players(texts: list[str]) -> list[PlayerSpec]:
    specs = [parse_player(t) for t in texts]
    if len({s.name for s in specs}) < len(specs):
        raise ValueError("a player name is given twice")
    return specs


class PerfectPlayer:
    """Exact minimax over the whole game (a few thousand positions, remembered)."""

    def __init__(self, name: str) -> None:
        self.name, self.rng = name, random.Random(0)
        self.values: dict[int, int] = {}
        self.buffer = np.zeros(CELLS, dtype=np.int64)

    def new_game(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def value(self, pos: Position) -> int:
        """+1, 0, -1: the side to move's result with best play."""
        key = int(kernels.position_key(pos))
        if key not in self.values:
            t = kernels.terminal_value(pos)
            self.values[key] = t if t != kernels.NOT_TERMINAL else max(self.scores(pos).values())
        return self.values[key]

    def scores(self, pos: Position) -> dict[int, int]:
        moves = self.buffer[: kernels.legal_moves(pos, self.buffer)].tolist()
        found = {}
        for m in moves:
            kernels.make_move(pos, m)
            found[m] = -self.value(pos)
            kernels.unmake_move(pos)
        return found

    def choose(self, pos: Position) -> int:
        scores = self.scores(kernels.copy_position(pos))
        return self.rng.choice([m for m, v in scores.items() if v == max(scores.values())])


class SearchPlayer:
    """The best move of an alpha-beta of ``depth`` plies over a weight file."""

    def __init__(self, name: str, path: str, depth: int) -> None:
        self.name, self.depth = name, depth
        self.ev = load_model(path).evaluator()
        self.search = AlphaBetaSearch(kernels, PlainSearchOptions(), 10)

    def new_game(self, seed: int) -> None:
        pass

    def choose(self, pos: Position) -> int:
        return self.search.search(kernels.copy_position(pos), self.ev, self.depth).best_move


def make_players(specs: list[PlayerSpec]) -> list[Any]:
    def make(s: PlayerSpec) -> Any:
        if s.kind == "random":
            return RandomMovePlayer(TICTACTOE_GAME, s.name)
        return PerfectPlayer(s.name) if s.kind == "perfect" else SearchPlayer(*s)

    return [make(s) for s in specs]


def weights_player(name: str, path: str, tc: str) -> str:
    if not tc.startswith("depth=") or not tc[6:].isdigit() or ":" in path:
        raise ValueError(f"a tic-tac-toe curve plays at a fixed depth (depth=N), not {tc!r}")
    return f"{name}={path}:{tc}"


PLAYER_FORMS = "random, perfect, PATH.npz[:depth=N], optionally as NAME=SPEC"

TICTACTOE_GAME = Game(
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
    random_model=random_model,
    hand_set_model=lambda feature_set: LinearModel(np.array(HAND_SET, dtype=np.float64)),
    random_network=random_network,
    load_model=load_model,
    network_inputs=ReplayInputs(
        INPUT_NB, INPUT_NB - 1, lambda rows: rows[:, _MIRROR_INPUTS], False
    ),
    network_input_row=_input_row,
    start_record=lambda opening: LineRecord(
        kernels.new_position(), opening, _move_text, kernels.make_move
    ),
    opening=training_opening,
    tournament_play=TournamentPlay(
        parse_players,
        make_players,
        tournament_openings,
        partial(move_pgn, "Tic-tac-toe"),
        weights_player,
        PLAYER_FORMS,
        opening_plies=2,
        max_opening_plies=4,
    ),
)
