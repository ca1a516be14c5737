"""Supervised training of the winner from positions: Serban's Algorithm 3 (mini-batch SGD
with momentum and learning-rate decay, or Nesterov's momentum), Algorithm 5 for mixtures
of experts, early stopping on the validation split, several trials, resumable.

A run directory holds ``run.json`` (the configuration and the dataset's identity) and one
``trial-K`` directory per seed, each with ``metrics.jsonl`` (one JSON line per epoch),
``checkpoint.pt`` and ``best.pt`` (:mod:`treestrap.supervised.checkpoint`) and, once the
trial is finished, ``result.json`` with its test-split figures (:func:`test_result`).

Reproducibility: a trial's initial weights come from its seed alone and the order of
epoch ``t`` from ``(seed, t)`` alone, and nothing else draws random numbers; so a run
killed after epoch k and resumed from its checkpoint ends with the same weights as one
never interrupted.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from treestrap.supervised.checkpoint import (
    BEST,
    LAST,
    Checkpoint,
    check_dataset,
    header_for,
    load_checkpoint,
    save_checkpoint,
)
from treestrap.supervised.data import Data
from treestrap.supervised.errors import SupervisedError
from treestrap.supervised.inputs import Encoding, SplitLike, encode, get_encoding, to_frame
from treestrap.supervised.models import MODEL_KINDS, ModelSpec, SupervisedModel, build_model
from treestrap.supervised.models.layers import penalised
from treestrap.supervised.models.moe import em_update
from treestrap.supervised.torch_required import require_torch

RUN_FORMAT = "treestrap-supervised-run"
RUN_VERSION = 1
RUN_FILE = "run.json"
METRICS = "metrics.jsonl"
RESULT = "result.json"
#: Rows encoded at once when only evaluating (no gradients): bounds memory, not results.
EVAL_BATCH = 4096


@dataclass
class TrainConfig:
    """Everything that decides a run's result (``--threads`` and progress bars do not)."""

    #: ``logreg``, ``mlp``, ``convnet``, ``moe`` or ``stockfish``.
    model: str = "logreg"
    #: ``bitboard``, ``meep``, ``bitboard+meep`` or ``stockfish`` (:mod:`..inputs`).
    features: str = "bitboard"
    #: MLP hidden layer widths.
    hidden: tuple[int, ...] = (10,)
    #: ConvNet kernel sizes, e.g. (5, 3) for 5x5 then 3x3.
    kernels: tuple[int, ...] = (5, 3)
    #: ConvNet feature maps per convolution.
    maps: tuple[int, ...] = (5, 10)
    #: ConvNet fully connected units.
    fc: int = 100
    #: Mixture of experts: number of experts.
    experts: int = 2
    #: Mixture of experts: ``sgd`` on the likelihood or ``em`` (Algorithm 5).
    moe_training: str = "sgd"
    #: EM: gradient steps on the free energy per E-step (1 = the same step as SGD).
    m_steps: int = 1
    #: Positions per mini-batch (Serban: 100 for MLPs, 25 for ConvNets, 500 for mixtures).
    batch_size: int = 100
    #: Initial learning rate gamma_0.
    lr: float = 0.01
    #: Momentum mu of torch's SGD (Serban's moving average with beta is mu = 1 - beta
    #: with the learning rate scaled by beta).
    momentum: float = 0.0
    #: lambda of gamma_t = gamma_0 / (1 + gamma_0 lambda t) at epoch t (eq. 3.22).
    lr_decay: float = 0.0
    #: Nesterov's accelerated gradient (eqs. 3.25-3.26) instead of plain momentum.
    nesterov: bool = False
    #: L1 penalty on all weights but intercepts (eq. 3.11), added to the batch mean loss.
    l1: float = 0.0
    #: Most epochs to train.
    epochs: int = 10
    #: Stop after this many epochs without a better validation accuracy (None: never).
    patience: int | None = None
    #: Trials (seeds seed, seed + 1, ...), each in its own subdirectory.
    trials: int = 1
    #: Seed of the first trial.
    seed: int = 0
    #: Keep the positions that rollout completion appended (Serban 6.6).
    rollout: bool = True
    #: Subtract the training split's mean from every input (Serban 6.5).
    mean_subtract: bool = False

    def spec(self) -> ModelSpec:
        n_inputs = get_encoding(self.features).size
        return ModelSpec(
            self.model, n_inputs, self.hidden, self.kernels, self.maps, self.fc, self.experts
        )

    def to_json(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TrainConfig:
        known = {f.name for f in fields(cls)}
        values = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k in known}
        return cls(**values)


#: Options a resumed run may change: how long it trains and how many trials it runs.
RESUMABLE = frozenset({"epochs", "patience", "trials"})


def validate(config: TrainConfig) -> None:
    """Refuse option combinations that cannot train, with the reason."""
    if config.model not in MODEL_KINDS:
        raise SupervisedError(f"unknown model {config.model!r} (known: {', '.join(MODEL_KINDS)})")
    encoding = get_encoding(config.features)
    if config.model == "stockfish" and encoding.name != "stockfish":
        raise SupervisedError("--model stockfish reads --features stockfish")
    if config.model == "convnet" and encoding.name != "bitboard":
        raise SupervisedError("--model convnet reads bitboard planes: use --features bitboard")
    if config.moe_training not in ("sgd", "em"):
        raise SupervisedError(f"--moe-training must be sgd or em, not {config.moe_training!r}")
    if config.moe_training == "em" and config.model != "moe":
        raise SupervisedError("--moe-training em applies to --model moe only")
    if config.nesterov and config.momentum <= 0:
        raise SupervisedError("--nesterov needs --momentum > 0")
    checks = [
        (config.batch_size >= 1, "--batch-size must be >= 1"),
        (config.lr > 0, "--lr must be > 0"),
        (0 <= config.momentum < 1, "--momentum must be in [0, 1)"),
        (config.lr_decay >= 0, "--lr-decay must be >= 0"),
        (config.l1 >= 0, "--l1 must be >= 0"),
        (config.epochs >= 1, "--epochs must be >= 1"),
        (config.patience is None or config.patience >= 1, "--patience must be >= 1"),
        (config.trials >= 1, "--trials must be >= 1"),
        (config.m_steps >= 1, "--m-steps must be >= 1"),
    ]
    for ok, message in checks:
        if not ok:
            raise SupervisedError(message)
    try:
        build_model(config.spec(), config.seed)
    except ValueError as exc:
        raise SupervisedError(str(exc)) from None


def learning_rate(config: TrainConfig, epoch: int) -> float:
    """gamma_t = gamma_0 / (1 + gamma_0 lambda t), epochs counted from 1 (Algorithm 3)."""
    return config.lr / (1.0 + config.lr * config.lr_decay * epoch)


def epoch_order(seed: int, epoch: int, n: int) -> np.ndarray:
    """The shuffled order of epoch ``epoch``: a function of the seed and the epoch only."""
    return np.random.default_rng([seed, epoch]).permutation(n)


@dataclass
class Evaluation:
    """A model on a split: predictions on white / draw / black, and the mean NLL."""

    predictions: np.ndarray
    labels: np.ndarray
    nll: float

    @property
    def accuracy(self) -> float:
        return float(np.mean(self.predictions == self.labels)) if len(self.labels) else 0.0


def batch_tensors(split: SplitLike, encoding: Encoding, rows: np.ndarray) -> tuple[Any, Any]:
    """Inputs and frame targets of ``rows`` as torch tensors."""
    torch = require_torch()
    x = torch.from_numpy(encode(split, encoding, rows))
    y = to_frame(split.result[rows], split.white_to_move[rows], encoding.frame)
    return x, torch.from_numpy(np.ascontiguousarray(y, dtype=np.int64))


def evaluate(model: SupervisedModel, split: SplitLike, encoding: Encoding) -> Evaluation:
    """Predict every position of ``split`` (argmax of the class scores, back in white's frame)."""
    torch = require_torch()
    n = len(split)
    predictions = np.empty(n, dtype=np.int64)
    nll = 0.0
    model.eval()
    with torch.no_grad():
        for start in range(0, n, EVAL_BATCH):
            rows = np.arange(start, min(n, start + EVAL_BATCH))
            x, y = batch_tensors(split, encoding, rows)
            scores = model(x)
            nll += float(torch.nn.functional.cross_entropy(scores, y, reduction="sum"))
            frame_pred = scores.argmax(dim=1).numpy()
            predictions[rows] = to_frame(frame_pred, split.white_to_move[rows], encoding.frame)
    labels = np.asarray(split.result, dtype=np.int64)
    return Evaluation(predictions, labels, nll / max(n, 1))


def input_mean(split: SplitLike, encoding: Encoding) -> np.ndarray:
    """Mean of every input over ``split`` (float64 sums, chunked)."""
    total = np.zeros(encoding.size, dtype=np.float64)
    n = len(split)
    for start in range(0, n, EVAL_BATCH):
        total += encode(split, encoding, np.arange(start, min(n, start + EVAL_BATCH))).sum(0)
    return (total / max(n, 1)).astype(np.float32)


def test_result(model: SupervisedModel, data: Data) -> dict[str, Any]:
    """Test-split figures of a trained model: accuracy, mean NLL, the 3x3 contingency table
    (rows true white/draw/black, columns predicted), and counts by ply for the
    accuracy-against-move-number plot."""
    ev = evaluate(model, data.test, data.encoding)
    confusion = np.zeros((3, 3), dtype=np.int64)
    np.add.at(confusion, (ev.labels, ev.predictions), 1)
    ply = np.asarray(data.test.ply, dtype=np.int64)
    length = int(ply.max()) + 1 if len(ply) else 0
    return {
        "test_accuracy": ev.accuracy,
        "test_nll": ev.nll,
        "n_test": len(ev.labels),
        "confusion": confusion.tolist(),
        "class_counts": np.bincount(ev.labels, minlength=3).tolist(),
        "by_ply": {
            "correct": np.bincount(ply, weights=ev.predictions == ev.labels, minlength=length)
            .astype(np.int64)
            .tolist(),
            "total": np.bincount(ply, minlength=length).tolist(),
        },
    }


@dataclass
class TrialResult:
    trial_dir: Path
    best_epoch: int
    best_validation_accuracy: float
    epochs_run: int
    history: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)


def _penalty(model: SupervisedModel, l1: float) -> Callable[[], Any] | None:
    if l1 <= 0:
        return None
    weights = penalised(model.net)

    def penalty() -> Any:
        return l1 * sum(w.abs().sum() for w in weights)

    return penalty


def _write_metrics(path: Path, history: list[dict[str, Any]]) -> None:
    """Rewrite the metrics file from the checkpoint's history (a resume drops any epoch that
    was logged but not checkpointed)."""
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in history))


def train_trial(
    data: Data,
    config: TrainConfig,
    trial_dir: str | Path,
    seed: int,
    *,
    resume: bool = False,
    progress: bool = False,
    on_epoch_end: Callable[[dict[str, Any]], None] | None = None,
) -> TrialResult:
    """Train one trial in ``trial_dir``; with ``resume``, continue from its checkpoint.

    Each epoch: shuffle, one optimiser step per mini-batch (or one E-step and ``m_steps``
    M-steps for ``--moe-training em``), evaluate on the validation split, checkpoint.
    The model kept is the epoch of best validation accuracy (the first, on ties); training
    stops after ``patience`` epochs without improving on it.
    """
    torch = require_torch()
    from tqdm import tqdm

    trial_dir = Path(trial_dir)
    trial_dir.mkdir(parents=True, exist_ok=True)
    spec = config.spec()
    encoding = data.encoding
    model = build_model(spec, seed)
    optimizer = torch.optim.SGD(
        model.parameters(), lr=config.lr, momentum=config.momentum, nesterov=config.nesterov
    )
    history: list[dict[str, Any]] = []
    best_state: dict[str, Any] | None = None
    best_epoch, best_accuracy, stale, start = 0, -1.0, 0, 0
    last = trial_dir / LAST
    if resume and last.exists():
        ckpt = load_checkpoint(last)
        check_dataset(ckpt, data.manifest_hash, last)
        stored = TrainConfig.from_json(ckpt.header.get("config", {}))
        _check_same(stored, config, str(last))
        if ckpt.header.get("seed") != seed:
            raise SupervisedError(
                f"{last}: trained with seed {ckpt.header.get('seed')}, not {seed}"
            )
        model.load_state_dict(ckpt.state)
        if ckpt.optimizer is not None:
            optimizer.load_state_dict(ckpt.optimizer)
        best_state = ckpt.best_state
        h = ckpt.header
        history = list(h["history"])
        start, best_epoch, stale = int(h["epoch"]), int(h["best_epoch"]), int(h["stale"])
        best_accuracy = float(h["best_validation_accuracy"])
    elif config.mean_subtract:
        model.input_mean.copy_(torch.from_numpy(input_mean(data.train, encoding)))
    _write_metrics(trial_dir / METRICS, history)

    penalty = _penalty(model, config.l1)
    dataset = {"manifest_hash": data.manifest_hash, "name": data.name}
    n = len(data.train)
    em = config.model == "moe" and config.moe_training == "em"
    for epoch in range(start + 1, config.epochs + 1):
        if config.patience is not None and stale >= config.patience:
            break
        lr = learning_rate(config, epoch)
        for group in optimizer.param_groups:
            group["lr"] = lr
        order = epoch_order(seed, epoch, n)
        model.train()
        began = time.perf_counter()
        loss_sum, correct = 0.0, 0
        bar = tqdm(
            range(0, n, config.batch_size),
            desc=f"{trial_dir.name} epoch {epoch}",
            unit="batch",
            disable=not progress,
            leave=False,
        )
        for first in bar:
            rows = order[first : first + config.batch_size]
            x, y = batch_tensors(data.train, encoding, rows)
            if em:
                nll, scores = em_update(model, x, y, optimizer, config.m_steps, penalty)
            else:
                scores = model(x)
                loss = torch.nn.functional.cross_entropy(scores, y)
                nll = float(loss.detach())
                if penalty is not None:
                    loss = loss + penalty()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            loss_sum += nll * len(rows)
            correct += int((scores.detach().argmax(dim=1) == y).sum())
        train_seconds = time.perf_counter() - began
        validation = evaluate(model, data.validation, encoding)
        seconds = time.perf_counter() - began
        if validation.accuracy > best_accuracy:
            best_accuracy, best_epoch, stale = validation.accuracy, epoch, 0
            best_state = copy.deepcopy(model.state_dict())
        else:
            stale += 1
        record = {
            "epoch": epoch,
            "lr": lr,
            "loss": loss_sum / n,
            "train_accuracy": correct / n,
            "validation_accuracy": validation.accuracy,
            "validation_loss": validation.nll,
            "seconds": seconds,
            "positions_per_second": n / train_seconds if train_seconds > 0 else 0.0,
            "best_epoch": best_epoch,
        }
        history.append(record)
        header = header_for(
            spec,
            config.features,
            dataset,
            config=config.to_json(),
            seed=seed,
            epoch=epoch,
            best_epoch=best_epoch,
            best_validation_accuracy=best_accuracy,
            stale=stale,
            history=history,
        )
        save_checkpoint(
            last, Checkpoint(header, model.state_dict(), best_state, optimizer.state_dict())
        )
        if best_epoch == epoch:
            save_checkpoint(trial_dir / BEST, Checkpoint(header, model.state_dict()))
        with (trial_dir / METRICS).open("a") as fh:
            fh.write(json.dumps(record, sort_keys=True) + "\n")
        if on_epoch_end is not None:
            on_epoch_end(record)

    if best_state is None:  # nothing trained (no epoch ran): keep the initial model
        best_state = copy.deepcopy(model.state_dict())
    model.load_state_dict(best_state)
    result = {
        "seed": seed,
        "best_epoch": best_epoch,
        "best_validation_accuracy": best_accuracy,
        "epochs_run": len(history),
        "n_train": n,
        "n_validation": len(data.validation),
        **test_result(model, data),
    }
    (trial_dir / RESULT).write_text(json.dumps(result, sort_keys=True, indent=1) + "\n")
    return TrialResult(trial_dir, best_epoch, best_accuracy, len(history), history, result)


def _check_same(stored: TrainConfig, config: TrainConfig, where: str) -> None:
    """A resume must train the same thing; only :data:`RESUMABLE` options may change."""
    old, new = stored.to_json(), config.to_json()
    changed = [k for k in new if k not in RESUMABLE and old.get(k) != new[k]]
    if changed:
        diffs = ", ".join(f"{k} {old.get(k)!r} -> {new[k]!r}" for k in changed)
        raise SupervisedError(f"{where}: cannot resume with other options ({diffs})")


def run_record(config: TrainConfig, data: Data, name: str) -> dict[str, Any]:
    return {
        "format": RUN_FORMAT,
        "version": RUN_VERSION,
        "name": name,
        "model": config.spec().describe(),
        "config": config.to_json(),
        "dataset": {
            "manifest_hash": data.manifest_hash,
            "name": data.name,
            "layouts": data.encoding.layout_hashes(),
        },
    }


def read_run(run_dir: Path) -> dict[str, Any]:
    """``run.json`` of a run directory, checked."""
    path = run_dir / RUN_FILE
    try:
        record = json.loads(path.read_text())
    except FileNotFoundError:
        raise SupervisedError(f"{run_dir}: not a supervised run (no {RUN_FILE})") from None
    except (OSError, ValueError) as exc:
        raise SupervisedError(f"{path}: unreadable ({exc})") from None
    if not isinstance(record, dict) or record.get("format") != RUN_FORMAT:
        raise SupervisedError(f"{path}: not a supervised run record")
    if record.get("version") != RUN_VERSION:
        raise SupervisedError(
            f"{path}: run format version {record.get('version')!r}, this build reads {RUN_VERSION}"
        )
    return record


def train_run(
    data: Data,
    config: TrainConfig,
    out: str | Path,
    *,
    resume: bool = False,
    progress: bool = False,
    report: Callable[[str], None] | None = None,
) -> list[TrialResult]:
    """Train ``config.trials`` trials into ``out/trial-K``; ``resume`` continues a killed
    run (finished trials are kept, the others continue from their last epoch)."""
    validate(config)
    out = Path(out)
    if (out / RUN_FILE).exists():
        if not resume:
            raise SupervisedError(
                f"{out} already holds a run: use --resume to continue it, or another --out"
            )
        stored = read_run(out)
        if stored["dataset"]["manifest_hash"] != data.manifest_hash:
            raise SupervisedError(
                f"{out}: trained on another dataset (manifest hash "
                f"{stored['dataset']['manifest_hash']}, {data.name} has {data.manifest_hash})"
            )
        _check_same(TrainConfig.from_json(stored["config"]), config, str(out))
    out.mkdir(parents=True, exist_ok=True)
    record = run_record(config, data, out.resolve().name)
    (out / RUN_FILE).write_text(json.dumps(record, sort_keys=True, indent=1) + "\n")
    results = []
    for trial in range(config.trials):
        trial_dir = out / f"trial-{trial}"
        if resume and (trial_dir / RESULT).exists():
            done = json.loads((trial_dir / RESULT).read_text())
            if report:
                report(f"{trial_dir.name}: finished already (test {done['test_accuracy']:.2%})")
            results.append(
                TrialResult(
                    trial_dir,
                    done["best_epoch"],
                    done["best_validation_accuracy"],
                    done["epochs_run"],
                    result=done,
                )
            )
            continue
        result = train_trial(
            data, config, trial_dir, config.seed + trial, resume=resume, progress=progress
        )
        if report:
            report(
                f"{trial_dir.name}: best epoch {result.best_epoch} of {result.epochs_run}, "
                f"validation {result.best_validation_accuracy:.2%}, "
                f"test {result.result['test_accuracy']:.2%}"
            )
        results.append(result)
    return results
