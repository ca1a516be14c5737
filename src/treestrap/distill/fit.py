"""Distillation's fit: a network (or a hybrid's residual, and its linear part) fitted
to labelled positions (:mod:`treestrap.distill.labels`) by the soft cross-entropy of the
searches' value mapping (:mod:`treestrap.evaluation.outcome`), and what a fit reads of
the labelled positions: which are quiet, and a linear model's scores of them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from treestrap.distill.labels import HELD_OUT, Labels, held_out_rows, positions_of
from treestrap.distill.sparse_features import SparseRows
from treestrap.evaluation.feature_sets.bitboard import BITBOARD_SIZE
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.outcome import CENTIPAWNS_PER_LOGIT
from treestrap.evaluation.weights import LinearModel


def white_probability(white_cp: np.ndarray) -> np.ndarray:
    """The searches' value mapping: a score for white as P(white wins)."""
    return 1.0 / (1.0 + np.exp(-np.asarray(white_cp) / CENTIPAWNS_PER_LOGIT))


def logit_error_cp(pred_logit: np.ndarray, white_cp: np.ndarray) -> float:
    """Root mean square difference in centipawns of predicted and target scores."""
    diff = np.asarray(pred_logit) * CENTIPAWNS_PER_LOGIT - np.asarray(white_cp)
    return math.sqrt(float(np.mean(diff * diff)))


def training_targets(labels: Labels, result_weight: float = 0.0) -> np.ndarray:
    """P(white wins) targets of ``labels``: the search scores' probabilities, with
    ``result_weight`` of each position's game result mixed in where it is known."""
    p = white_probability(labels.white_cp)
    if result_weight == 0.0:
        return p
    if labels.white_result is None:
        raise ValueError("these labels carry no game results: run distill label again")
    known = ~np.isnan(labels.white_result)
    p[known] = (1.0 - result_weight) * p[known] + result_weight * labels.white_result[known]
    return p


@dataclass
class FitReport:
    """Errors of a fitted network: RMS centipawns on the training and held-out rows."""

    epochs: int
    train_cp: float
    held_out_cp: float


def fit_network(
    labels: Labels,
    hidden: int = 256,
    epochs: int = 8,
    batch: int = 1024,
    lr: float = 1e-3,
    held_out: float = HELD_OUT,
    seed: int = 0,
    progress: bool = False,
    linear: LinearModel | None = None,
    linear_cp: np.ndarray | None = None,
    result_weight: float = 0.0,
    linear_rows: SparseRows | None = None,
) -> tuple[NetworkModel, list[FitReport]]:
    """A ``crelu:hidden`` network on the ``bitboard`` inputs fitted to ``labels`` by
    Adam on the soft cross-entropy of ``white_probability`` (each row also
    colour-flipped), the step size halved for each of the last half of the epochs;
    the held-out rows are the last ``held_out`` of them (or the labels' own
    ``held_out_count``). With ``linear`` (and its scores for white of the labelled
    positions, ``linear_cp``) the network is a hybrid's residual: it is fitted on top
    of those scores and the model carries the linear part. ``result_weight`` mixes the
    games' results into the targets: ``(1 - w) * P(search score) + w * result`` (a
    position no finished game reached keeps its search target). With ``linear_rows``
    (the labelled positions' features of the linear part) the linear weights are
    fitted too, from ``linear``'s, with the network; ``linear_cp`` is then not used."""
    import torch

    from treestrap.evaluation.colour_flip import flip_bitboard
    from treestrap.evaluation.network import quantize_first_layer

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    n = len(labels.white_cp)
    cut = n - (labels.held_out_count or held_out_rows(n, held_out))
    train_packed = labels.packed[:cut]
    train_p = training_targets(labels, result_weight)[:cut]
    val_rows = torch.from_numpy(labels.rows[cut:].astype(np.float32))
    val_cp = labels.white_cp[cut:]
    base = np.zeros(n) if linear_cp is None else np.asarray(linear_cp) / CENTIPAWNS_PER_LOGIT
    val_base = torch.from_numpy(base[cut:].astype(np.float32))

    first = torch.nn.Linear(BITBOARD_SIZE, hidden)
    last = torch.nn.Linear(hidden, 1)
    with torch.no_grad():
        last.weight.mul_(0.1)
        last.bias.zero_()
    params = [*first.parameters(), *last.parameters()]
    bag = None
    if linear_rows is not None:
        if linear is None:
            raise ValueError("fitting the linear part needs its starting weights")
        # theta in logits (the network's unit), so one step size suits both
        bag = torch.nn.EmbeddingBag(linear.feature_set.size, 1, mode="sum")
        with torch.no_grad():
            bag.weight.copy_(torch.from_numpy(linear.weights / CENTIPAWNS_PER_LOGIT)[:, None])
        params.append(bag.weight)
    optimizer = torch.optim.Adam(params, lr=lr)

    def logit(x: torch.Tensor) -> torch.Tensor:
        return last(torch.clamp(first(x), 0.0, 1.0)).squeeze(1)

    def offset_of(rows: np.ndarray) -> torch.Tensor:
        """The linear part's logits for white of training rows ``rows``."""
        if bag is None or linear_rows is None:
            return torch.from_numpy(base[rows].astype(np.float32))
        return linear_rows.take(rows).white_scores(bag)

    def rms(rows: torch.Tensor, offset: torch.Tensor, cp: np.ndarray) -> float:
        with torch.no_grad():
            pred = torch.cat([logit(rows[i : i + 8192]) for i in range(0, len(rows), 8192)])
        return logit_error_cp((pred + offset).double().numpy(), cp)

    reports: list[FitReport] = []
    for epoch in range(1, epochs + 1):
        if epoch > epochs // 2:
            for group in optimizer.param_groups:
                group["lr"] = lr * 0.5 ** (epoch - epochs // 2)
        order = rng.permutation(cut)
        for start in range(0, cut, batch):
            pick = order[start : start + batch]
            rows = np.unpackbits(train_packed[pick], axis=1, count=BITBOARD_SIZE)
            p = train_p[pick]
            x = torch.from_numpy(np.concatenate([rows, flip_bitboard(rows)]).astype(np.float32))
            y = torch.from_numpy(np.concatenate([p, 1.0 - p]).astype(np.float32))
            b = offset_of(pick)
            b = torch.cat([b, -b])
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logit(x) + b, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        sample = rng.choice(cut, size=min(cut, 50_000), replace=False)
        train_rows = torch.from_numpy(
            np.unpackbits(train_packed[sample], axis=1, count=BITBOARD_SIZE).astype(np.float32)
        )
        with torch.no_grad():
            train_base = offset_of(sample)
            if bag is not None:
                val_base = offset_of(np.arange(cut, n))
        reports.append(
            FitReport(
                epoch,
                rms(train_rows, train_base, labels.white_cp[sample]),
                rms(val_rows, val_base, val_cp),
            )
        )
        if progress:
            r = reports[-1]
            print(f"epoch {epoch}: train {r.train_cp:.1f} cp, held-out {r.held_out_cp:.1f} cp")

    with torch.no_grad():
        flat = np.concatenate(
            [
                first.weight.detach().double().numpy().T.reshape(-1),
                first.bias.detach().double().numpy(),
                last.weight.detach().double().numpy().reshape(-1),
                last.bias.detach().double().numpy(),
            ]
        )
    flat = quantize_first_layer(flat, BITBOARD_SIZE, hidden)
    if linear is None:
        return NetworkModel([hidden, 1], flat, activation="crelu"), reports
    theta = linear.weights.copy()
    if bag is not None:
        theta = bag.weight.detach().double().numpy()[:, 0] * CENTIPAWNS_PER_LOGIT
    hybrid = NetworkModel(
        [hidden, 1],
        flat,
        linear=theta,
        linear_set=linear.feature_set.name,
        activation="crelu",
    )
    return hybrid, reports


def quiet_mask(
    out_dir: str | Path, model: LinearModel | NetworkModel, index: np.ndarray
) -> np.ndarray:
    """Which positions ``index`` of a labelling directory are quiet for ``model``: the
    side to move is not in check and its quiescence search stands pat (no capture
    changes the value). A static evaluation is only ever asked for such positions' values
    by a search that plays out the captures itself; fitted to the search scores of the
    others, it learns to anticipate captures that the search then counts again."""
    from treestrap.core.notation import parse_fen
    from treestrap.core.position import in_check
    from treestrap.search.context import new_context, reset_context
    from treestrap.search.quiescence import quiescence

    ev = model.evaluator()
    ctx = new_context()
    reset_context(ctx)  # once: its evaluation cache then holds this evaluator's values
    out = np.zeros(len(index), dtype=bool)
    for i, epd in enumerate(positions_of(out_dir, index)):
        pos = parse_fen(epd + " 0 1")
        if in_check(pos):
            continue
        ctx.pv_len[0] = 0
        quiescence(pos, ev, ctx)
        out[i] = ctx.pv_len[0] == 0
    return out


def linear_scores(out_dir: str | Path, model: LinearModel, index: np.ndarray) -> np.ndarray:
    """``model``'s static scores for white of the positions ``index`` (a
    :class:`Labels`' ``index``) of a labelling directory."""
    from treestrap.core.notation import parse_fen

    epds = positions_of(out_dir, index)
    out = np.zeros(len(epds))
    for i, epd in enumerate(epds):
        score = model.evaluate(parse_fen(epd + " 0 1"))
        out[i] = score if epd.split()[1] == "w" else -score
    return out
