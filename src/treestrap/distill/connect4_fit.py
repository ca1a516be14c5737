"""Fitting linear Connect Four weights to self-play records by logistic regression.

The weights are over the features of :mod:`treestrap.connect4.features` (lines by
discs and playable cells, threats by row parity, columns), read for the side to move;
``sigmoid(H(s) / POINTS_PER_LOGIT)`` is fitted by cross-entropy to

    ``(1 - w) * sigmoid(score / K) + w * (result + 1) / 2``

the search's score as a probability mixed with the game's result (the result weight
``w``), all for the side to move. A score the search proved (a win or a loss, beyond
:data:`~treestrap.search.value.MATE_BOUND`) is the probability 1 or 0 itself.

``K``, how many of a player's points make a logit, is the player's own: each weight
file that played some of the data has its scale fitted to the results of its games
(one-parameter logistic regression on its unproven scores, as Texel's tuning fits its
constant), so data of players with different scales mixes. The fitted weights are in
:data:`POINTS_PER_LOGIT` units, the networks' scale, far inside the searches' clip.

Each position also enters mirrored (columns reversed: the same value for the same
side), doubling the data. Adam takes mini-batch steps over shuffled training records
with a small L2 penalty, its step halved for each epoch of the last half. The records
are held in memory (20 bytes each) and their features extracted batch by batch.

With a state directory every finished epoch leaves a checkpoint there
(``fit-epoch-K.npz``: the weights, Adam's moments and the reports so far), and a fit
started again resumes from the last one; each epoch's order comes from the seed and the
epoch alone, so a resumed fit ends with the weights of one never interrupted.
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from treestrap.connect4.board import Position, new_position
from treestrap.connect4.features import MAX_ACTIVE, SIZE, extract
from treestrap.core.jit import njit
from treestrap.distill.connect4_records import CONNECT4_RECORD, mirrored, set_discs
from treestrap.search.value import MATE_BOUND

#: The fitted weights' points per logit (the networks' and chess's scale: 400 / ln 10).
POINTS_PER_LOGIT = 400.0 / math.log(10.0)
_CHECKPOINT = re.compile(r"fit-epoch-(\d+)\.npz")


@dataclass(frozen=True)
class Connect4FitSettings:
    """What the fit does: the targets, the steps, the data it adds."""

    #: the game result's share of a target, the search score's the rest
    result_weight: float = 0.5
    epochs: int = 8
    batch: int = 1024
    #: Adam's step size (on the logit weights); halved for each epoch of the last half
    lr: float = 0.01
    #: the L2 penalty on the logit weights, per position
    l2: float = 1e-6
    #: every position also enters mirrored
    mirror: bool = True
    seed: int = 0


@dataclass
class Connect4EpochReport:
    """One epoch: its training loss and the fitted weights' held-out errors."""

    epoch: int
    positions: int
    train_loss: float
    held_out_loss: float
    #: held-out share where the sign of the value agrees with a decisive result
    held_out_sign: float


@dataclass
class LabelledRecords:
    """Records with their target probabilities."""

    records: np.ndarray
    targets: np.ndarray


@njit(allocates=True)
def _fill_features(pos: Position, first: np.ndarray, second: np.ndarray, out: np.ndarray) -> None:
    idx = np.zeros(MAX_ACTIVE, dtype=np.int32)
    val = np.zeros(MAX_ACTIVE, dtype=np.float64)
    for i in range(first.shape[0]):
        set_discs(pos, first[i], second[i])
        n = extract(pos, idx, val)
        for j in range(n):
            out[i, idx[j]] += val[j]


def dense_features(records: np.ndarray) -> np.ndarray:
    """The features of each record's position, side to move's, as ``[n, SIZE]`` rows."""
    out = np.zeros((len(records), SIZE), dtype=np.float64)
    if len(records):
        first = np.ascontiguousarray(records["first"], dtype=np.uint64)
        second = np.ascontiguousarray(records["second"], dtype=np.uint64)
        _fill_features(new_position(), first, second, out)
    return out


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def proven(scores: np.ndarray) -> np.ndarray:
    """Whether each score is a proven win or loss."""
    return np.abs(scores.astype(np.float64)) >= MATE_BOUND


def player_scale(records: np.ndarray) -> float:
    """A player's points per logit: the ``K`` for which ``sigmoid(score / K)`` best
    predicts the results of its unproven, decisive or drawn positions (Newton's method
    on ``1 / K``); :data:`POINTS_PER_LOGIT` when its records say nothing."""
    keep = ~proven(records["score"])
    s = records["score"][keep].astype(np.float64)
    y = (records["result"][keep].astype(np.float64) + 1.0) / 2.0
    if len(s) == 0 or not np.any(s):
        return POINTS_PER_LOGIT
    a = 1.0 / POINTS_PER_LOGIT

    def loss(a: float) -> float:
        z = a * s
        return float(np.mean(np.logaddexp(0.0, z) - y * z))

    for _ in range(50):
        p = _sigmoid(a * s)
        grad = float(np.mean((p - y) * s))
        hess = float(np.mean(p * (1.0 - p) * s * s)) + 1e-12
        step = grad / hess
        while a - step <= 0.0 or loss(a - step) > loss(a) + 1e-12:
            step /= 2.0
            if abs(step) < 1e-12:
                break
        if abs(step) < 1e-12:
            break
        a -= step
    return 1.0 / a


def score_targets(records: np.ndarray, scale: float, result_weight: float) -> np.ndarray:
    """The side to move's target probabilities of records whose player's points per
    logit is ``scale``."""
    scores = records["score"].astype(np.float64)
    result = (records["result"].astype(np.float64) + 1.0) / 2.0
    p = np.where(proven(scores), (np.sign(scores) + 1.0) / 2.0, _sigmoid(scores / scale))
    return (1.0 - result_weight) * p + result_weight * result


def labelled(
    groups: list[tuple[np.ndarray, float]], settings: Connect4FitSettings
) -> LabelledRecords:
    """The records of each (records, player's scale) group with their targets, the
    mirrored positions added when the settings say so."""
    records, targets = [], []
    for group, scale in groups:
        y = score_targets(group, scale, settings.result_weight)
        records.append(np.asarray(group, dtype=CONNECT4_RECORD))
        targets.append(y)
        if settings.mirror:
            records.append(mirrored(group))
            targets.append(y)
    if not records:
        return LabelledRecords(np.zeros(0, dtype=CONNECT4_RECORD), np.zeros(0))
    return LabelledRecords(np.concatenate(records), np.concatenate(targets))


def cross_entropy(logits: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Binary cross-entropy of each logit against its target probability."""
    return np.logaddexp(0.0, logits) - targets * logits


def held_out_errors(beta: np.ndarray, data: LabelledRecords) -> tuple[float, float]:
    """Mean cross-entropy on ``data``, and the share of its decisive positions whose
    value has the result's sign."""
    if len(data.records) == 0:
        return float("nan"), float("nan")
    z = dense_features(data.records) @ beta
    loss = float(np.mean(cross_entropy(z, data.targets)))
    result = data.records["result"].astype(np.float64)
    decisive = result != 0
    sign = float(np.mean(np.sign(z[decisive]) == result[decisive])) if decisive.any() else 0.0
    return loss, sign


def fit_connect4_linear(
    train: LabelledRecords,
    held_out: LabelledRecords,
    settings: Connect4FitSettings,
    state_dir: Path | None = None,
    on_epoch: Callable[[Connect4EpochReport], None] | None = None,
) -> tuple[np.ndarray, list[Connect4EpochReport]]:
    """Linear Connect Four weights (in points) fitted to ``train`` (module
    docstring), with each epoch's errors on ``held_out``; checkpointed in and resumed
    from ``state_dir``."""
    n = len(train.records)
    if n == 0:
        raise ValueError("no training positions: the training files hold no records")
    if settings.epochs < 1 or settings.batch < 1 or not 0.0 <= settings.result_weight <= 1.0:
        raise ValueError(
            f"epochs {settings.epochs} and batch {settings.batch} must be positive and the "
            f"result weight {settings.result_weight} within [0, 1]"
        )
    beta, m, v = np.zeros(SIZE), np.zeros(SIZE), np.zeros(SIZE)
    step, reports = 0, []
    if state_dir is not None:
        found = _last_checkpoint(state_dir, settings)
        if found is not None:
            beta, m, v, step, reports = found
    b1, b2, eps = 0.9, 0.999, 1e-8
    for epoch in range(len(reports) + 1, settings.epochs + 1):
        lr = settings.lr * 0.5 ** max(0, epoch - settings.epochs // 2)
        order = np.random.default_rng([settings.seed, epoch]).permutation(n)
        loss_sum = 0.0
        for start in range(0, n, settings.batch):
            rows = np.sort(order[start : start + settings.batch])
            x = dense_features(train.records[rows])
            z = x @ beta
            y = train.targets[rows]
            loss_sum += float(np.sum(cross_entropy(z, y)))
            grad = x.T @ (_sigmoid(z) - y) / len(rows) + settings.l2 * beta
            step += 1
            m = b1 * m + (1 - b1) * grad
            v = b2 * v + (1 - b2) * grad * grad
            m_hat, v_hat = m / (1 - b1**step), v / (1 - b2**step)
            beta = beta - lr * m_hat / (np.sqrt(v_hat) + eps)
        loss_out, sign_out = held_out_errors(beta, held_out)
        report = Connect4EpochReport(epoch, n, loss_sum / n, loss_out, sign_out)
        reports.append(report)
        if on_epoch is not None:
            on_epoch(report)
        if state_dir is not None:
            _save_checkpoint(state_dir, epoch, settings, beta, m, v, step, reports)
    return beta * POINTS_PER_LOGIT, reports


def _checkpoint_path(state_dir: Path, epoch: int) -> Path:
    return state_dir / f"fit-epoch-{epoch}.npz"


def _save_checkpoint(
    state_dir: Path,
    epoch: int,
    settings: Connect4FitSettings,
    beta: np.ndarray,
    m: np.ndarray,
    v: np.ndarray,
    step: int,
    reports: list[Connect4EpochReport],
) -> None:
    """Epoch ``epoch``'s state, written to a temporary file and renamed (a file of that
    name is always whole)."""
    import json

    state_dir.mkdir(parents=True, exist_ok=True)
    meta = json.dumps({"settings": asdict(settings), "reports": [asdict(r) for r in reports]})
    fd, tmp = tempfile.mkstemp(dir=state_dir, prefix=".fit-epoch.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, beta=beta, m=m, v=v, step=np.int64(step), meta=np.array(meta))
        os.replace(tmp, _checkpoint_path(state_dir, epoch))
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _last_checkpoint(
    state_dir: Path, settings: Connect4FitSettings
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, list[Connect4EpochReport]] | None:
    """The state of the latest epoch checkpointed in ``state_dir`` (None: none); one
    of other settings is refused (resuming it would not give this fit's weights)."""
    import json

    names = (_CHECKPOINT.fullmatch(p.name) for p in state_dir.glob("fit-epoch-*.npz"))
    epochs = [int(found.group(1)) for found in names if found]
    if not epochs:
        return None
    path = _checkpoint_path(state_dir, max(epochs))
    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
        if meta["settings"] != asdict(settings):
            raise ValueError(f"{path}: a checkpoint of a fit with other settings")
        reports = [Connect4EpochReport(**r) for r in meta["reports"]]
        return data["beta"], data["m"], data["v"], int(data["step"]), reports
