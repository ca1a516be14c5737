"""The parts of ``dataset`` that need Stockfish: rollout completion (Serban 6.6), the
stored search score, and ``dataset generate``. They skip where Stockfish is missing,
and fail under CI=true."""

from __future__ import annotations

import chess
import chess.pgn
import numpy as np
import pytest
from conftest import require

from treestrap.cli import main
from treestrap.play.players import find_engine
from treestrap.supervised.dataset.build import build_dataset
from treestrap.supervised.dataset.encode import unpack_bits
from treestrap.supervised.dataset.errors import DatasetError
from treestrap.supervised.dataset.generate import GenerateSettings, generate_games
from treestrap.supervised.dataset.labels import BLACK_WINS, WHITE_WINS
from treestrap.supervised.dataset.options import BuildOptions
from treestrap.supervised.dataset.rollout import roll_out
from treestrap.supervised.dataset.stockfish import open_stockfish
from treestrap.supervised.dataset.store import load_split

#: White (queen and rook against a bare king) resigned: a hand-made game that ended by
#: agreement in a position the board says White wins.
RESIGNED_FEN = "4k3/8/8/8/8/8/8/R2QK3 w - - 0 1"
RESIGNED = (
    f'[Event "resigned"]\n[SetUp "1"]\n[FEN "{RESIGNED_FEN}"]\n[Result "0-1"]\n\n'
    "1. Qd2 Kf7 2. Ra7+ Kg6 0-1\n\n"
)
MATED = '[Event "mate"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n'


@pytest.fixture(scope="module")
def stockfish() -> str:
    path = find_engine("stockfish")
    require(path is not None, "engine binary 'stockfish' not found (apt-get install stockfish)")
    return path  # type: ignore[return-value]


def _board_of(bits: np.ndarray, white_to_move: bool) -> chess.Board:
    """The board a stored bitboard row describes (index piece * 64 + square, pieces
    white pawn..king then black pawn..king, 768 = white to move)."""
    board = chess.Board(None)
    for index in np.flatnonzero(unpack_bits(bits)[0]):
        if index == 768:
            assert white_to_move
            continue
        piece, square = divmod(int(index), 64)
        board.set_piece_at(square, chess.Piece(piece % 6 + 1, piece < 6))
    board.turn = white_to_move
    return board


def test_roll_out_plays_a_resigned_game_to_mate(stockfish: str) -> None:
    board = chess.Board(RESIGNED_FEN)
    engine = open_stockfish()
    try:
        moves, result = roll_out(board, engine, depth=6, max_plies=200, game="t")
    finally:
        engine.quit()
    assert board.fen() == RESIGNED_FEN  # left as it was
    for move in moves:
        board.push(move)
    assert board.is_checkmate() and board.turn == chess.BLACK
    assert result == WHITE_WINS


def test_rollout_completion_labels_the_game_with_the_rollout_result(
    stockfish: str, tmp_path
) -> None:
    pgn = tmp_path / "g.pgn"
    pgn.write_text(RESIGNED + MATED)
    options = BuildOptions(split=(1, 0, 0), rollout_depth=6)
    manifest = build_dataset([pgn], tmp_path / "data", options, jobs=1, progress=False).manifest
    assert manifest["games"]["rolled_out"] == 1  # the mated game is finished on the board
    assert manifest["stockfish"].startswith("Stockfish")
    split = load_split(tmp_path / "data", "train")
    resigned, mated = split.game_id == 0, split.game_id == 1
    appended = split.rollout[resigned]
    assert appended[:5].tolist() == [False] * 5 and appended[5:].all() and appended.sum() > 0
    assert set(split.result[resigned]) == {WHITE_WINS}  # original and appended positions
    np.testing.assert_array_equal(split.ply[resigned], np.arange(resigned.sum()))
    assert set(split.result[mated]) == {BLACK_WINS} and not split.rollout[mated].any()
    # The stored last position of the completed game is mate, Black to move.
    last = _board_of(split.bits[resigned][-1:], bool(split.white_to_move[resigned][-1]))
    assert last.is_checkmate() and last.turn == chess.BLACK
    # Without rollouts: the original positions only, with the PGN result.
    plain = load_split(tmp_path / "data", "train", rollout=False)
    assert (plain.game_id == 0).sum() == 5
    assert set(plain.result[plain.game_id == 0]) == {BLACK_WINS}
    assert manifest["splits"]["train"]["classes_without_rollout"]["black_wins"] == 10


def test_stockfish_score_is_stored_from_whites_side(stockfish: str, tmp_path) -> None:
    pgn = tmp_path / "g.pgn"
    pgn.write_text(RESIGNED + MATED)
    options = BuildOptions(split=(1, 0, 0), score_depth=4)
    build_dataset([pgn], tmp_path / "data", options, jobs=1, progress=False)
    split = load_split(tmp_path / "data", "train")
    assert split.sf_score is not None and split.sf_score.dtype == np.float32
    resigned = split.sf_score[split.game_id == 0]
    assert (resigned > 500).all()  # White is a queen and a rook up, whoever is to move
    mated = split.sf_score[split.game_id == 1]
    assert mated[-1] == -10000  # White is mated
    assert np.abs(split.sf_score).max() <= 10000
    with pytest.raises(DatasetError, match="--stockfish-score"):
        build_dataset([pgn], tmp_path / "data", BuildOptions(split=(1, 0, 0)), resume=True)


def _pgn_games(path) -> list[chess.pgn.Game]:
    games = []
    with open(path) as fh:
        while (game := chess.pgn.read_game(fh)) is not None:
            games.append(game)
    return games


def test_generate_resumes_without_lost_or_doubled_games(stockfish: str, tmp_path) -> None:
    out = tmp_path / "gen.pgn"
    settings = GenerateSettings.from_text("stockfish", 200, None, 2, 3)
    report = generate_games(settings, 2, out, jobs=1, progress=False)
    assert report.games_played == 2
    # An interrupt cut the file inside a third game; the next run drops it and goes on.
    with open(out, "a") as fh:
        fh.write('[Event "treestrap dataset generate"]\n[Round "3"]\n\n1. e4 e5 2. N')
    report = generate_games(settings, 3, out, jobs=2, progress=False)
    assert (report.games_before, report.games_played) == (2, 1)
    games = _pgn_games(out)
    assert sorted(int(g.headers["Round"]) for g in games) == [1, 2, 3]
    for game in games:
        board = game.end().board()
        assert board.is_game_over(claim_draw=True) or game.headers["Termination"] == "adjudication"
        assert game.headers["Result"] in ("1-0", "0-1", "1/2-1/2")
    assert generate_games(settings, 3, out, jobs=1, progress=False).games_played == 0
    other = GenerateSettings.from_text("stockfish", 300, None, 2, 3)
    with pytest.raises(DatasetError, match="nodes=200"):
        generate_games(other, 4, out, jobs=1, progress=False)


def test_generated_games_are_decided_by_seed_and_number(stockfish: str, tmp_path) -> None:
    settings = GenerateSettings.from_text("stockfish", 100, None, 3, 9)
    generate_games(settings, 2, tmp_path / "a.pgn", jobs=1, progress=False)
    generate_games(settings, 2, tmp_path / "b.pgn", jobs=2, progress=False)

    def moves(path) -> dict[str, str]:
        return {
            g.headers["Round"]: " ".join(m.uci() for m in g.mainline_moves())
            for g in _pgn_games(path)
        }

    assert moves(tmp_path / "a.pgn") == moves(tmp_path / "b.pgn")


def test_generate_command_feeds_dataset_build(stockfish: str, tmp_path, capsys) -> None:
    out = tmp_path / "gen.pgn"
    args = ["dataset", "generate", "--games", "2", "--nodes", "100", "--out", str(out)]
    assert main([*args, "--jobs", "1", "--no-progress"]) == 0
    assert "games/hour" in capsys.readouterr().out
    data = tmp_path / "data"
    assert main(["dataset", "build", str(out), "--out", str(data), "--no-progress"]) == 0
    assert "games: 2 read, 2 kept, 0 skipped" in capsys.readouterr().out
