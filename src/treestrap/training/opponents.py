"""The learner's opponents other than itself (fixed weights, Stockfish or any UCI
engine), and the KnightCap-style ladder that raises or lowers Stockfish's ``UCI_Elo``
with the learner's recent score."""

from __future__ import annotations

from pathlib import Path

import chess
import chess.engine

from treestrap.core.notation import parse_uci_move
from treestrap.core.position import Position
from treestrap.evaluation.presets import HAND_SET, LEARNED, preset_model
from treestrap.evaluation.weight_files import load_weights
from treestrap.evaluation.weights import LinearModel
from treestrap.play.players import find_engine
from treestrap.search.training import TrainingSearch
from treestrap.training.checkpoints import RunState
from treestrap.training.config import TrainConfig


class Opponent:
    name = "self"

    def move(self, board: chess.Board, pos: Position) -> int:
        raise NotImplementedError

    def close(self) -> None:
        pass


class FixedWeightsOpponent(Opponent):
    """Our training search with fixed weights: a weight file or a built-in preset."""

    def __init__(self, model: LinearModel, name: str, depth: int, tt_bits: int) -> None:
        self.model = model
        self.name = name
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


def faces_opponent(config: TrainConfig, number: int) -> bool:
    """Whether game ``number`` (from 1) is played against the opponent rather than
    against the learner itself: ``--opponent-after`` games of self-play come first."""
    return config.opponent != "self" and number > config.opponent_after


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
    if spec in (HAND_SET, LEARNED):  # the presets by name, no weight file needed
        model, name = preset_model(spec), spec
    else:
        model, name = load_weights(spec), f"weights:{Path(spec).name}"
    return FixedWeightsOpponent(model, name, config.opponent_depth, config.tt_bits)


def update_ladder(config: TrainConfig, state: RunState, opponent: Opponent | None) -> None:
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
