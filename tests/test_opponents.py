"""Training opponents with fixed weights: a built-in preset by name is the same player
as its weight file."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import chess

from treestrap.core.notation import legal_moves, parse_fen
from treestrap.evaluation.presets import hand_set_model
from treestrap.evaluation.weights import save_weights
from treestrap.training.config import TrainConfig
from treestrap.training.opponents import FixedWeightsOpponent, make_opponent

FENS = (
    chess.STARTING_FEN,
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "r2q1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R2Q1RK1 w - - 0 10",
)


def test_a_preset_opponent_by_name_plays_as_its_weight_file(tmp_path: Path) -> None:
    path = tmp_path / "hs.npz"
    save_weights(hand_set_model(), path)
    config = TrainConfig(opponent_depth=2)
    by_name = make_opponent(dataclasses.replace(config, opponent="hand-set"), None)
    by_file = make_opponent(dataclasses.replace(config, opponent=str(path)), None)
    assert isinstance(by_name, FixedWeightsOpponent) and by_name.name == "hand-set"
    assert isinstance(by_file, FixedWeightsOpponent) and by_file.name == "weights:hs.npz"
    for fen in FENS:
        board = chess.Board(fen)
        assert by_name.move(board, parse_fen(fen)) == by_file.move(board, parse_fen(fen))


def test_the_learned_preset_is_an_opponent_too() -> None:
    opponent = make_opponent(TrainConfig(opponent="learned", opponent_depth=1), None)
    assert isinstance(opponent, FixedWeightsOpponent) and opponent.name == "learned"
    pos = parse_fen(chess.STARTING_FEN)
    assert opponent.move(chess.Board(), pos) in legal_moves(pos)
