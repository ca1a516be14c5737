"""The training run: games of self-play (or against an opponent) in which a learning
algorithm updates the weights from every search it makes.

A run directory holds everything, so a run can be stopped at any moment and resumed::

    config.json        the TrainConfig, as given
    weights.npz        latest weights; their metadata carry the run state (games played,
                       results, ladder level): one atomic write after every game
    checkpoints/       weights before the first game (game-000000.npz), every
                       ``checkpoint_every`` games, and at 1, 2, 5, 10, 20, 50, ... games
                       so that learning curves on a log axis have points
    games.pgn          every game, with opening, result and round number
    metrics.jsonl      one JSON line per game

Resuming drops any PGN or metrics record newer than the saved weights, so a killed run
loses at most the game in progress. Openings are drawn from (seed, game number), so a
run by depth or nodes is deterministic and resumes into the same games.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess
import chess.engine
import chess.pgn
import numpy as np

from treestrap.core.makemove import make_move
from treestrap.core.move import move_to_uci
from treestrap.core.notation import parse_fen, parse_uci_move
from treestrap.core.position import ST_SIDE, Position, copy_position
from treestrap.core.status import STATUS_NAMES, game_status, new_move_buffer
from treestrap.evaluation.features import get_feature_set
from treestrap.evaluation.model import evaluate_gradient
from treestrap.evaluation.presets import RANDOM_SCALE, hand_set_model, random_model
from treestrap.evaluation.weights import LinearModel, load_weights, save_weights
from treestrap.learn.base import MINIMAX, Algorithm, Hyper, Step
from treestrap.learn.registry import ALGORITHMS, default_step_size, make_algorithm
from treestrap.play.openings import Opening, load_openings
from treestrap.play.players import find_engine
from treestrap.search.minimax import MinimaxLimits, MinimaxSearch
from treestrap.search.training import SearchResult, TrainingSearch
from treestrap.search.tree import new_tree
from treestrap.search.tt_walk import walk_tt
from treestrap.training.presets import PRESETS

FORMAT_VERSION = 1


@dataclass
class TrainConfig:
    """Everything that defines a training run (``treestrap train --help`` lists them)."""

    algorithm: str = "treestrap-ab"
    games: int = 20
    feature_set: str = "meep"
    #: initial weights: "random" (small, seeded), "hand-set", or a weight file
    init: str = "random"
    seed: int = 0
    init_scale: float = RANDOM_SCALE
    #: step size; None = the paper's value for the algorithm
    step_size: float | None = None
    lam: float = 0.7
    #: minimum depth d of the nodes TreeStrap learns from
    min_depth: int = 1
    #: alpha-beta search: fixed depth, or (if depth is None) a node budget per move
    depth: int | None = 3
    nodes: int | None = None
    #: Fischer clock per player (seconds); sets a node budget per move from measured
    #: speed, and learning time is charged to the clock. None = no clock.
    clock: float | None = None
    increment: float = 0.0
    #: full-tree minimax budgets (Serban 2014): tree nodes, quiescence nodes per leaf
    minimax_nodes: int = 5000
    minimax_qnodes: int = 500
    #: "self", "stockfish", "stockfish:ELO", "uci:COMMAND" or a weight file
    opponent: str = "self"
    opponent_depth: int = 3
    #: raise/lower the opponent's UCI_Elo by ladder_step after a window of games
    ladder: bool = False
    ladder_window: int = 10
    ladder_step: int = 50
    #: None/"builtin", or a .tsv/.pgn/.epd file of opening lines
    openings: str | None = None
    max_plies: int = 300
    checkpoint_every: int = 10
    tt_bits: int = 18
    squash: bool = True
    predicted_only: bool = True
    use_outcome: bool = True
    #: feature-name prefixes whose weights keep their initial values. Tempo by
    #: default: learned from search trees it grows to the average one-ply gain of
    #: their (often tactical) nodes, several pawns, and then acts as a stand-pat bonus
    #: that keeps quiescence from capturing (measured: +407 Elo at 1000 games).
    freeze: list[str] = field(default_factory=lambda: ["tempo"])

    def validate(self) -> None:
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {self.algorithm!r}: {', '.join(ALGORITHMS)}")
        if self.games < 1:
            raise ValueError("games must be positive")
        if self.depth is None and self.nodes is None and self.clock is None:
            raise ValueError("give a search depth, a node budget or a clock")
        if self.depth is not None and not 1 <= self.depth <= 20:
            raise ValueError("depth must be in 1..20")
        if not 0.0 <= self.lam <= 1.0:
            raise ValueError("lambda must be in [0, 1]")
        frozen_indices(get_feature_set(self.feature_set).names, self.freeze)


def is_log_checkpoint(games: int) -> bool:
    """1, 2, 5, 10, 20, 50, 100, ...: evenly spread on a log axis."""
    while games >= 10 and games % 10 == 0:
        games //= 10
    return games in (1, 2, 5)


def apply_preset(config: TrainConfig, name: str) -> TrainConfig:
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r} (known: {', '.join(PRESETS)})")
    return dataclasses.replace(config, **PRESETS[name])


def frozen_indices(names: list[str], prefixes: list[str]) -> tuple[int, ...]:
    """Indices of the features whose names start with any of ``prefixes``."""
    found = tuple(i for i, n in enumerate(names) if any(n.startswith(p) for p in prefixes))
    unmatched = [p for p in prefixes if not any(n.startswith(p) for n in names)]
    if unmatched:
        raise ValueError(f"--freeze: no feature starts with {', '.join(unmatched)}")
    return found


# --- the learner's searches ----------------------------------------------------------


class Learner:
    """The learning player: its model, algorithm and searches."""

    def __init__(self, config: TrainConfig, model: LinearModel) -> None:
        self.config = config
        self.model = model
        step = config.step_size or default_step_size(config.algorithm, config.squash)
        hyper = Hyper(
            step_size=step,
            lam=config.lam,
            min_depth=config.min_depth,
            squash=config.squash,
            predicted_only=config.predicted_only,
            use_outcome=config.use_outcome,
            frozen=frozen_indices(model.feature_set.names, config.freeze),
        )
        self.algorithm: Algorithm = make_algorithm(config.algorithm, model, hyper)
        self.ev = model.evaluator()
        self.alphabeta = TrainingSearch(tt_bits=config.tt_bits)
        limits = MinimaxLimits(
            max_nodes=config.minimax_nodes, max_qnodes_per_leaf=config.minimax_qnodes
        )
        capacity = config.minimax_nodes * (config.minimax_qnodes + 1) + 1
        self.minimax = (
            MinimaxSearch(capacity=min(capacity, 2_000_000), limits=limits)
            if self.algorithm.search_kind == MINIMAX
            else None
        )
        self.walk_tree = new_tree(1 << 16) if self.algorithm.needs_tree else None
        self.nps = 200_000.0  # updated from measurements; sets clock-derived budgets

    def search(self, pos: Position, node_budget: int | None) -> tuple[SearchResult, Step]:
        cfg = self.config
        if self.minimax is not None:
            result = self.minimax.search_budget(pos, self.ev)
            tree = self.minimax.tree
        else:
            if cfg.depth is not None:
                result = self.alphabeta.search(pos, self.ev, cfg.depth)
            else:
                result = self.alphabeta.search_nodes(pos, self.ev, max(node_budget or 0, 1000))
            tree = None
            if self.walk_tree is not None:
                walk_tt(
                    pos,
                    self.ev,
                    self.alphabeta.tt,
                    self.walk_tree,
                    self.alphabeta.ctx,
                    cfg.min_depth,
                )
                tree = self.walk_tree
        h, n = evaluate_gradient(pos, self.ev)
        step = Step(
            color=int(pos.st[ST_SIDE]),
            root_value=result.value,
            root_static=float(h),
            root_idx=self.ev.idx[:n].copy(),
            root_val=self.ev.val[:n].copy(),
            tree=tree,
            predicted_reply=result.pv[1] if len(result.pv) > 1 else 0,
        )
        if self.algorithm.needs_leaf:
            leaf = copy_position(pos)
            for m in result.pv:
                make_move(leaf, m)
            lh, ln = evaluate_gradient(leaf, self.ev)
            sign = 1.0 if len(result.pv) % 2 == 0 else -1.0
            step.leaf_value = sign * float(lh)
            step.leaf_idx = self.ev.idx[:ln].copy()
            step.leaf_val = sign * self.ev.val[:ln].copy()
        return result, step


# --- opponents -----------------------------------------------------------------------


class Opponent:
    name = "self"

    def move(self, board: chess.Board, pos: Position) -> int:
        raise NotImplementedError

    def close(self) -> None:
        pass


class FixedWeightsOpponent(Opponent):
    def __init__(self, path: str, depth: int, tt_bits: int) -> None:
        self.model = load_weights(path)
        self.name = f"weights:{Path(path).name}"
        self.search = TrainingSearch(tt_bits=tt_bits)
        self.depth = depth

    def move(self, board: chess.Board, pos: Position) -> int:
        return self.search.search(pos, self.model.evaluator(), self.depth).best_move


class UciOpponent(Opponent):
    def __init__(self, command: list[str], depth: int, elo: int | None) -> None:
        self.engine = chess.engine.SimpleEngine.popen_uci(command, timeout=120)
        self.depth = depth
        self.elo = elo
        self.name = Path(command[0]).name
        if elo is not None:
            self.set_elo(elo)

    def set_elo(self, elo: int) -> None:
        self.elo = elo
        self.engine.configure({"UCI_LimitStrength": True, "UCI_Elo": elo})
        self.name = f"stockfish-{elo}"

    def move(self, board: chess.Board, pos: Position) -> int:
        played = self.engine.play(board, chess.engine.Limit(depth=self.depth, time=5.0))
        if played.move is None:
            raise RuntimeError("opponent returned no move")
        return parse_uci_move(pos, played.move.uci())

    def close(self) -> None:
        self.engine.quit()


def make_opponent(config: TrainConfig, elo: int | None) -> Opponent | None:
    spec = config.opponent
    if spec == "self":
        return None
    if spec.startswith("stockfish"):
        exe = find_engine("stockfish")
        if exe is None:
            raise ValueError("stockfish not found (Debian: apt-get install stockfish)")
        level = elo if elo is not None else (int(spec.split(":")[1]) if ":" in spec else None)
        return UciOpponent([exe], config.opponent_depth, level)
    if spec.startswith("uci:"):
        return UciOpponent(spec[4:].split(), config.opponent_depth, None)
    return FixedWeightsOpponent(spec, config.opponent_depth, config.tt_bits)


# --- one game ------------------------------------------------------------------------


@dataclass
class GameSummary:
    number: int
    result: str  # from white's view
    learner_white: bool
    termination: str
    plies: int
    searches: int
    nodes: int
    seconds: float
    mean_abs_delta: float
    opening: str
    pgn: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def learner_score(self) -> float:
        if self.result == "1/2-1/2":
            return 0.5
        return 1.0 if (self.result == "1-0") == self.learner_white else 0.0


def play_training_game(
    learner: Learner,
    opponent: Opponent | None,
    opening: Opening,
    number: int,
    learner_white: bool,
) -> GameSummary:
    cfg = learner.config
    board = opening.board()
    pos = parse_fen(opening.fen)
    for move in board.move_stack:
        make_move(pos, parse_uci_move(pos, move.uci()))
    steps: list[Step] = []
    step_at_ply: dict[int, Step] = {}
    clocks = [cfg.clock or 0.0, cfg.clock or 0.0]
    buffer = new_move_buffer()
    searches = nodes = 0
    start = time.perf_counter()
    learner.algorithm.stats.abs_delta.clear()
    termination, result = "", "1/2-1/2"
    while True:
        status = game_status(pos, buffer)
        if status != 0:
            termination = STATUS_NAMES[status]
            if status == 1:  # checkmate: the side to move lost
                result = "0-1" if board.turn == chess.WHITE else "1-0"
            break
        if board.ply() >= cfg.max_plies:
            termination = "adjudicated draw: maximum length"
            break
        side = int(pos.st[ST_SIDE])
        mine = opponent is None or (side == 0) == learner_white
        t0 = time.perf_counter()
        if mine:
            budget = None
            if cfg.clock is not None:
                think = clocks[side] / 30.0 + 0.75 * cfg.increment
                budget = int(max(1000.0, think * learner.nps))
            res, step = learner.search(pos, budget)
            learner.algorithm.observe(step)
            steps.append(step)
            step_at_ply[board.ply()] = step
            searches += 1
            nodes += res.nodes + res.qnodes
            move = res.best_move
        else:
            assert opponent is not None
            move = opponent.move(board, pos)
        spent = time.perf_counter() - t0
        if mine and spent > 0:
            learner.nps = 0.8 * learner.nps + 0.2 * (res.nodes + res.qnodes) / spent
        if cfg.clock is not None and mine:
            clocks[side] += cfg.increment - spent
            if clocks[side] < 0:
                termination = "time forfeit"
                result = "0-1" if side == 0 else "1-0"
                break
        previous = step_at_ply.get(board.ply() - 1)
        if previous is not None:
            previous.actual_reply = move
        board.push(chess.Move.from_uci(move_to_uci(move)))
        make_move(pos, move)
    outcome = {"1-0": 1.0, "0-1": -1.0}.get(result, 0.0)
    learner.algorithm.end_game(steps, outcome)
    game = chess.pgn.Game.from_board(board)
    game.headers.update(
        {
            "Event": f"treestrap training ({cfg.algorithm})",
            "Round": str(number),
            "White": "learner" if (opponent is None or learner_white) else opponent.name,
            "Black": "learner" if (opponent is None or not learner_white) else opponent.name,
            "Result": result,
            "Opening": opening.name,
            "Termination": termination,
        }
    )
    return GameSummary(
        number=number,
        result=result,
        learner_white=learner_white,
        termination=termination,
        plies=board.ply(),
        searches=searches,
        nodes=nodes,
        seconds=time.perf_counter() - start,
        mean_abs_delta=learner.algorithm.stats.mean_abs_delta(),
        opening=opening.name,
        pgn=str(game),
    )


# --- the run -------------------------------------------------------------------------


def _initial_model(config: TrainConfig) -> LinearModel:
    if config.init == "random":
        return random_model(config.feature_set, seed=config.seed, scale=config.init_scale)
    if config.init == "hand-set":
        return hand_set_model(config.feature_set)
    model = load_weights(config.init)
    if model.feature_set.name != config.feature_set:
        raise ValueError(
            f"initial weights are for feature set {model.feature_set.name!r}, "
            f"not {config.feature_set!r}"
        )
    return model


def _append(path: Path, text: str) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())


def _truncate_records(run: Path, games_done: int) -> None:
    """Drop PGN games and metric lines newer than the saved weights."""
    metrics = run / "metrics.jsonl"
    if metrics.exists():
        lines = [
            line
            for line in metrics.read_text().splitlines()
            if line.strip() and json.loads(line)["game"] <= games_done
        ]
        metrics.write_text("".join(line + "\n" for line in lines))
    pgn = run / "games.pgn"
    if pgn.exists():
        kept = []
        with open(pgn, encoding="utf-8") as fh:
            while (game := chess.pgn.read_game(fh)) is not None:
                if int(game.headers.get("Round", "0")) <= games_done:
                    kept.append(str(game))
        pgn.write_text("".join(g + "\n\n" for g in kept))


@dataclass
class RunState:
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    elo: int | None = None
    recent: list[float] = field(default_factory=list)


def train(
    config: TrainConfig,
    run_dir: str | Path,
    resume: bool = False,
    on_game: Callable[[GameSummary, RunState], None] | None = None,
    time_limit: float | None = None,
) -> RunState:
    """Run (or resume) a training run into ``run_dir``; returns the final state.

    ``time_limit`` (seconds) ends the run after the first game that finishes past it;
    ``--resume`` can carry it on later.
    """
    started = time.monotonic()
    run = Path(run_dir)
    if resume:
        saved = json.loads((run / "config.json").read_text())
        config = TrainConfig(**{**saved, "games": config.games or saved["games"]})
        model = load_weights(run / "weights.npz")
        state = RunState(**model.metadata.get("run_state", {}))
        _truncate_records(run, state.games)
    else:
        config.validate()
        if (run / "weights.npz").exists():
            raise ValueError(f"{run} already holds a run: use --resume or another directory")
        run.mkdir(parents=True, exist_ok=True)
        (run / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2))
        model = _initial_model(config)
        state = RunState()
        _save_checkpoint(model, config, state, run)
        save_weights(_with_meta(model, config, state), run / "weights.npz")
    config.validate()
    book = load_openings(config.openings)
    learner = Learner(config, model)
    if config.ladder and state.elo is None and config.opponent.startswith("stockfish"):
        state.elo = int(config.opponent.split(":")[1]) if ":" in config.opponent else 1350
    opponent = make_opponent(config, state.elo)
    try:
        while state.games < config.games:
            if time_limit is not None and time.monotonic() - started >= time_limit:
                break
            number = state.games + 1
            rng = np.random.default_rng([config.seed, number])
            opening = book[int(rng.integers(len(book)))]
            learner_white = number % 2 == 1
            summary = play_training_game(learner, opponent, opening, number, learner_white)
            score = summary.learner_score if opponent is not None else 0.5
            if summary.result == "1/2-1/2":
                state.draws += 1
            elif opponent is None:
                state.wins += summary.result == "1-0"
                state.losses += summary.result == "0-1"
            elif score == 1.0:
                state.wins += 1
            else:
                state.losses += 1
            state.games = number
            state.recent = ([*state.recent, score])[-config.ladder_window :]
            _ladder(config, state, opponent)
            _append(run / "games.pgn", summary.pgn + "\n\n")
            _append(run / "metrics.jsonl", json.dumps(_metrics(summary, model, state)) + "\n")
            # The checkpoint first: killed between the two writes, the run resumes at
            # this game again (deterministic) and rewrites the same checkpoint.
            if (
                number % config.checkpoint_every == 0
                or number == config.games
                or is_log_checkpoint(number)
            ):
                _save_checkpoint(model, config, state, run)
            save_weights(_with_meta(model, config, state), run / "weights.npz")
            if on_game:
                on_game(summary, state)
    finally:
        if opponent is not None:
            opponent.close()
    return state


def _ladder(config: TrainConfig, state: RunState, opponent: Opponent | None) -> None:
    if not config.ladder or not isinstance(opponent, UciOpponent) or state.elo is None:
        return
    if len(state.recent) < config.ladder_window:
        return
    mean = sum(state.recent) / len(state.recent)
    if mean >= 0.6:
        state.elo += config.ladder_step
    elif mean <= 0.4:
        state.elo = max(1350, state.elo - config.ladder_step)  # Stockfish's floor
    else:
        return
    state.recent = []
    opponent.set_elo(state.elo)


def _with_meta(model: LinearModel, config: TrainConfig, state: RunState) -> LinearModel:
    model.metadata = {
        "algorithm": config.algorithm,
        "games": state.games,
        "seed": config.seed,
        "init": config.init,
        "run_state": dataclasses.asdict(state),
        "format_version": FORMAT_VERSION,
    }
    return model


def _save_checkpoint(model: LinearModel, config: TrainConfig, state: RunState, run: Path) -> None:
    save_weights(
        _with_meta(model, config, state), run / "checkpoints" / f"game-{state.games:06d}.npz"
    )


def _metrics(summary: GameSummary, model: LinearModel, state: RunState) -> dict[str, Any]:
    w = model.weights
    row: dict[str, Any] = {
        "game": summary.number,
        "result": summary.result,
        "learner_white": summary.learner_white,
        "termination": summary.termination,
        "plies": summary.plies,
        "searches": summary.searches,
        "nodes": summary.nodes,
        "seconds": round(summary.seconds, 3),
        "nps": round(summary.nodes / summary.seconds) if summary.seconds > 0 else 0,
        "mean_abs_delta": summary.mean_abs_delta,
        "weight_norm": float(np.linalg.norm(w)),
        "opening": summary.opening,
        "opponent_elo": state.elo,
    }
    if model.feature_set.name == "meep":
        names = ("pawn", "knight", "bishop", "rook", "queen")
        row["material"] = {n: round(float(v), 3) for n, v in zip(names, w[:5], strict=True)}
    return row
