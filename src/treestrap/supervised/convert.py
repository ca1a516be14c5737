"""A trained logistic regression on ``meep`` or ``bitboard`` features as an engine weight
file (:class:`treestrap.evaluation.weights.LinearModel`), for ``treestrap uci --weights``
and ``treestrap train --init``.

The mapping from class scores to centipawns. The logistic model gives scores
``z_win, z_draw, z_loss`` in its frame, and ``P(win) / P(loss) = exp(z_win - z_loss)``.
An Elo-style logistic scale reads a lead of 400 centipawns as odds of 10 to 1, so

    cp = (400 / ln 10) * (z_win - z_loss)  ~=  173.7 * (z_win - z_loss)

(:data:`CENTIPAWNS_PER_LOGIT`). Draws only move the two scores together and drop out.
The difference is linear in the inputs, so it is a weight vector
``theta = C (w_win - w_loss)`` plus a constant ``C (b_win - b_loss - (w_win - w_loss) .
mean)`` (the mean is the one ``--mean-subtract`` took off the inputs, else zero). The
engine's linear model has no intercept, so the constant goes onto inputs that are 1 in
every position: the ``tempo`` feature of ``meep``, and for ``bitboard`` the 64 white-king
squares (one of them holds the white king in every legal position).

Frames. A ``meep`` model predicts for the side to move, exactly the engine's convention.
A ``bitboard`` model predicts for white; the engine's ``bitboard`` feature set is white
relative too and negates the score when black is to move
(:mod:`treestrap.evaluation.model`), so the same weights give the side to move's score.
Scores are not clipped here; searches clip heuristic values to +-9900.

Networks. A logistic regression or an MLP on ``bitboard`` inputs also converts into a
network weight file (:mod:`treestrap.evaluation.network_weights`) that the compiled
searches evaluate: the input mean is folded into the first layer's bias, and the top
layer's win and loss rows into one output ``z_win - z_loss``, which
:mod:`treestrap.evaluation.outcome` maps to centipawns with the same constant. An MLP
checkpoint always converts so; a logistic regression does with ``network=True``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from treestrap.evaluation.feature_sets import get_feature_set
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.outcome import CENTIPAWNS_PER_LOGIT
from treestrap.evaluation.provenance import KEY as PROVENANCE
from treestrap.evaluation.provenance import stored_weights, tool_record, weights_sha256
from treestrap.evaluation.weights import LinearModel
from treestrap.supervised.checkpoint import BEST, Checkpoint, load_checkpoint
from treestrap.supervised.errors import SupervisedError
from treestrap.supervised.models import SupervisedModel
from treestrap.supervised.torch_required import require_torch

MAPPING = "cp = (400 / ln 10) * (z_win - z_loss)"
CONVERTIBLE = ("meep", "bitboard")
#: White king squares of the ``bitboard`` layout: piece code 5 (white king) x 64 squares.
WHITE_KING = slice(5 * 64, 6 * 64)


def centipawns(model: SupervisedModel, x: np.ndarray) -> np.ndarray:
    """``C (z_win - z_loss)`` of a batch of encoded inputs, in the model's frame."""
    torch = require_torch()
    with torch.no_grad():
        z = model(torch.from_numpy(np.asarray(x, dtype=np.float32))).double().numpy()
    return CENTIPAWNS_PER_LOGIT * (z[:, 0] - z[:, 2])


def linear_weights(model: SupervisedModel, features: str) -> np.ndarray:
    """The engine weights that give :func:`centipawns` of ``model`` on every position."""
    if model.kind != "logreg":
        raise SupervisedError(f"only a logistic regression converts, not a {model.kind} model")
    if features not in CONVERTIBLE:
        raise SupervisedError(
            f"features {features!r} have no engine feature set (convertible: meep, bitboard)"
        )
    linear = model.net.linear
    w = linear.weight.detach().double().numpy()
    b = linear.bias.detach().double().numpy()
    mean = model.input_mean.detach().double().numpy()
    direction = w[0] - w[2]
    constant = (b[0] - b[2]) - float(direction @ mean)
    theta = CENTIPAWNS_PER_LOGIT * direction
    fs = get_feature_set(features)
    if features == "meep":
        theta[fs.names.index("tempo")] += CENTIPAWNS_PER_LOGIT * constant
    else:
        theta[WHITE_KING] += CENTIPAWNS_PER_LOGIT * constant
    return theta


def resolve(path: str | Path) -> tuple[Path, dict[str, Any]]:
    """The checkpoint to convert: a file as given; a trial directory's ``best.pt``; for a
    run directory, the ``best.pt`` of its trial with the best validation accuracy (never
    chosen by test accuracy). Also returns that trial's ``result.json`` if finished."""
    path = Path(path)
    if path.is_file():
        return path, {}
    if (path / BEST).is_file():
        return path / BEST, _result(path)
    trials = sorted(p for p in path.glob("trial-*") if (p / BEST).is_file())
    if not trials:
        raise SupervisedError(
            f"{path}: no checkpoint (expected {BEST}, a trial or a run directory)"
        )

    def validation(trial: Path) -> float:
        return float(load_checkpoint(trial / BEST).header.get("best_validation_accuracy", 0.0))

    best = max(trials, key=validation)
    return best / BEST, _result(best)


def _result(trial: Path) -> dict[str, Any]:
    try:
        return json.loads((trial / "result.json").read_text())
    except (OSError, ValueError):
        return {}


def network_parameters(model: SupervisedModel, features: str) -> tuple[list[int], np.ndarray]:
    """Layer sizes and the flat parameters (:mod:`treestrap.evaluation.network`) of a
    logistic regression or MLP on ``bitboard`` inputs, whose output is ``z_win - z_loss``."""
    if features != "bitboard":
        raise SupervisedError(f"networks read bitboard inputs, not {features!r} features")
    mean = model.input_mean.detach().double().numpy()

    def arrays(layer: object) -> tuple[np.ndarray, np.ndarray]:
        w = layer.weight.detach().double().numpy()  # type: ignore[attr-defined]
        return w, layer.bias.detach().double().numpy()  # type: ignore[attr-defined]

    if model.kind == "logreg":
        hidden: list[object] = []
        top = model.net.linear
    elif model.kind == "mlp":
        hidden = [m for m in model.net.hidden if hasattr(m, "weight")]
        top = model.net.top
    else:
        raise SupervisedError(f"only logreg and mlp models run as networks, not {model.kind}")
    parts: list[np.ndarray] = []
    sizes: list[int] = []
    for k, layer in enumerate(hidden):
        w, b = arrays(layer)
        if k == 0:  # fold the centring in: W (x - mean) + b = W x + (b - W mean)
            b = b - w @ mean
            parts.append(w.T.reshape(-1))  # layer 0 is stored input-major (columns)
        else:
            parts.append(w.reshape(-1))
        parts.append(b)
        sizes.append(w.shape[0])
    w, b = arrays(top)
    out_w = w[0] - w[2]
    out_b = b[0] - b[2]
    if not hidden:
        out_b -= float(out_w @ mean)
    parts += [out_w, np.array([out_b])]
    sizes.append(1)
    return sizes, np.concatenate(parts)


def _provenance(ckpt_path: Path, ckpt: Checkpoint, result: dict[str, Any], algorithm: str) -> dict:
    header = ckpt.header
    metadata = {
        "source": "treestrap supervised convert",
        "algorithm": algorithm,
        "model": header["model"],
        "features": str(header["features"]),
        "frame": header.get("frame"),
        "run": ckpt_path.resolve().parent.parent.name,
        "trial": ckpt_path.resolve().parent.name,
        "checkpoint_sha256": hashlib.sha256(ckpt_path.read_bytes()).hexdigest()[:16],
        "seed": header.get("seed"),
        "epoch": header.get("best_epoch"),
        "validation_accuracy": header.get("best_validation_accuracy"),
        "dataset_manifest_hash": header.get("dataset", {}).get("manifest_hash"),
        "centipawns_per_logit": CENTIPAWNS_PER_LOGIT,
        "mapping": MAPPING,
    }
    if "test_accuracy" in result:
        metadata["test_accuracy"] = result["test_accuracy"]
    # Learned from a game collection, not from self-play: a chain with no random root.
    record = tool_record("treestrap supervised convert", 0.0)
    record["sources"] = [
        {
            "kind": "supervised checkpoint",
            "path": str(ckpt_path),
            "sha256": hashlib.sha256(ckpt_path.read_bytes()).hexdigest(),
        },
        {
            "kind": "dataset",
            "path": str(header.get("dataset", {}).get("name", "?")),
            "sha256": str(header.get("dataset", {}).get("manifest_hash", "")),
        },
    ]
    record["parents"] = []
    record["self_play_only"] = False
    metadata[PROVENANCE] = record
    return metadata


def convert(path: str | Path, network: bool = False) -> LinearModel | NetworkModel:
    """Load the checkpoint behind ``path`` and return its engine weights with provenance:
    a linear model for a logistic regression, a network for an MLP (or for a logistic
    regression on bitboard inputs when ``network``)."""
    ckpt_path, result = resolve(path)
    ckpt: Checkpoint = load_checkpoint(ckpt_path)
    features = str(ckpt.header["features"])
    model = ckpt.model(best=True)
    if network or model.kind != "logreg":
        sizes, params = network_parameters(model, features)
        algorithm = f"supervised {ckpt.spec.describe()} (Serban 2014, chapter 3)"
        metadata = _provenance(ckpt_path, ckpt, result, algorithm)
        metadata["sizes"] = ckpt.header.get("sizes", {})
        net = NetworkModel(sizes, params, metadata)
        metadata[PROVENANCE]["sha256"] = weights_sha256(stored_weights(net))
        return net
    theta = linear_weights(model, features)
    algorithm = "supervised logistic regression (Serban 2014, 3.1)"
    metadata = _provenance(ckpt_path, ckpt, result, algorithm)
    model = LinearModel(get_feature_set(features), theta, metadata)
    metadata[PROVENANCE]["sha256"] = weights_sha256(stored_weights(model))
    return model
