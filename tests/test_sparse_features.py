"""Linear features as sparse rows (``treestrap.learn.sparse_features``) and the fit of a
hybrid's linear part with its network (``distill fit --fit-linear``)."""

from __future__ import annotations

from pathlib import Path

import chess
import numpy as np
import pytest
import torch

from treestrap.core.notation import parse_fen
from treestrap.distill import fit as distill_fit
from treestrap.distill import labels as distill_labels
from treestrap.distill.sparse_features import linear_features
from treestrap.evaluation.outcome import CENTIPAWNS_PER_LOGIT
from treestrap.evaluation.presets import hand_set_model

torch.set_num_threads(1)

GAME = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O"


def _epds() -> list[str]:
    board = chess.Board()
    out = [board.epd()]
    for san in GAME.replace(".", " ").split():
        if not san.isdigit():
            board.push_san(san)
            out.append(board.epd())
    return out


def _white_scores(model: object, epds: list[str]) -> np.ndarray:
    scores = [model.evaluate(parse_fen(e + " 0 1")) for e in epds]  # type: ignore[attr-defined]
    return np.array([s if e.split()[1] == "w" else -s for s, e in zip(scores, epds, strict=True)])


def test_sparse_rows_score_as_the_linear_model_for_white() -> None:
    model = hand_set_model()
    epds = _epds()
    rows = linear_features(epds, model.feature_set)
    assert len(rows) == len(epds) and rows.offsets[-1] == len(rows.idx)
    bag = torch.nn.EmbeddingBag(model.feature_set.size, 1, mode="sum").double()
    with torch.no_grad():
        bag.weight.copy_(torch.from_numpy(model.weights)[:, None])
    rows.val = rows.val.astype(np.float64)
    rows.white_sign = rows.white_sign.astype(np.float64)
    expected = _white_scores(model, epds)
    assert rows.white_scores(bag).detach().numpy() == pytest.approx(expected, abs=1e-6)
    # A subset in another order keeps each row's pairs.
    pick = np.array([5, 0, 7, 7, 2])
    taken = rows.take(pick).white_scores(bag).detach().numpy()
    assert taken == pytest.approx(expected[pick], abs=1e-6)


def test_the_linear_part_moves_towards_targets_it_alone_can_reach() -> None:
    """Targets are hand-set's scores plus 150 cp for white's tempo: the network's inputs
    hold the side to move too, but fitting the linear part as well must end nearer."""
    model = hand_set_model()
    epds = _epds()
    rows01 = np.array([distill_labels.board_row(chess.Board(e + " 0 1")) for e in epds])
    side = np.where(rows01[:, 768] == 1, 1.0, -1.0)
    target = _white_scores(model, epds) + 150.0 * side
    reps = 40
    labels = distill_labels.Labels(
        np.packbits(np.repeat(rows01, reps, axis=0), axis=1),
        np.repeat(target, reps),
        np.arange(len(epds) * reps),
    )
    sparse = linear_features(list(np.repeat(np.array(epds, dtype=object), reps)), model.feature_set)
    base = np.repeat(_white_scores(model, epds), reps)
    fixed, fixed_reports = distill_fit.fit_network(
        labels, hidden=4, epochs=2, batch=32, linear=model, linear_cp=base
    )
    fitted, fitted_reports = distill_fit.fit_network(
        labels, hidden=4, epochs=2, batch=32, linear=model, linear_rows=sparse
    )
    assert fixed.linear is not None and np.array_equal(fixed.linear, model.weights)
    assert fitted.linear is not None and not np.array_equal(fitted.linear, model.weights)
    assert fitted_reports[-1].train_cp < fixed_reports[-1].train_cp
    # The file's weights are the fitted ones, in centipawns: its compiled score for white
    # matches the torch fit's error.
    pred = _white_scores(fitted, epds)
    err = np.sqrt(np.mean((pred - target) ** 2))
    assert err == pytest.approx(fitted_reports[-1].train_cp, rel=0.2, abs=5.0)
    assert CENTIPAWNS_PER_LOGIT > 100


def test_fit_linear_needs_a_linear_part(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from treestrap.cli import main

    out = tmp_path / "net.npz"
    assert main(["distill", "fit", str(tmp_path), "--out", str(out), "--fit-linear"]) == 2
    assert "--fit-linear needs --linear-part" in capsys.readouterr().err
    assert not out.exists()


def test_fit_linear_writes_the_fitted_weights(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from treestrap.cli import main
    from treestrap.evaluation.weight_files import load_weights

    monkeypatch.setattr(distill_labels, "CHUNK", 10)
    games, labels, net = tmp_path / "games.pgn", tmp_path / "labels", tmp_path / "net.npz"
    tags = '[Event "t"]\n[White "learner"]\n[Black "learner"]\n[Result "1-0"]\n'
    games.write_text(f"{tags}\n{GAME} 1-0\n")
    label = ["distill", "label", str(games), "--out", str(labels), "--depth", "1", "--jobs", "1"]
    assert main([*label, "--no-progress", "--teacher", "hand-set"]) == 0
    fit = ["distill", "fit", str(labels), "--out", str(net), "--hidden", "4", "--epochs", "1"]
    assert main([*fit, "--linear-part", "hand-set", "--fit-linear", "--all-positions"]) == 0
    assert "linear features:" in capsys.readouterr().out
    model = load_weights(net)
    assert model.metadata["linear_part_fitted"] is True
    assert model.linear is not None  # type: ignore[union-attr]
    assert not np.array_equal(model.linear, hand_set_model().weights)  # type: ignore[union-attr]
