"""Distillation (``treestrap.distill``): positions from PGN, their inputs, teacher
labels written in resumable chunks, and a fitted network that reproduces its targets."""

from __future__ import annotations

from pathlib import Path

import chess
import numpy as np
import pytest
import torch

from treestrap.core.notation import parse_fen
from treestrap.distill import fit as distill_fit
from treestrap.distill import labels as distill_labels
from treestrap.evaluation.feature_sets.bitboard import BITBOARD_MAX_ACTIVE, bitboard_features
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.outcome import CENTIPAWNS_PER_LOGIT

torch.set_num_threads(1)

PGN = """[Event "t"]
[White "learner"]
[Black "learner"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 1-0

[Event "t"]
[White "learner"]
[Black "learner"]
[Result "0-1"]

1. e4 e5 2. Nf3 Nc6 3. d4 exd4 4. Nxd4 Nf6 5. Nxc6 bxc6 6. e5 Qe7 0-1
"""


def _pgn(tmp_path: Path) -> Path:
    path = tmp_path / "games.pgn"
    path.write_text(PGN)
    return path


def test_positions_are_distinct_and_start_at_the_first_ply(tmp_path: Path) -> None:
    epds = distill_labels.game_positions([_pgn(tmp_path)], first_ply=3)
    assert len(epds) == len(set(epds))
    # Game 1 from ply 3 to 16 (14), game 2 from ply 3 to 12, sharing plies 3 and 4.
    assert len(epds) == 14 + 10 - 2
    assert (
        epds[0] == chess.Board("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq -").epd()
    )


def test_board_rows_equal_the_compiled_inputs(tmp_path: Path) -> None:
    idx = np.zeros(BITBOARD_MAX_ACTIVE, dtype=np.int64)
    val = np.zeros(BITBOARD_MAX_ACTIVE)
    for epd in distill_labels.game_positions([_pgn(tmp_path)], first_ply=1):
        board = chess.Board(epd + " 0 1")
        n = bitboard_features(parse_fen(board.fen()), idx, val)
        expected = np.zeros(769, dtype=np.uint8)
        expected[idx[:n]] = 1
        assert np.array_equal(distill_labels.board_row(board), expected)


def test_labels_are_white_scores_in_resumable_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(distill_labels, "CHUNK", 4)
    # White a queen up, with either side to move; then quiet positions.
    epds = [
        "4k3/8/8/8/8/8/8/3QK3 w - -",
        "4k3/8/8/8/8/8/8/3QK3 b - -",
        *distill_labels.game_positions([_pgn(tmp_path)], first_ply=5)[:6],
    ]
    out = tmp_path / "labels"
    distill_labels.label_positions(epds, out, depth=2, shard=1, shards=2)
    assert sorted(p.name for p in out.iterdir()) == ["chunk-0001.npz"]
    distill_labels.label_positions(epds, out, depth=2)
    labels = distill_labels.load_labels(out)
    assert labels.rows.shape == (8, 769)
    assert list(labels.index) == list(range(8))
    assert np.array_equal(labels.rows[2], distill_labels.board_row(chess.Board(epds[2] + " 0 1")))
    assert labels.white_cp[0] > 500 and labels.white_cp[1] > 500
    assert np.all(np.abs(labels.white_cp) <= distill_labels.SCORE_CLIP)
    first = (out / "chunk-0000.npz").stat().st_mtime_ns
    distill_labels.label_positions(epds, out, depth=2)  # everything is there: nothing redone
    assert (out / "chunk-0000.npz").stat().st_mtime_ns == first


def test_a_fitted_network_reproduces_material_scores() -> None:
    rng = np.random.default_rng(1)
    values = np.array([100, 300, 320, 500, 900, 0] * 2) * np.repeat([1, -1], 6)
    rows = np.zeros((4000, 769), dtype=np.uint8)
    for i in range(len(rows)):
        rows[i, rng.choice(768, size=rng.integers(2, 8), replace=False)] = 1
        rows[i, 768] = rng.integers(0, 2)
    cp = rows[:, :768].reshape(-1, 12, 64).sum(axis=2) @ values
    cp = np.clip(cp, -distill_labels.SCORE_CLIP, distill_labels.SCORE_CLIP).astype(np.float64)
    labels = distill_labels.Labels(np.packbits(rows, axis=1), cp, np.arange(len(cp)))
    model, reports = distill_fit.fit_network(labels, hidden=32, epochs=12, batch=64, lr=1e-2)
    assert reports[-1].held_out_cp < 0.5 * reports[0].held_out_cp
    assert reports[-1].held_out_cp < 160
    for fen, material in [
        ("4k3/8/8/8/8/8/8/3QK3 b - - 0 1", -900),
        ("4k3/8/8/8/8/8/8/3QK3 w - - 0 1", 900),
        ("4k3/8/8/8/8/8/8/3RK3 b - - 0 1", -500),
        ("4k3/8/8/8/8/8/8/3NK3 w - - 0 1", 300),
    ]:
        board = chess.Board(fen)
        score = model.evaluate(parse_fen(fen))
        # The compiled network (first layer on the accumulator's grid, whose sums are
        # exact) scores as the fitted function in floating point does.
        white = _float_network(model, distill_labels.board_row(board))
        assert score == pytest.approx(white if board.turn else -white, abs=1e-6)
        # The held-out RMS (~120 cp) comes from big imbalances, where the logistic the
        # cross-entropy fits is flat and the labels are clipped; a lone piece sits where
        # it is steep, and these fit within 3 cp of their material (torch pinned, seeded).
        # 15 cp leaves room for another CPU's float rounding; a wrong sign, side to move
        # or piece is off by 100 or more.
        assert score == pytest.approx(material, abs=15)


def _float_network(model: NetworkModel, row: np.ndarray) -> float:
    """A ``crelu`` network with one hidden layer on one input row, in float64: its
    score for white in centipawns (parameters laid out as ``fit_network`` writes them)."""
    n, hidden = row.size, model.sizes[0]
    w = model.weights
    first = w[: n * hidden].reshape(n, hidden)
    bias = w[n * hidden : n * hidden + hidden]
    last = w[n * hidden + hidden : n * hidden + 2 * hidden]
    h = np.clip(row.astype(np.float64) @ first + bias, 0.0, 1.0)
    return float(h @ last + w[-1]) * CENTIPAWNS_PER_LOGIT


def test_the_commands_label_fit_and_write_a_network_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from treestrap.cli import main
    from treestrap.evaluation.presets import preset_model
    from treestrap.evaluation.weight_files import load_weights

    monkeypatch.setattr(distill_labels, "CHUNK", 10)
    games, labels, net = _pgn(tmp_path), tmp_path / "labels", tmp_path / "net.npz"
    argv = ["distill", "label", str(games), "--out", str(labels), "--depth", "1"]
    assert main([*argv, "--jobs", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "14 positions in 2 chunks of 10" in out and "labelled 2 of 2 chunks" in out
    assert distill_labels.load_labels(labels).rows.shape == (14, 769)
    # The same directory with another depth is refused, not mixed.
    assert main([*argv[:-1], "2", "--no-progress"]) == 2
    assert "depth 1, not 'learned' at depth 2" in capsys.readouterr().err
    fit = ["distill", "fit", str(labels), "--out", str(net), "--hidden", "8", "--epochs", "2"]
    assert main(fit) == 0
    model = load_weights(net)
    assert isinstance(model, NetworkModel) and model.sizes == [8, 1]
    assert model.metadata["teacher"] == "learned" and model.metadata["quiet_only"]
    quiet = distill_fit.quiet_mask(labels, preset_model("learned"), np.arange(14))
    assert 0 < model.metadata["positions"] == quiet.sum() < 14
    assert main([*fit, "--all-positions"]) == 0
    assert load_weights(net).metadata["positions"] == 14
    assert main(["distill", "label", str(tmp_path / "none.pgn"), "--out", str(labels)]) == 2
    assert main(["distill", "fit", str(tmp_path / "empty"), "--out", str(net)]) == 2


def test_quiet_positions_are_those_where_the_search_stands_pat(tmp_path: Path) -> None:
    from treestrap.evaluation.presets import hand_set_model

    epds = [
        "4k3/8/8/8/8/8/8/3QK3 w - -",  # nothing to take
        "4k3/8/8/8/3q4/8/8/3QK3 w - -",  # Qxd4 wins a queen
        "4k3/8/8/2p5/3p4/8/8/3QK3 w - -",  # Qxd4 loses the queen to cxd4: stand pat
        "4k3/8/8/8/8/8/4r3/4K3 w - -",  # in check
    ]
    out = tmp_path / "labels"
    out.mkdir()
    (out / distill_labels.POSITIONS_FILE).write_text("\n".join(epds))
    quiet = distill_fit.quiet_mask(out, hand_set_model(), np.arange(len(epds)))
    assert list(quiet) == [True, False, True, False]


def test_a_hybrid_fitted_to_its_own_linear_scores_keeps_them(tmp_path: Path) -> None:
    from treestrap.evaluation.presets import hand_set_model

    linear = hand_set_model()
    epds = distill_labels.game_positions([_pgn(tmp_path)], first_ply=1)
    out = tmp_path / "labels"
    out.mkdir()
    (out / distill_labels.POSITIONS_FILE).write_text("\n".join(epds))
    rows = np.array([distill_labels.board_row(chess.Board(e + " 0 1")) for e in epds])
    white_cp = distill_fit.linear_scores(out, linear, np.arange(len(epds)))
    side = np.where(rows[:, 768] == 1, 1.0, -1.0)
    assert white_cp == pytest.approx(side * [linear.evaluate(parse_fen(e + " 0 1")) for e in epds])
    many = np.repeat(rows, 50, axis=0)
    labels = distill_labels.Labels(
        np.packbits(many, axis=1), np.repeat(white_cp, 50), np.arange(len(many))
    )
    model, _ = distill_fit.fit_network(
        labels, hidden=8, epochs=3, batch=64, linear=linear, linear_cp=np.repeat(white_cp, 50)
    )
    assert model.linear is not None
    # The residual learns to stay near 0: the hybrid scores as its linear part.
    for e in epds:
        pos = parse_fen(e + " 0 1")
        assert model.evaluate(pos) == pytest.approx(linear.evaluate(pos), abs=15)


def test_joined_labels_keep_each_parts_held_out_rows() -> None:
    def part(n: int, first_cp: int) -> distill_labels.Labels:
        packed = np.zeros((n, 97), dtype=np.uint8)
        return distill_labels.Labels(
            packed, np.arange(first_cp, first_cp + n, dtype=float), np.arange(n)
        )

    one = part(40, 0)
    joined, base = distill_labels.join_labels([one])
    assert base is None and np.array_equal(joined.white_cp, one.white_cp)
    assert joined.held_out_count == distill_labels.held_out_rows(40) == 2
    a, b = part(40, 0), part(60, 1000)
    joined, base = distill_labels.join_labels([a, b], bases=[a.white_cp + 0.5, b.white_cp + 0.5])
    # Training rows of a, then of b; then a's last 2 and b's last 3.
    expected = [*range(38), *range(1000, 1057), 38, 39, 1057, 1058, 1059]
    assert list(joined.white_cp) == expected
    assert joined.held_out_count == 5
    assert base is not None and np.array_equal(base, joined.white_cp + 0.5)
    # Game results travel with their rows, and only when every part has them.
    assert joined.white_result is None
    a.white_result, b.white_result = a.white_cp / 2000, b.white_cp / 2000
    joined, _ = distill_labels.join_labels([a, b])
    assert joined.white_result is not None
    assert np.array_equal(joined.white_result, joined.white_cp / 2000)
    assert distill_labels.join_labels([a, part(10, 0)])[0].white_result is None


def test_fit_joins_several_label_directories(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from treestrap.cli import main
    from treestrap.evaluation.weight_files import load_weights

    monkeypatch.setattr(distill_labels, "CHUNK", 10)
    games = _pgn(tmp_path)
    for name, depth in (("one", "1"), ("two", "2")):
        label = ["distill", "label", str(games), "--out", str(tmp_path / name)]
        assert main([*label, "--depth", depth, "--jobs", "1", "--no-progress"]) == 0
    net = tmp_path / "net.npz"
    fit = ["distill", "fit", str(tmp_path / "one"), str(tmp_path / "two"), "--out", str(net)]
    assert main([*fit, "--hidden", "4", "--epochs", "1", "--all-positions"]) == 0
    assert "one: 14 positions" in capsys.readouterr().out
    meta = load_weights(net).metadata
    assert meta["positions"] == 28 and meta["teacher_depth"] == [1, 2]
    assert main(["distill", "fit", str(tmp_path / "missing"), *fit[2:]]) == 2
    assert "no labelled chunks" in capsys.readouterr().err


def test_a_killed_labelling_run_stops_its_workers(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    games = _pgn(tmp_path)
    out = tmp_path / "labels"
    command = [sys.executable, "-m", "treestrap.cli", "distill", "label", str(games)]
    command += ["--out", str(out), "--depth", "30", "--jobs", "2", "--no-progress"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None
    assert "positions in" in proc.stdout.readline().decode()  # the workers are starting
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "interrupted: run the same command again to resume" in err.decode()


def test_positions_carry_the_mean_result_of_the_games_that_reached_them(
    tmp_path: Path,
) -> None:
    pgn = _pgn(tmp_path)
    with open(pgn, "a") as fh:
        fh.write('\n[Event "t"]\n[Result "*"]\n\n1. d4 d5 2. c4 *\n')
    epds = distill_labels.game_positions([pgn], first_ply=3)
    results = distill_labels.position_results([pgn], epds, first_ply=3)
    one = set(distill_labels.game_positions([pgn], first_ply=3)[:14])  # game 1 (1-0)
    for epd, result in zip(epds, results, strict=True):
        if epd == chess.Board("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq -").epd():
            assert result == 0.5  # reached by both games, won by each side once
        elif epd.startswith("rnbqkbnr/ppp1pppp/8/3p4/2PP4"):
            assert np.isnan(result)  # only the unfinished game reached it
        elif epd in one:
            assert result in (0.5, 1.0)
        else:
            assert result in (0.5, 0.0)
    assert np.count_nonzero(results == 0.5) == 2  # plies 3 and 4 are shared
    assert np.count_nonzero(np.isnan(results)) == 1


def test_game_results_are_mixed_into_the_targets_where_known() -> None:
    labels = distill_labels.Labels(
        np.zeros((3, 97), dtype=np.uint8),
        np.zeros(3),
        np.arange(3),
        white_result=np.array([1.0, 0.0, np.nan]),
    )
    assert list(distill_fit.training_targets(labels, 0.0)) == [0.5, 0.5, 0.5]
    assert list(distill_fit.training_targets(labels, 0.5)) == [0.75, 0.25, 0.5]
    kept = labels.subset(np.array([1, 2]))
    assert kept.white_result is not None and list(kept.white_result[:1]) == [0.0]
    with pytest.raises(ValueError, match="no game results"):
        distill_fit.training_targets(
            distill_labels.Labels(labels.packed, labels.white_cp, labels.index), 0.5
        )


def test_labelling_records_the_results_and_fit_mixes_them_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from treestrap.cli import main
    from treestrap.evaluation.weight_files import load_weights

    monkeypatch.setattr(distill_labels, "CHUNK", 10)
    games, labels, net = _pgn(tmp_path), tmp_path / "labels", tmp_path / "net.npz"
    label = ["distill", "label", str(games), "--out", str(labels), "--depth", "1"]
    assert main([*label, "--jobs", "1", "--no-progress"]) == 0
    loaded = distill_labels.load_labels(labels)
    assert loaded.white_result is not None
    epds = distill_labels.positions_of(labels, loaded.index)
    expected = distill_labels.position_results([games], epds)
    assert np.array_equal(loaded.white_result, expected)
    # A directory labelled before results were kept gets them from a rerun.
    (labels / distill_labels.RESULTS_FILE).unlink()
    fit = ["distill", "fit", str(labels), "--out", str(net), "--hidden", "4", "--epochs", "1"]
    assert main([*fit, "--result-weight", "0.5"]) == 2
    assert "no game results; run the same distill label" in capsys.readouterr().err
    assert main([*label, "--jobs", "1", "--no-progress"]) == 0
    assert (labels / distill_labels.RESULTS_FILE).exists()
    assert main([*fit, "--result-weight", "0.5"]) == 0
    assert load_weights(net).metadata["result_weight"] == 0.5
    with pytest.raises(SystemExit):
        main([*fit, "--result-weight", "1.5"])
