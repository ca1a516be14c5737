"""``dataset build`` without engines: labels, splits, filters, skipped games, the stored
features, resuming, extending, and refusing datasets that do not match."""

from __future__ import annotations

import json
import random
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

from treestrap.core.notation import parse_fen
from treestrap.evaluation.feature_sets import get_feature_set
from treestrap.evaluation.feature_sets.feature_set import dense_features
from treestrap.supervised.dataset import build as build_module
from treestrap.supervised.dataset.build import build_dataset
from treestrap.supervised.dataset.encode import unpack_bits
from treestrap.supervised.dataset.labels import RESULT_LABELS
from treestrap.supervised.dataset.options import BuildOptions
from treestrap.supervised.dataset.store import (
    DatasetError,
    Split,
    load_manifest,
    load_split,
)

SPLITS = ("train", "validation", "test")
RESULTS = ("1-0", "0-1", "1/2-1/2")


def random_game(rng: random.Random, number: int, result: str | None = None, **tags: str) -> str:
    """A legal game of 4 to 30 random plies with a (made-up) decisive or drawn result."""
    board = chess.Board()
    for _ in range(rng.randint(4, 30)):
        if board.is_game_over():
            break
        board.push(rng.choice(sorted(board.legal_moves, key=chess.Move.uci)))
    game = chess.pgn.Game.from_board(board)
    game.headers["Event"] = f"game {number}"
    if board.is_checkmate():
        result = "0-1" if board.turn == chess.WHITE else "1-0"
    game.headers["Result"] = result or rng.choice(RESULTS)
    for key, value in tags.items():
        game.headers[key] = value
    return str(game) + "\n\n"


def write_games(path: Path, count: int, seed: int = 0, **tags: str) -> Path:
    rng = random.Random(seed)
    path.write_text("".join(random_game(rng, i, **tags) for i in range(count)))
    return path


def games_of(path: Path) -> list[chess.pgn.Game]:
    games = []
    with open(path) as fh:
        while (game := chess.pgn.read_game(fh)) is not None:
            games.append(game)
    return games


def all_splits(data: Path, rollout: bool = True) -> dict[str, Split]:
    return {name: load_split(data, name, rollout=rollout) for name in SPLITS}


def build(paths: list[Path], out: Path, **kwargs) -> build_module.BuildReport:
    options = kwargs.pop("options", BuildOptions())
    return build_dataset(paths, out, options, progress=False, **kwargs)


def test_labels_and_plies_equal_the_pgn(tmp_path: Path) -> None:
    pgn = write_games(tmp_path / "g.pgn", 30)
    build([pgn], tmp_path / "data")
    games = games_of(pgn)
    seen = set()
    for split in all_splits(tmp_path / "data").values():
        for gid in np.unique(split.game_id):
            rows = split.game_id == gid
            game = games[gid]
            moves = list(game.mainline_moves())
            assert rows.sum() == len(moves) + 1  # start position to final position
            np.testing.assert_array_equal(split.ply[rows], np.arange(len(moves) + 1))
            assert set(split.result[rows]) == {RESULT_LABELS[game.headers["Result"]]}
            assert not split.rollout[rows].any()
            assert split.white_to_move[rows][0] and not split.white_to_move[rows][1]
            seen.add(int(gid))
    assert seen == set(range(30))


def test_splits_are_disjoint_by_game_and_follow_the_weights(tmp_path: Path) -> None:
    pgn = write_games(tmp_path / "g.pgn", 300, seed=1)
    build([pgn], tmp_path / "data", options=BuildOptions(seed=3))
    splits = all_splits(tmp_path / "data")
    ids = {name: set(np.unique(s.game_id).tolist()) for name, s in splits.items()}
    assert not ids["train"] & ids["validation"]
    assert not ids["train"] & ids["test"]
    assert not ids["validation"] & ids["test"]
    assert ids["train"] | ids["validation"] | ids["test"] == set(range(300))
    assert 150 <= len(ids["train"]) <= 210  # 6:2:2 of 300 games, give or take
    assert 35 <= len(ids["validation"]) <= 85 and 35 <= len(ids["test"]) <= 85
    manifest = load_manifest(tmp_path / "data")
    for name, split in splits.items():
        counts = manifest["splits"][name]
        assert counts["positions"] == len(split)
        assert counts["games"] == len(ids[name])
        assert list(counts["classes"].values()) == np.bincount(split.result, minlength=3).tolist()


def test_the_seed_moves_games_between_splits_and_copies_stay_together(tmp_path: Path) -> None:
    text = write_games(tmp_path / "g.pgn", 60, seed=2).read_text()
    doubled = tmp_path / "doubled.pgn"
    doubled.write_text(text + text)  # every game twice, as collections sometimes have
    build([doubled], tmp_path / "a", options=BuildOptions(seed=0))
    build([doubled], tmp_path / "b", options=BuildOptions(seed=1))
    of = {}
    for name in ("a", "b"):
        of[name] = {}
        for split_name, split in all_splits(tmp_path / name).items():
            for gid in np.unique(split.game_id):
                of[name][int(gid)] = split_name
        for gid in range(60):
            assert of[name][gid] == of[name][gid + 60]
    assert of["a"] != of["b"]


def test_held_out_test_file_is_the_test_set(tmp_path: Path) -> None:
    train = write_games(tmp_path / "train.pgn", 40, seed=4)
    held = write_games(tmp_path / "held.pgn", 10, seed=5)
    build([train], tmp_path / "data", test_pgn=held)
    splits = all_splits(tmp_path / "data")
    assert set(np.unique(splits["test"].game_id)) == set(range(40, 50))
    assert set(np.unique(splits["train"].game_id)) | set(
        np.unique(splits["validation"].game_id)
    ) == set(range(40))


def test_filters_and_undecided_results(tmp_path: Path) -> None:
    rng = random.Random(6)
    texts = [
        random_game(rng, 0, "1-0", WhiteElo="2300", BlackElo="2250", TimeControl="300+0"),
        random_game(rng, 1, "0-1", WhiteElo="2300", BlackElo="1900", TimeControl="300+0"),
        random_game(rng, 2, "0-1", WhiteElo="2300", TimeControl="300+0"),  # unrated Black
        random_game(rng, 3, "*", WhiteElo="2400", BlackElo="2400", TimeControl="300+0"),
        random_game(rng, 4, "1-0", WhiteElo="2400", BlackElo="2400", TimeControl="60+0"),
    ]
    texts[4] = texts[4].replace('"game 4"', '"Blitz Open"')
    pgn = tmp_path / "g.pgn"
    pgn.write_text("".join(texts))
    options = BuildOptions(min_elo=2000, time_control=r"^300", undecided="drop")
    manifest = build([pgn], tmp_path / "drop", options=options).manifest
    assert manifest["games"]["kept"] == 1
    assert manifest["games"]["skipped"] == {"min_elo": 2, "time_control": 1, "undecided": 1}
    keep = BuildOptions(min_elo=2000, event="^game", undecided="keep")
    manifest = build([pgn], tmp_path / "keep", options=keep).manifest
    assert manifest["games"]["skipped"] == {"event": 1, "min_elo": 2}
    labels = {
        int(gid): set(s.result[s.game_id == gid])
        for s in all_splits(tmp_path / "keep").values()
        for gid in np.unique(s.game_id)
    }
    assert labels == {0: {0}, 3: {1}}  # the "*" game is kept as a draw
    short = build([pgn], tmp_path / "short", options=BuildOptions(min_plies=31)).manifest
    assert short["games"]["skipped"]["min_plies"] >= 4


def test_malformed_games_are_skipped_and_counted(tmp_path: Path) -> None:
    good = random_game(random.Random(7), 0, "1-0")
    bad = [
        '[Event "illegal"]\n[Result "1-0"]\n\n1. e4 e5 2. Ke3 Nc6 1-0\n\n',
        '[Event "ambiguous"]\n[Result "1-0"]\n\n1. d4 d5 2. Nf3 Nf6 3. Nd2 e6 1-0\n\n',
        '[Event "fen"]\n[SetUp "1"]\n[FEN "rnbqkbnr/pppppppp/8/8 w KQkq - 0 1"]\n'
        '[Result "1-0"]\n\n1. e4 1-0\n\n',
        '[Event "variant"]\n[Variant "Atomic"]\n[Result "1-0"]\n\n1. e4 1-0\n\n',
        '[Event "lie"]\n[Result "1-0"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n\n',
        '[Event "cut"]\n[Result "1-0"]\n\n1. e4 e5 2. Nf3 {a comm',  # the file ends here
    ]
    pgn = tmp_path / "bad.pgn"
    pgn.write_text(good + "".join(bad))
    report = build([pgn], tmp_path / "data")
    games = report.manifest["games"]
    assert games["read"] == 7 and games["kept"] == 1
    assert games["skipped"] == {
        "bad_fen": 1,
        "bad_move": 1,
        "illegal_move": 1,
        "result_contradicts_board": 1,
        "truncated": 1,
        "variant": 1,
    }
    assert (
        len(load_split(tmp_path / "data", "train"))
        + len(load_split(tmp_path / "data", "validation"))
        + len(load_split(tmp_path / "data", "test"))
        == report.manifest["positions"]["total"]
    )


def test_stored_features_equal_the_compiled_extractors(tmp_path: Path) -> None:
    pgn = write_games(tmp_path / "g.pgn", 5, seed=8)
    build([pgn], tmp_path / "data", options=BuildOptions(split=(1, 0, 0)))
    split = load_split(tmp_path / "data", "train")
    games = games_of(pgn)
    meep, bitboard = get_feature_set("meep"), get_feature_set("bitboard")
    bits = unpack_bits(split.bits)
    row = 0
    for game in games:
        board = game.board()
        boards = [board.copy()]
        for move in game.mainline_moves():
            board.push(move)
            boards.append(board.copy())
        for b in boards:
            pos = parse_fen(b.fen())  # the slow route the build avoids
            np.testing.assert_array_equal(bits[row], dense_features(pos, bitboard))
            dense = np.zeros(meep.size)
            lo, hi = split.meep_start[row], split.meep_start[row + 1]
            np.add.at(dense, split.meep_idx[lo:hi], split.meep_val[lo:hi])
            np.testing.assert_allclose(dense, dense_features(pos, meep))
            assert split.white_to_move[row] == (b.turn == chess.WHITE)
            row += 1
    assert row == len(split)


def test_subset_keeps_each_positions_features(tmp_path: Path) -> None:
    pgn = write_games(tmp_path / "g.pgn", 8, seed=9)
    build([pgn], tmp_path / "data", options=BuildOptions(split=(1, 0, 0)))
    split = load_split(tmp_path / "data", "train")
    picks = np.array([5, 0, len(split) - 1, 5])
    sub = split.subset(picks)
    assert len(sub) == 4
    for k, i in enumerate(picks):
        lo, hi = split.meep_start[i], split.meep_start[i + 1]
        np.testing.assert_array_equal(
            sub.meep_idx[sub.meep_start[k] : sub.meep_start[k + 1]], split.meep_idx[lo:hi]
        )
        np.testing.assert_array_equal(sub.bits[k], split.bits[i])
    mask = split.ply == 0
    assert len(split.subset(mask)) == 8


def _arrays(data: Path) -> dict[str, np.ndarray]:
    out = {}
    for name, split in all_splits(data).items():
        for field in ("bits", "meep_idx", "meep_val", "meep_start", "result", "game_id", "ply"):
            out[f"{name}.{field}"] = getattr(split, field)
    return out


def _assert_same(a: Path, b: Path) -> None:
    left, right = _arrays(a), _arrays(b)
    assert left.keys() == right.keys()
    for key in left:
        np.testing.assert_array_equal(left[key], right[key], err_msg=key)


def test_resume_redoes_only_unfinished_chunks(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(build_module, "GAMES_PER_CHUNK", 10)
    pgn = write_games(tmp_path / "g.pgn", 35, seed=10)
    build([pgn], tmp_path / "whole")
    first = build([pgn], tmp_path / "data")
    assert first.chunks_done == 4
    # An interrupted build: one chunk never finished, and the manifest was never written.
    shards = tmp_path / "data" / "shards"
    record = sorted(shards.glob("*.json"))[1]
    record.unlink()
    (tmp_path / "data" / "manifest.json").unlink()
    with pytest.raises(DatasetError, match="has not finished"):
        load_split(tmp_path / "data", "train")
    with pytest.raises(DatasetError, match="--resume"):
        build([pgn], tmp_path / "data")
    again = build([pgn], tmp_path / "data", resume=True)
    assert (again.chunks_done, again.chunks_kept) == (1, 3)
    _assert_same(tmp_path / "whole", tmp_path / "data")
    assert load_manifest(tmp_path / "data") == load_manifest(tmp_path / "whole") | {
        "sources": load_manifest(tmp_path / "data")["sources"],
        "created": load_manifest(tmp_path / "data")["created"],
    }


def test_a_parallel_build_stores_the_same_dataset(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(build_module, "GAMES_PER_CHUNK", 5)
    pgn = write_games(tmp_path / "g.pgn", 20, seed=11)
    build([pgn], tmp_path / "one", jobs=1)
    build([pgn], tmp_path / "two", jobs=2)
    _assert_same(tmp_path / "one", tmp_path / "two")


def test_resume_with_other_options_is_refused_by_name(tmp_path: Path) -> None:
    pgn = write_games(tmp_path / "g.pgn", 5, seed=12)
    build([pgn], tmp_path / "data", options=BuildOptions(min_elo=None, split=(6, 2, 2)))
    with pytest.raises(DatasetError, match=r"--split: the dataset has 6:2:2.*8:1:1"):
        build([pgn], tmp_path / "data", options=BuildOptions(split=(8, 1, 1)), resume=True)
    with pytest.raises(DatasetError, match=r"--min-elo: the dataset has none.*2000"):
        build([pgn], tmp_path / "data", options=BuildOptions(min_elo=2000), resume=True)
    assert len(load_split(tmp_path / "data", "train")) > 0  # a refusal changes nothing


def test_extending_adds_games_and_keeps_the_old_ones(tmp_path: Path) -> None:
    first = write_games(tmp_path / "a.pgn", 10, seed=13)
    second = write_games(tmp_path / "b.pgn", 6, seed=14)
    build([first], tmp_path / "data")
    before = _arrays(tmp_path / "data")
    report = build([first, second], tmp_path / "data", resume=True)
    assert report.manifest["games"]["kept"] == 16
    assert [s["first_game_id"] for s in report.manifest["sources"]] == [0, 10]
    after = all_splits(tmp_path / "data")
    old_ids = np.concatenate([s.game_id for s in after.values()])
    assert set(old_ids.tolist()) == set(range(16))
    train = after["train"]
    old = train.game_id < 10
    np.testing.assert_array_equal(train.subset(old).bits, before["train.bits"])
    # A recorded file that changed (or is left out) is refused.
    first.write_text(first.read_text() + random_game(random.Random(1), 99))
    with pytest.raises(DatasetError, match="does not name"):
        build([first, second], tmp_path / "data", resume=True)


def _edit_manifest(data: Path, **changes) -> None:
    path = data / "manifest.json"
    manifest = json.loads(path.read_text())
    for key, value in changes.items():
        if isinstance(value, dict):
            manifest[key].update(value)
        else:
            manifest[key] = value
    path.write_text(json.dumps(manifest))


def test_a_dataset_of_another_format_or_layout_is_refused(tmp_path: Path) -> None:
    pgn = write_games(tmp_path / "g.pgn", 3, seed=15)
    build([pgn], tmp_path / "data")
    _edit_manifest(tmp_path / "data", feature_layouts={"meep": "0123456789abcdef"})
    with pytest.raises(DatasetError, match=r"another meep feature layout.*0123456789abcdef"):
        load_split(tmp_path / "data", "train")
    _edit_manifest(tmp_path / "data", format_version=0)
    with pytest.raises(DatasetError, match="dataset format 0"):
        load_manifest(tmp_path / "data")
    with pytest.raises(DatasetError, match="not a dataset"):
        load_manifest(tmp_path)
    with pytest.raises(DatasetError, match="not found"):
        load_manifest(tmp_path / "nowhere")
