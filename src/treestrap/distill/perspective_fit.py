"""Fitting a perspective network to labelled positions streamed from position files.

Each position is read from the side to move's point of view: the network's ``z`` (its
log-odds that the side to move wins) is fitted by binary cross-entropy to
``(1 - w) * sigmoid(score / C) + w * (result + 1) / 2``, the search score (clipped) as a
probability mixed with the game's result, all for the side to move; the result's share
``w`` may grow as the pieces leave the board. Adam steps through
the training files' shuffled batches (:func:`~treestrap.distill.position_file.
iter_batches`), never holding more than a batch, its step halved for each epoch of the
last half. The network trains in float32 on sparse inputs
(:mod:`treestrap.distill.sparse_perspective`) and is reported, epoch by epoch, as it
would be saved: quantized to the integer grid of the compiled network.

With a state directory each finished epoch leaves a checkpoint there (the network, the
optimizer, the reports so far, each with its epoch's CPU time), and a fit started again
resumes from the last one: every epoch's randomness comes from the settings' seed and
the epoch alone, so a fit killed at any point and resumed ends with the weights of one
never interrupted.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from treestrap.distill.fit_checkpoints import last_checkpoint, save_checkpoint
from treestrap.distill.position_file import game_phase, iter_batches, record_count
from treestrap.distill.sparse_perspective import sparse_batch, sparse_perspective
from treestrap.evaluation.outcome import CENTIPAWNS_PER_LOGIT, win_probability
from treestrap.evaluation.perspective import ACTIVATIONS, parameter_count, split_parameters
from treestrap.evaluation.perspective_weights import PerspectiveModel

#: A fresh start's spread of the feature weights, and of the output weights times
#: ``sqrt(2N)``: small, so the accumulators start near their bias (inside the clipped
#: range, where every unit passes gradient) and the output near zero.
FEATURE_SPREAD = 0.01
OUTPUT_SPREAD = 0.1


@dataclass(frozen=True)
class PerspectiveFitSettings:
    """What a fit makes and how (the network's shape, the targets, the steps)."""

    width: int = 256
    activation: str = "crelu"  # or "screlu"
    buckets: int = 1
    #: the game result's share of a target, the search score's the rest
    result_weight: float = 0.25
    #: what that share gains as the pieces leave the board: ``result_weight`` with all
    #: of them, ``result_weight + result_weight_rise`` with kings and pawns alone
    #: (:func:`~treestrap.distill.position_file.game_phase`); a rise of 0.5 made a
    #: far weaker network (docs/reports/bootstrap-zero.md)
    result_weight_rise: float = 0.0
    epochs: int = 4
    batch: int = 4096
    #: Adam's step size; halved for each epoch of the last half
    lr: float = 1e-3
    seed: int = 0
    #: search scores are clipped to +-this (centipawns) before they become probabilities
    score_clip: float = 1600.0


@dataclass
class EpochReport:
    """One epoch of a fit: its training loss and the fitted network's held-out errors."""

    epoch: int
    positions: int  # training positions seen this epoch
    train_loss: float  # mean cross-entropy of the training batches, as they were stepped
    held_out_loss: float  # cross-entropy on the held-out files
    held_out_cp: float  # RMS centipawns against the (clipped) search scores held out
    #: CPU time of the epoch (this process, its threads included), held-out errors too
    cpu_seconds: float = 0.0


def targets(records: np.ndarray, settings: PerspectiveFitSettings) -> np.ndarray:
    """The side to move's target probabilities of position records."""
    clip = settings.score_clip
    p = win_probability(np.clip(records["score"].astype(np.float64), -clip, clip))
    w: Any = settings.result_weight
    if settings.result_weight_rise:
        w = w + settings.result_weight_rise * (1.0 - game_phase(records))
    return (1.0 - w) * p + w * (records["result"].astype(np.float64) + 1.0) / 2.0


def random_start(settings: PerspectiveFitSettings) -> np.ndarray:
    """A fresh start's flat parameters, from the settings' seed."""
    rng = np.random.default_rng(settings.seed)
    width, buckets = settings.width, settings.buckets
    params = np.zeros(parameter_count(width, buckets))
    w, b, ow, _ = split_parameters(params, width, buckets)
    w[...] = rng.normal(0.0, FEATURE_SPREAD, w.shape)
    b[...] = 0.5
    ow[...] = rng.normal(0.0, OUTPUT_SPREAD / math.sqrt(2 * width), ow.shape)
    return params


def held_out_errors(
    model: PerspectiveModel, files: list[Path], settings: PerspectiveFitSettings
) -> tuple[float, float]:
    """``model``'s cross-entropy against the targets of the positions of ``files``, and
    its RMS centipawn error against their search scores clipped as the targets clip
    them."""
    import torch

    net = sparse_perspective(model.width, model.buckets, model.activation, model.weights)
    loss_sum = square_sum = 0.0
    count = 0
    with torch.no_grad():
        for records in iter_batches(files, settings.batch):
            z = net.side_to_move_logit(sparse_batch(records, model.buckets))
            y = torch.from_numpy(targets(records, settings).astype(np.float32))
            bce = torch.nn.functional.binary_cross_entropy_with_logits(z, y, reduction="sum")
            loss_sum += float(bce)
            clipped = np.clip(records["score"], -settings.score_clip, settings.score_clip)
            square_sum += float(np.sum((z.double().numpy() * CENTIPAWNS_PER_LOGIT - clipped) ** 2))
            count += len(records)
    if count == 0:
        raise ValueError("no held-out positions: the held-out files hold no records")
    return loss_sum / count, math.sqrt(square_sum / count)


def fit_perspective(
    train_files: list[Path],
    held_out_files: list[Path],
    settings: PerspectiveFitSettings,
    start: PerspectiveModel | None = None,
    state_dir: Path | None = None,
    progress: bool = False,
) -> tuple[PerspectiveModel, list[EpochReport]]:
    """A perspective network of ``settings``' shape fitted to the positions of
    ``train_files`` (module docstring), from ``start``'s parameters or a fresh random
    start, with each epoch's errors on ``held_out_files``. With ``state_dir`` it
    checkpoints every epoch there and resumes from the last checkpoint it finds. The
    network's metadata is left empty for the caller."""
    import torch
    from tqdm import tqdm

    _check(settings, start)
    total = sum(record_count(path) for path in train_files)
    if total == 0:
        raise ValueError("no training positions: the training files hold no records")
    params = random_start(settings) if start is None else start.weights
    net = sparse_perspective(settings.width, settings.buckets, settings.activation, params)
    optimizer = torch.optim.Adam(net.parameters(), lr=settings.lr)
    reports: list[EpochReport] = []
    if state_dir is not None:
        reports = _resume(state_dir, settings, net, optimizer)
    for epoch in range(len(reports) + 1, settings.epochs + 1):
        cpu = time.process_time()
        torch.manual_seed(settings.seed * 1_000_003 + epoch)
        half = settings.epochs // 2
        for group in optimizer.param_groups:
            group["lr"] = settings.lr * 0.5 ** max(0, epoch - half)
        bar = tqdm(total=total, unit="pos", unit_scale=True, disable=not progress)
        bar.set_description(f"epoch {epoch}/{settings.epochs}")
        loss_sum, seen = 0.0, 0
        for records in iter_batches(train_files, settings.batch, seed=settings.seed + epoch):
            z = net.side_to_move_logit(sparse_batch(records, settings.buckets))
            y = torch.from_numpy(targets(records, settings).astype(np.float32))
            loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            loss_sum += loss.item() * len(records)
            seen += len(records)
            bar.update(len(records))
            bar.set_postfix(loss=f"{loss_sum / seen:.4f}", refresh=False)
        bar.close()
        model = _model_of(net, settings)
        loss_out, cp_out = held_out_errors(model, held_out_files, settings)
        spent = time.process_time() - cpu
        reports.append(EpochReport(epoch, seen, loss_sum / seen, loss_out, cp_out, spent))
        if progress:
            print(
                f"epoch {epoch}: train loss {loss_sum / seen:.4f}, held-out loss "
                f"{loss_out:.4f}, held-out {cp_out:.1f} cp"
            )
        if state_dir is not None:
            state = {
                "settings": asdict(settings),
                "net": net.state_dict(),
                "optimizer": optimizer.state_dict(),
                "reports": [asdict(r) for r in reports],
            }
            save_checkpoint(state_dir, epoch, state)
    return _model_of(net, settings), reports


def _check(settings: PerspectiveFitSettings, start: PerspectiveModel | None) -> None:
    """Refuse settings no fit can follow, and a start of another shape."""
    if settings.activation not in ACTIVATIONS:
        raise ValueError(f"unknown activation {settings.activation!r} ({', '.join(ACTIVATIONS)})")
    weight, endgame = settings.result_weight, settings.result_weight + settings.result_weight_rise
    if settings.epochs < 1 or settings.batch < 1:
        raise ValueError(f"epochs {settings.epochs} and batch {settings.batch} must be positive")
    if not (0.0 <= weight <= 1.0 and 0.0 <= endgame <= 1.0):
        raise ValueError(f"the result weight {weight} (in endings {endgame}) must be within [0, 1]")
    if start is None:
        return
    theirs = (start.width, start.activation, start.buckets)
    ours = (settings.width, settings.activation, settings.buckets)
    if theirs != ours:
        raise ValueError(
            f"the start network has width {theirs[0]}, activation {theirs[1]} and "
            f"{theirs[2]} buckets; the fit makes width {ours[0]}, activation {ours[1]} "
            f"and {ours[2]} buckets"
        )


def _model_of(net: Any, settings: PerspectiveFitSettings) -> PerspectiveModel:
    """The network as saved: its parameters quantized to the compiled network's grid."""
    return PerspectiveModel(
        settings.width, net.flat_parameters(), {}, settings.activation, settings.buckets
    )


def _resume(
    state_dir: Path, settings: PerspectiveFitSettings, net: Any, optimizer: Any
) -> list[EpochReport]:
    """Load the last checkpoint of ``state_dir`` into ``net`` and ``optimizer`` and
    return its reports (none when there is no checkpoint). A checkpoint of other
    settings is refused: resuming from it would not give that fit's weights."""
    found = last_checkpoint(state_dir)
    if found is None:
        return []
    path, state = found
    # A setting added since the checkpoint was written had its default then.
    saved = {**asdict(PerspectiveFitSettings()), **state["settings"]}
    if saved != asdict(settings):
        raise ValueError(
            f"{path}: a checkpoint of a fit with other settings ({state['settings']}); "
            "resume with those or use another state directory"
        )
    net.load_state_dict(state["net"])
    optimizer.load_state_dict(state["optimizer"])
    return [EpochReport(**r) for r in state["reports"]]
